import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import * as o from 'oauth4webapi';
import { InvalidEndpoints, OAuthCallbackError } from '../../errors/auth.errors.js';
import { startOAuth2Server, type TestOAuth2Server } from '../../../test/setup/oauth2-server.js';
import { IdTokenVerifier } from './id-token.verifier.js';
import { OAuthDiscovery } from './oauth-discovery.js';
import { importPrivateKey, OAuthTokenExchange } from './oauth-token.js';
import {
  APP_ORIGIN,
  normalized,
  oauthConfig,
  providerContext,
  startServer,
  type Answer,
  type TestServer,
} from './fixtures/oauth.fixture.js';

const REDIRECT = `${APP_ORIGIN}/auth/callback/idp`;
let as2: TestOAuth2Server;
let op: TestServer;
let opAnswer: () => Promise<Answer> = async () => ({ status: 500 });
let signingKey: CryptoKey;
let publicJwk: JWK;

beforeAll(async () => {
  as2 = await startOAuth2Server({ clients: [{ client_id: 'c', client_secret: 's', redirect_uris: [REDIRECT] }] });
  const pair = await generateKeyPair('RS256');
  signingKey = pair.privateKey;
  publicJwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  op = await startServer(({ url }) => (url.pathname === '/jwks' ? { body: { keys: [publicJwk] } } : opAnswer()));
});
afterAll(async () => {
  await as2.close();
  await op.close();
});

/** The token exchange over a config with one provider `idp` (the OAuth 2.0 test server unless `extra` says otherwise). */
function setup(extra: Record<string, unknown> = {}) {
  const config = oauthConfig({
    providers: [
      {
        id: 'idp',
        name: 'IdP',
        type: 'oauth',
        authorization: as2.authorizationUrl,
        token: as2.tokenUrl,
        userinfo: as2.userinfoUrl,
        clientId: 'c',
        clientSecret: 's',
        ...extra,
      } as never,
    ],
  });
  const p = normalized(config, 'idp');
  const exchange = new OAuthTokenExchange(new OAuthDiscovery(config), new IdTokenVerifier(config));
  const as: o.AuthorizationServer = { issuer: 'https://issuer.invalid', token_endpoint: p.token?.url?.href };
  return { exchange, p, ctx: providerContext(config, 'idp'), as, client: { client_id: 'c', ...p.client } as o.Client };
}

/** The callback parameters as validateAuthResponse hands them on (what the token request accepts). */
function validated(as: o.AuthorizationServer, client: o.Client, params: URLSearchParams | string): URLSearchParams {
  return o.validateAuthResponse(
    as,
    client,
    typeof params === 'string' ? new URLSearchParams({ code: params }) : params,
    o.skipStateCheck,
  );
}

/** A code the OAuth 2.0 test server issued for `REDIRECT` (with this PKCE verifier, if any). */
async function code(verifier?: string): Promise<URLSearchParams> {
  const url = new URL(as2.authorizationUrl);
  url.search = new URLSearchParams({ client_id: 'c', redirect_uri: REDIRECT, response_type: 'code' }).toString();
  if (verifier) {
    url.searchParams.set('code_challenge', await o.calculatePKCECodeChallenge(verifier));
    url.searchParams.set('code_challenge_method', 'S256');
  }
  const res = await fetch(url, { redirect: 'manual' });
  return new URLSearchParams({ code: new URL(res.headers.get('location')!).searchParams.get('code')! });
}

