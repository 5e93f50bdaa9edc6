import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OAuthSignInError } from '../../errors/auth.errors.js';
import { startOidcProvider, type TestOidcProvider } from '../../../test/setup/oidc-provider.js';
import { NO_ISSUER, OAuthDiscovery } from './oauth-discovery.js';
import { normalized, oauthConfig } from './fixtures/oauth.fixture.js';

const DISCOVERY = 'GET /.well-known/openid-configuration';
let op: TestOidcProvider;

beforeAll(async () => {
  op = await startOidcProvider();
});
afterAll(() => op.close());

/** A discovery service over a config with one provider `idp`, and the debug lines it logs. */
function setup(provider: Record<string, unknown>) {
  const debug: Array<[string, unknown]> = [];
  const config = oauthConfig({
    providers: [{ id: 'idp', name: 'IdP', type: 'oidc', clientId: 'c', clientSecret: 's', ...provider } as never],
    logger: { debug: (message: string, metadata?: unknown) => debug.push([message, metadata]) },
  });
  return { discovery: new OAuthDiscovery(config), p: normalized(config, 'idp'), debug };
}

const discoveries = () => op.requests.filter((r) => r === DISCOVERY).length;

describe('OAuthDiscovery.authorizationServer', () => {
  // promise: oauth.discovery-limits (the cache)
  it("discovers the provider's metadata from its issuer, once per TTL", async () => {
    const { discovery, p, debug } = setup({ issuer: op.issuer });
    const before = discoveries();
    const as = await discovery.authorizationServer(p);
    expect(as.issuer).toBe(op.issuer);
    expect(as.authorization_endpoint).toBe(`${op.issuer}/auth`);
    expect(as.jwks_uri).toBe(`${op.issuer}/jwks`);
    expect(debug).toContainEqual(['oauth_discovery', { provider: 'idp', issuer: op.issuer }]);
    expect(await discovery.authorizationServer(p)).toBe(as);
    expect(discoveries() - before).toBe(1);
  });

  it('shares one fetch between concurrent look-ups', async () => {
    const { discovery, p } = setup({ issuer: op.issuer });
    const before = discoveries();
    const [a, b, c] = await Promise.all([
      discovery.authorizationServer(p),
      discovery.authorizationServer(p),
      discovery.authorizationServer(p),
    ]);
    expect(b).toBe(a);
    expect(c).toBe(a);
    expect(discoveries() - before).toBe(1);
  });

  it('lets explicit endpoints override the discovered ones', async () => {
    const { discovery, p } = setup({ issuer: op.issuer, userinfo: 'https://api.example/me' });
    const as = await discovery.authorizationServer(p);
    expect(as.userinfo_endpoint).toBe('https://api.example/me');
    expect(as.token_endpoint).toBe(`${op.issuer}/token`);
  });

  it('learns the issuer from the document when only `wellKnown` is given', async () => {
    const { discovery, p } = setup({ wellKnown: `${op.issuer}/.well-known/openid-configuration` });
    expect((await discovery.authorizationServer(p)).issuer).toBe(op.issuer);
  });

  it('builds the metadata from explicit endpoints without any request', async () => {
    const { discovery, p } = setup({
      type: 'oauth',
      authorization: 'https://as.example/authorize',
      token: 'https://as.example/token',
      userinfo: 'https://as.example/user',
    });
    const before = op.requests.length;
    expect(await discovery.authorizationServer(p)).toEqual({
      issuer: NO_ISSUER,
      authorization_endpoint: 'https://as.example/authorize',
      token_endpoint: 'https://as.example/token',
      userinfo_endpoint: 'https://as.example/user',
    });
    expect(op.requests.length).toBe(before);
  });

  it('refuses a document naming another issuer than the configured one', async () => {
    const other = setup({ issuer: `${op.issuer}/tenant`, wellKnown: `${op.issuer}/.well-known/openid-configuration` });
    await expect(other.discovery.authorizationServer(other.p)).rejects.toThrow(/issuer/);
  });
});

describe('OAuthDiscovery.idTokenServer', () => {
  const common = {
    issuer: 'https://login.example/common',
    authorization_endpoint: 'https://login.example/common/authorize',
  };
  const tokenResponse = (claims: Record<string, unknown>) =>
    Response.json({
      access_token: 'at',
      token_type: 'bearer',
      id_token: `e30.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`,
    });

  it("is the provider's metadata unless `idTokenIssuer` names another issuer for the token", async () => {
    const plain = setup({ issuer: op.issuer });
    expect(await plain.discovery.idTokenServer(plain.p, common, tokenResponse({ tid: 't1' }))).toBe(common);
    const keep = setup({ issuer: op.issuer, idTokenIssuer: () => undefined });
    expect(await keep.discovery.idTokenServer(keep.p, common, tokenResponse({ tid: 't1' }))).toBe(common);
  });

  it("discovers the tenant's issuer the token names (once), leaving the response readable", async () => {
    const seen: Array<Record<string, unknown>> = [];
    const { discovery, p } = setup({
      issuer: op.issuer,
      idTokenIssuer: (claims: Record<string, unknown>) => {
        seen.push(claims);
        return claims.tid === 'op' ? op.issuer : undefined;
      },
    });
    const before = discoveries();
    const response = tokenResponse({ tid: 'op', iss: op.issuer });
    const tenant = await discovery.idTokenServer(p, common, response);
    expect(tenant.issuer).toBe(op.issuer);
    expect(tenant.jwks_uri).toBe(`${op.issuer}/jwks`);
    expect(seen).toEqual([{ tid: 'op', iss: op.issuer }]);
    expect(((await response.json()) as { access_token: string }).access_token).toBe('at');
    expect(await discovery.idTokenServer(p, common, tokenResponse({ tid: 'op' }))).toBe(tenant);
    expect(discoveries() - before).toBe(1);
  });

  it('refuses to discover a tenant issuer over plain http off loopback (bootstrap never saw that URL)', async () => {
    const { discovery, p } = setup({ issuer: op.issuer, idTokenIssuer: () => 'http://tenant.example/v2.0' });
    await expect(discovery.idTokenServer(p, common, tokenResponse({ tid: 't' }))).rejects.toThrow(
      new OAuthSignInError('IdP: discovery needs https (http://tenant.example).'),
    );
  });
});
