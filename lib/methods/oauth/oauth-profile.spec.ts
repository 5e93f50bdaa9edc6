import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type * as o from 'oauth4webapi';
import { InvalidEndpoints, OAuthCallbackError, OAuthProfileParseError } from '../../errors/auth.errors.js';
import type { Profile, TokenSet } from '../../types/common.types.js';
import { mapProfile, readProfile } from './oauth-profile.js';
import {
  normalized,
  oauthConfig,
  providerContext,
  startServer,
  type Answer,
  type TestServer,
} from './fixtures/oauth.fixture.js';

let server: TestServer;
let answer: Answer = { body: {} };
const tokens: TokenSet = { access_token: 'the-access-token', token_type: 'bearer' };
const client: o.Client = { client_id: 'c' };

beforeAll(async () => {
  server = await startServer(() => answer);
});
afterAll(() => server.close());

/** A provider `idp` (OAuth 2.0 with the test server's userinfo unless `extra` says otherwise). */
function setup(extra: Record<string, unknown> = {}) {
  const config = oauthConfig({
    providers: [
      {
        id: 'idp',
        name: 'IdP',
        type: 'oauth',
        authorization: 'https://as.example/a',
        token: 'https://as.example/t',
        userinfo: `${server.url}/user`,
        clientId: 'c',
        clientSecret: 's',
        ...extra,
      } as never,
    ],
  });
  const as: o.AuthorizationServer = {
    issuer: 'https://as.example',
    userinfo_endpoint: `${server.url}/discovered-user`,
  };
  return { ctx: providerContext(config, 'idp'), p: normalized(config, 'idp'), as };
}

describe('readProfile', () => {
  it('OIDC: a copy of the ID token claims, without any request, when they have email and name', async () => {
    const { ctx, p, as } = setup({ type: 'oidc', issuer: 'https://op.example', userinfo: undefined });
    const claims = {
      sub: 'u1',
      iss: 'https://op.example',
      aud: 'c',
      iat: 1,
      exp: 2,
      email: 'ada@example.com',
      name: 'Ada',
    } as o.IDToken;
    const before = server.received.length;
    const profile = await readProfile(ctx, p, as, client, tokens, claims);
    expect(profile).toEqual(claims);
    expect(profile).not.toBe(claims);
    expect(server.received.length).toBe(before);
  });

  it('OIDC: an ID token without email or name is completed from userinfo (its own claims win)', async () => {
    const { ctx, p, as } = setup({ type: 'oidc', issuer: 'https://op.example', userinfo: undefined });
    const claims = { sub: 'u1', iss: 'https://op.example', aud: 'c', iat: 1, exp: 2, name: 'From ID token' };
    answer = { body: { sub: 'u1', email: 'ada@example.com', email_verified: true, name: 'From userinfo' } };
    const said: unknown[] = [];
    const profile = await readProfile(ctx, p, as, client, tokens, claims as o.IDToken, (...args) => said.push(args));
    expect(profile).toEqual({ ...claims, email: 'ada@example.com', email_verified: true });
    const request = server.received.at(-1)!;
    expect(request.url.pathname).toBe('/discovered-user');
    expect(request.headers.authorization).toBe('Bearer the-access-token');
    expect(said).toEqual([]);
  });

  it('OIDC: says why the claims stay missing (no endpoint, userinfo failing or without them), never failing', async () => {
    const { ctx, p, as } = setup({ type: 'oidc', issuer: 'https://op.example', userinfo: undefined });
    const claims = { sub: 'u1', iss: 'https://op.example', aud: 'c', iat: 1, exp: 2 } as o.IDToken;
    const said: Array<[string[], string]> = [];
    const read = (at: o.AuthorizationServer, t: TokenSet = tokens) =>
      readProfile(ctx, p, at, client, t, claims, (missing, why) => void said.push([missing, why]));
    const before = server.received.length;
    expect(await read({ issuer: 'https://op.example' })).toEqual(claims);
    expect(await read(as, { token_type: 'bearer' })).toEqual(claims);
    expect(server.received.length).toBe(before);
    answer = { status: 503, body: { error: 'temporarily_unavailable' } };
    expect(await read(as)).toEqual(claims);
    // Another user's userinfo is not merged (OIDC Core 5.3.2).
    answer = { body: { sub: 'someone-else', email: 'eve@example.com', name: 'Eve' } };
    expect(await read(as)).toEqual(claims);
    answer = { body: { sub: 'u1', name: 'Ada' } };
    expect(await read(as)).toEqual({ ...claims, name: 'Ada' });
    expect(said).toEqual([
      [['email', 'name'], 'the provider has no userinfo endpoint to ask'],
      [['email', 'name'], 'the token response has no access token to ask the userinfo endpoint with'],
      [['email', 'name'], expect.stringMatching(/^the userinfo endpoint could not be read \(.+\)$/)],
      [['email', 'name'], expect.stringMatching(/^the userinfo endpoint could not be read \(.*sub.*\)$/)],
      [['email'], 'the userinfo endpoint did not return them either'],
    ]);
  });

  it('OAuth 2.0: the userinfo JSON, fetched with the access token and the endpoint params', async () => {
    answer = { body: { id: 42, login: 'grace' } };
    const { ctx, p, as } = setup({ userinfo: { url: `${server.url}/user?fixed=1`, params: { fields: 'id,login' } } });
    expect(await readProfile(ctx, p, as, client, tokens, undefined)).toEqual({ id: 42, login: 'grace' });
    const request = server.received.at(-1)!;
    expect(request.url.pathname).toBe('/user');
    expect(Object.fromEntries(request.url.searchParams)).toEqual({ fixed: '1', fields: 'id,login' });
    expect(request.headers.authorization).toBe('Bearer the-access-token');
  });

  it('takes the discovered endpoint when none is configured', async () => {
    answer = { body: { id: 'd' } };
    const { ctx, p } = setup({ issuer: 'https://as.example', userinfo: { params: { x: '1' } } });
    const as: o.AuthorizationServer = {
      issuer: 'https://as.example',
      userinfo_endpoint: `${server.url}/discovered-user`,
    };
    expect(await readProfile(ctx, p, as, client, tokens, undefined)).toEqual({ id: 'd' });
    expect(server.received.at(-1)!.url.pathname).toBe('/discovered-user');
    await expect(readProfile(ctx, p, { issuer: 'https://as.example' }, client, tokens, undefined)).rejects.toThrow(
      InvalidEndpoints,
    );
  });

  it('refuses an error status or a body that is not a JSON object', async () => {
    const { ctx, p, as } = setup();
    answer = { status: 500, body: { error: 'server_error' } };
    await expect(readProfile(ctx, p, as, client, tokens, undefined)).rejects.toThrow(
      new OAuthCallbackError("IdP's userinfo endpoint answered 500."),
    );
    answer = { body: [1, 2] };
    await expect(readProfile(ctx, p, as, client, tokens, undefined)).rejects.toThrow(
      "IdP's userinfo endpoint returned no JSON object.",
    );
  });

  it('lets `userinfo.conform` repair the response before it is read', async () => {
    answer = { body: { data: { id: 7 } } };
    const conform = async (response: Response) => Response.json(((await response.json()) as { data: unknown }).data);
    const { ctx, p, as } = setup({ userinfo: { url: `${server.url}/user`, conform } });
    expect(await readProfile(ctx, p, as, client, tokens, undefined)).toEqual({ id: 7 });
  });

  it('OIDC without `idToken`: userinfo, whose `sub` must be the ID token’s', async () => {
    const { ctx, p, as } = setup({ type: 'oidc', issuer: 'https://op.example', idToken: false });
    const claims = { sub: 'u1', iss: 'https://op.example', aud: 'c', iat: 1, exp: 2 } as o.IDToken;
    answer = { body: { sub: 'u1', name: 'Ada' } };
    expect(await readProfile(ctx, p, as, client, tokens, claims)).toEqual({ sub: 'u1', name: 'Ada' });
    answer = { body: { sub: 'someone-else', name: 'Eve' } };
    await expect(readProfile(ctx, p, as, client, tokens, claims)).rejects.toThrow(/sub/);
  });

  it('calls a custom `userinfo.request` with the tokens and the provider, and needs a profile back', async () => {
    const calls: Array<{ tokens: TokenSet; callbackUrl: string }> = [];
    let result: unknown = { id: 'custom' };
    const request = (context: { tokens: TokenSet; provider: { callbackUrl: string } }) => {
      calls.push({ tokens: context.tokens, callbackUrl: context.provider.callbackUrl });
      return result;
    };
    const { ctx, p, as } = setup({ issuer: 'https://as.example', userinfo: { request } });
    expect(await readProfile(ctx, p, as, client, tokens, undefined)).toEqual({ id: 'custom' });
    expect(calls).toEqual([{ tokens, callbackUrl: ctx.providerCallbackUrl }]);
    result = null;
    await expect(readProfile(ctx, p, as, client, tokens, undefined)).rejects.toThrow(
      'IdP: userinfo.request() returned no profile.',
    );
  });
});