describe('OAuthTokenExchange: the token request', () => {
  it('exchanges the code with the PKCE verifier and Basic client authentication', async () => {
    const { exchange, p, ctx, as, client } = setup({ token: { url: as2.tokenUrl, params: { audience: 'api' } } });
    const verifier = o.generateRandomCodeVerifier();
    const { tokens, claims } = await exchange.exchangeCode(
      ctx,
      p,
      as,
      client,
      validated(as, client, await code(verifier)),
      { code_verifier: verifier },
      undefined,
    );
    expect(tokens).toMatchObject({ token_type: 'bearer', scope: 'read:user', expires_in: 3600 });
    expect(typeof tokens.access_token).toBe('string');
    expect(tokens.expires_at).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) + 3599);
    expect(claims).toBeUndefined();
    const sent = as2.tokenRequests.at(-1)!;
    expect(sent.authorization).toBe(`Basic ${Buffer.from('c:s').toString('base64')}`);
    expect(sent.body).toMatchObject({
      grant_type: 'authorization_code',
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      audience: 'api',
    });
  });

  it('sends the secret in the body with client_secret_post', async () => {
    const { exchange, p, ctx, as, client } = setup({ client: { token_endpoint_auth_method: 'client_secret_post' } });
    await exchange.exchangeCode(ctx, p, as, client, validated(as, client, await code()), {}, undefined);
    const sent = as2.tokenRequests.at(-1)!;
    expect(sent.authorization).toBeUndefined();
    expect(sent.body).toMatchObject({ client_id: 'c', client_secret: 's' });
  });

  it("leaves the provider's refusal to the caller (a wrong verifier is invalid_grant)", async () => {
    const { exchange, p, ctx, as, client } = setup();
    const error = await exchange
      .exchangeCode(
        ctx,
        p,
        as,
        client,
        validated(as, client, await code(o.generateRandomCodeVerifier())),
        { code_verifier: o.generateRandomCodeVerifier() },
        undefined,
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(o.ResponseBodyError);
    expect((error as o.ResponseBodyError).error).toBe('invalid_grant');
  });

  it('needs a token endpoint', async () => {
    const { exchange, p, ctx, client } = setup();
    await expect(
      exchange.exchangeCode(
        ctx,
        p,
        { issuer: 'https://issuer.invalid' },
        client,
        new URLSearchParams({ code: 'x' }),
        {},
        undefined,
      ),
    ).rejects.toThrow(InvalidEndpoints);
  });

  it('signs a client assertion with private_key_jwt', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const jwk = { ...(await exportJWK(privateKey)), kid: 'client-key', alg: 'ES256' };
    opAnswer = async () => ({ body: { access_token: 'at', token_type: 'bearer' } });
    const { exchange, p, ctx, client } = setup({
      token: { url: `${op.url}/token`, clientPrivateKey: jwk },
      client: { token_endpoint_auth_method: 'private_key_jwt' },
    });
    const as = { issuer: op.url, token_endpoint: `${op.url}/token` };
    await exchange.exchangeCode(ctx, p, as, client, validated(as, client, 'x'), {}, undefined);
    const body = new URLSearchParams(op.received.at(-1)!.body);
    expect(body.get('client_assertion_type')).toBe('urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
    expect(JSON.parse(Buffer.from(body.get('client_assertion')!.split('.')[0], 'base64url').toString())).toMatchObject({
      alg: 'ES256',
      kid: 'client-key',
    });
  });
});

describe('OAuthTokenExchange: custom requests and repaired responses', () => {
  it('validates the tokens a custom token.request returns, and needs { tokens }', async () => {
    const seen: Array<{ checks: unknown; params: unknown; callbackUrl: string }> = [];
    let result: unknown = { tokens: { access_token: 'custom', expires_at: 1e20 } };
    const request = (context: { checks: unknown; params: unknown; provider: { callbackUrl: string } }) => {
      seen.push({ checks: context.checks, params: context.params, callbackUrl: context.provider.callbackUrl });
      return result;
    };
    const { exchange, p, ctx, as, client } = setup({ issuer: 'https://as.example', token: { request } });
    const { tokens } = await exchange.exchangeCode(
      ctx,
      p,
      as,
      client,
      new URLSearchParams({ code: 'x' }),
      { state: 's' },
      undefined,
    );
    expect(tokens).toEqual({ access_token: 'custom', token_type: 'bearer' });
    expect(seen).toEqual([{ checks: { state: 's' }, params: { code: 'x' }, callbackUrl: REDIRECT }]);
    result = {};
    await expect(
      exchange.exchangeCode(ctx, p, as, client, new URLSearchParams({ code: 'x' }), {}, undefined),
    ).rejects.toThrow(new OAuthCallbackError('IdP: token.request() must return { tokens }.'));
  });

  it('lets token.conform repair the response before it is validated', async () => {
    opAnswer = async () => ({
      body: { data: { access_token: 'wrapped', token_type: 'bearer', expires_at: 1700000000 } },
    });
    const conform = async (response: Response) => Response.json(((await response.json()) as { data: unknown }).data);
    const { exchange, p, ctx, client } = setup({ token: { url: `${op.url}/token`, conform } });
    const as = { issuer: op.url, token_endpoint: `${op.url}/token` };
    const { tokens } = await exchange.exchangeCode(ctx, p, as, client, validated(as, client, 'x'), {}, undefined);
    expect(tokens).toMatchObject({ access_token: 'wrapped', expires_at: 1700000000 });
  });
});