describe('mapProfile', () => {
  const params = new URLSearchParams({ code: 'c', user: '{"name":"Ada"}' });

  it('maps with the default profile() and account()', async () => {
    const { p } = setup();
    const mapped = await mapProfile(
      p,
      { id: 42, login: 'grace', name: 'Grace', email: 'g@example.com' } as Profile,
      { ...tokens, refresh_token: 'r', extra: 'x' },
      params,
    );
    expect(mapped.user).toEqual({ id: '42', name: 'Grace', email: 'g@example.com' });
    expect(mapped.stored).toEqual({ access_token: 'the-access-token', refresh_token: 'r', token_type: 'bearer' });
  });

  it('runs conformProfile() with the callback parameters before profile()', async () => {
    const conformProfile = (profile: Profile, context: { params: Record<string, string | undefined> }) => ({
      ...profile,
      name: (JSON.parse(context.params.user!) as { name: string }).name,
    });
    const { p } = setup({ conformProfile });
    const mapped = await mapProfile(p, { sub: 'u1' } as Profile, tokens, params);
    expect(mapped.profile).toEqual({ sub: 'u1', name: 'Ada' });
    expect(mapped.user).toEqual({ id: 'u1', name: 'Ada' });
  });

  it('refuses with OAuthProfileParseError when a mapping throws or profile() gives no id', async () => {
    const boom = () => {
      throw new Error('boom');
    };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ conformProfile: boom }, 'IdP: conformProfile() threw: boom'],
      [{ profile: boom }, 'IdP: profile() threw: boom'],
      [
        { profile: () => ({ id: '' }) },
        "IdP: profile() returned no `id`; return the user's id at the provider (e.g. the `sub` claim).",
      ],
      [
        { profile: () => null },
        "IdP: profile() returned no `id`; return the user's id at the provider (e.g. the `sub` claim).",
      ],
      [{ account: boom }, 'IdP: account() threw: boom'],
    ];
    for (const [extra, message] of cases) {
      const { p } = setup(extra);
      const error = await mapProfile(p, { id: 1 } as Profile, tokens, params).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OAuthProfileParseError);
      expect((error as Error).message).toBe(message);
    }
  });

  it('stores nothing of the tokens when account() returns nothing', async () => {
    const { p } = setup({ account: () => undefined });
    expect((await mapProfile(p, { id: 1 } as Profile, tokens, params)).stored).toEqual({});
  });
});