describe('OAuthTokenExchange: ID tokens', () => {
  const idToken = (claims: Record<string, unknown>) =>
    new SignJWT({ sub: 'u1', ...claims })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(op.url)
      .setAudience('c')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(signingKey);

  function oidc() {
    const s = setup({
      type: 'oidc',
      issuer: op.url,
      authorization: `${op.url}/auth`,
      token: `${op.url}/token`,
      jwks_endpoint: `${op.url}/jwks`,
      userinfo: undefined,
    });
    return {
      ...s,
      as: { issuer: op.url, token_endpoint: `${op.url}/token`, jwks_uri: `${op.url}/jwks` } as o.AuthorizationServer,
    };
  }

  it('returns the validated claims of a signed ID token carrying the nonce', async () => {
    opAnswer = async () => ({
      body: { access_token: 'at', token_type: 'bearer', id_token: await idToken({ nonce: 'n1' }) },
    });
    const { exchange, p, ctx, as, client } = oidc();
    const { claims } = await exchange.exchangeCode(
      ctx,
      p,
      as,
      client,
      validated(as, client, 'x'),
      { nonce: 'n1' },
      undefined,
    );
    expect(claims).toMatchObject({ sub: 'u1', iss: op.url, aud: 'c', nonce: 'n1' });
  });

  it('refuses a wrong nonce, a token from another key, and a response without an ID token', async () => {
    const { exchange, p, ctx, as, client } = oidc();
    const run = () => exchange.exchangeCode(ctx, p, as, client, validated(as, client, 'x'), { nonce: 'n1' }, undefined);
    opAnswer = async () => ({
      body: { access_token: 'at', token_type: 'bearer', id_token: await idToken({ nonce: 'other' }) },
    });
    await expect(run()).rejects.toThrow(o.OperationProcessingError);
    const { privateKey } = await generateKeyPair('RS256');
    opAnswer = async () => ({
      body: {
        access_token: 'at',
        token_type: 'bearer',
        id_token: await new SignJWT({ sub: 'u1', nonce: 'n1' })
          .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
          .setIssuer(op.url)
          .setAudience('c')
          .setIssuedAt()
          .setExpirationTime('5m')
          .sign(privateKey),
      },
    });
    await expect(run()).rejects.toThrow(new OAuthCallbackError("IdP's ID token signature is invalid."));
    opAnswer = async () => ({ body: { access_token: 'at', token_type: 'bearer' } });
    await expect(run()).rejects.toThrow(/id_token/);
  });
});

describe('importPrivateKey', () => {
  it('imports a private JWK with its alg and kid, and passes keys through', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const jwk = { ...(await exportJWK(privateKey)), kid: 'k', alg: 'ES256' } as JWK & { d: string };
    const imported = (await importPrivateKey(jwk, 'IdP')) as o.PrivateKey;
    expect(imported.kid).toBe('k');
    expect(imported.key.type).toBe('private');
    expect(await importPrivateKey(privateKey, 'IdP')).toBe(privateKey);
  });

  it('refuses a missing key and a JWK without alg', async () => {
    await expect(importPrivateKey(undefined, 'IdP')).rejects.toThrow(
      new InvalidEndpoints('IdP: private_key_jwt needs `token.clientPrivateKey`.'),
    );
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const noAlg = { ...(await exportJWK(privateKey)) } as JWK & { d: string };
    await expect(importPrivateKey(noAlg, 'IdP')).rejects.toThrow(
      new InvalidEndpoints('IdP: the private JWK needs an `alg`.'),
    );
  });
});
