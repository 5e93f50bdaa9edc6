import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { MemoryAdapter } from '../../adapters/memory.adapter.js';
import { AuthModule } from '../../auth.module.js';
import { AUTH_CONFIG } from '../../config/auth.constants.js';
import type { AuthModuleExtras, AuthModuleOptions } from '../../config/auth-options.interface.js';
import type { ResolvedAuthConfig } from '../../config/resolved-config.js';
import type { ProviderContext } from '../../core/request-context.js';
import { SessionIssuer } from '../../session/session-issuer.js';
import type { AuthRequest } from '../../types/http.types.js';
import { TestClient } from '../../../test/setup/http-client.js';
import { followToApp, startOidcProvider, type TestOidcProvider } from '../../../test/setup/oidc-provider.js';
import { OAuthCallback } from './oauth-callback.js';
import { OAuthService } from './oauth.service.js';
import { APP_ORIGIN, FIXTURE_SECRET, jar, normalized, providerContext } from './fixtures/oauth.fixture.js';

// The explicit link flow at the OAuth layer, against a real OpenID Provider: the user sealed in the
// check cookies at `POST /link/:provider` is the only one the callback may link to, and nobody is
// ever signed in by it.

let op: TestOidcProvider;
let seq = 0;
beforeAll(async () => {
  op = await startOidcProvider();
});
afterAll(() => op.close());

const OP_USER = { sub: 'user-1', email: 'ada@example.com', name: 'Ada Lovelace', email_verified: true };
const IDP = { provider: 'idp', providerAccountId: 'user-1' };

describe('the link flow (OAuthService.link, then OAuthCallback)', () => {
  let module: TestingModule;
  let config: ResolvedAuthConfig;
  let adapter: MemoryAdapter;
  let linked: string[];
  let signIns: number;
  let allow = true;

  beforeAll(async () => {
    const providers = [];
    for (const id of ['idp', 'idp2']) {
      const clientId = `link-${++seq}`;
      await op.addClient({
        client_id: clientId,
        client_secret: `${clientId}-secret`,
        redirect_uris: [`${APP_ORIGIN}/auth/callback/${id}`],
      });
      providers.push({
        id,
        name: id.toUpperCase(),
        type: 'oidc',
        issuer: op.issuer,
        clientId,
        clientSecret: `${clientId}-secret`,
        checks: ['pkce', 'state', 'nonce'],
      });
    }
    adapter = new MemoryAdapter();
    module = await Test.createTestingModule({
      imports: [
        AuthModule.forRoot({
          secret: FIXTURE_SECRET,
          providers,
          adapter,
          callbacks: { signIn: () => allow },
          events: {
            linkAccount: (m) => void linked.push(`${m.user.id}:${m.account.provider}:${m.account.providerAccountId}`),
            signIn: () => void signIns++,
          },
        } as AuthModuleOptions & AuthModuleExtras),
      ],
    }).compile();
    config = module.get<ResolvedAuthConfig>(AUTH_CONFIG);
  });
  afterAll(() => module.close());

  beforeEach(() => {
    linked = [];
    signIns = 0;
    allow = true;
    op.signInAs(OP_USER);
  });

  let users = 0;
  /** A stored user and the cookie jar of a browser signed in as them (a database session). */
  async function signedIn(): Promise<{ id: string; cookies: Record<string, string> }> {
    const id = `local-${++users}`;
    await adapter.createUser({ id, email: `${id}@example.com`, emailVerified: new Date() });
    const cookies = await module.get(SessionIssuer).create(providerContext(config, 'idp'), { id }, {});
    return { id, cookies: jar(cookies) };
  }

  /** Starts a link as the browser `cookies` is signed in as, and returns the OP's answer (with the check cookies). */
  async function startLink(cookies: Record<string, string>, provider = 'idp'): Promise<Partial<AuthRequest>> {
    const start = providerContext(config, provider, { method: 'POST', cookies });
    const { redirect } = await module.get(OAuthService).link(start);
    const browser = new TestClient(op.issuer);
    const back = await followToApp(browser, await browser.get(redirect!), APP_ORIGIN);
    return {
      method: back.method,
      query: Object.fromEntries(back.url.searchParams),
      body: back.body ?? {},
      cookies: jar(start.responseCookies),
    };
  }

  const callback = (ctx: ProviderContext, provider = 'idp') =>
    module.get(OAuthCallback).complete(ctx, normalized(config, provider));
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error('expected a refusal');
      },
      (error: { type?: string }) => error.type,
    );

  it('links the provider account to the user who started the link, and signs nobody in', async () => {
    const x = await signedIn();
    const back = await startLink(x.cookies);
    const ctx = providerContext(config, 'idp', { ...back, cookies: { ...back.cookies, ...x.cookies } });
    const response = await callback(ctx);
    expect(response.redirect).toBe(ctx.callbackUrl);
    // No session cookie is set: the browser stays signed in as X with the session it had.
    expect((response.cookies ?? []).some((c) => c.name.includes('session-token'))).toBe(false);
    expect(await adapter.getUserByAccount(IDP)).toMatchObject({ id: x.id });
    expect(linked).toEqual([`${x.id}:idp:user-1`]);
    expect(signIns).toBe(0);
  });

  it('links to X only: at a callback signed in as another user it refuses and writes nothing', async () => {
    const x = await signedIn();
    const y = await signedIn();
    op.signInAs({ ...OP_USER, sub: 'switch-1' });
    const back = await startLink(x.cookies);
    const ctx = providerContext(config, 'idp', { ...back, cookies: { ...back.cookies, ...y.cookies } });
    expect(await failure(callback(ctx))).toBe('AccessDenied');
    expect(await adapter.getUserByAccount({ provider: 'idp', providerAccountId: 'switch-1' })).toBeNull();
    expect(await adapter.listAccountsByUserId(y.id)).toEqual([]);
    expect(linked).toEqual([]);
  });

  it('refuses a callback whose browser is no longer signed in (SessionRequired), writing nothing', async () => {
    const x = await signedIn();
    op.signInAs({ ...OP_USER, sub: 'gone-1' });
    const back = await startLink(x.cookies);
    expect(await failure(callback(providerContext(config, 'idp', back)))).toBe('SessionRequired');
    expect(await adapter.getUserByAccount({ provider: 'idp', providerAccountId: 'gone-1' })).toBeNull();
  });

  it('refuses a provider account linked to another user (AccountAlreadyLinked) and changes nothing', async () => {
    const owner = await signedIn();
    const x = await signedIn();
    op.signInAs({ ...OP_USER, sub: 'taken-1' });
    await adapter.linkAccount({ provider: 'idp', providerAccountId: 'taken-1', type: 'oidc', userId: owner.id });
    const back = await startLink(x.cookies);
    const ctx = providerContext(config, 'idp', { ...back, cookies: { ...back.cookies, ...x.cookies } });
    expect(await failure(callback(ctx))).toBe('AccountAlreadyLinked');
    expect(await adapter.getUserByAccount({ provider: 'idp', providerAccountId: 'taken-1' })).toMatchObject({
      id: owner.id,
    });
    expect(await adapter.listAccountsByUserId(x.id)).toEqual([]);
    expect(linked).toEqual([]);
  });

  it('runs the signIn callback: false refuses the link (AccessDenied), writing nothing', async () => {
    const x = await signedIn();
    op.signInAs({ ...OP_USER, sub: 'vetoed-1' });
    const back = await startLink(x.cookies);
    allow = false;
    const ctx = providerContext(config, 'idp', { ...back, cookies: { ...back.cookies, ...x.cookies } });
    expect(await failure(callback(ctx))).toBe('AccessDenied');
    expect(await adapter.getUserByAccount({ provider: 'idp', providerAccountId: 'vetoed-1' })).toBeNull();
    expect(linked).toEqual([]);
  });

  it('succeeds idempotently when the account is already linked to X (no second row, no event)', async () => {
    const x = await signedIn();
    op.signInAs({ ...OP_USER, sub: 'twice-1' });
    for (const expected of [[`${x.id}:idp:twice-1`], []]) {
      linked = [];
      const back = await startLink(x.cookies);
      const ctx = providerContext(config, 'idp', { ...back, cookies: { ...back.cookies, ...x.cookies } });
      expect((await callback(ctx)).redirect).toBe(ctx.callbackUrl);
      expect(linked).toEqual(expected);
    }
    expect(await adapter.listAccountsByUserId(x.id)).toHaveLength(1);
  });

  it('refuses a callback without the link cookies (InvalidCheck)', async () => {
    const x = await signedIn();
    op.signInAs({ ...OP_USER, sub: 'nocookie-1' });
    const back = await startLink(x.cookies);
    const ctx = providerContext(config, 'idp', { ...back, cookies: x.cookies });
    expect(await failure(callback(ctx))).toBe('InvalidCheck');
    expect(await adapter.getUserByAccount({ provider: 'idp', providerAccountId: 'nocookie-1' })).toBeNull();
  });

  it("refuses another provider's link cookies at this provider's callback (InvalidCheck)", async () => {
    const x = await signedIn();
    op.signInAs({ ...OP_USER, sub: 'other-1' });
    const forIdp2 = await startLink(x.cookies, 'idp2');
    const ctx = providerContext(config, 'idp', { ...forIdp2, cookies: { ...forIdp2.cookies, ...x.cookies } });
    expect(await failure(callback(ctx))).toBe('InvalidCheck');
    expect(await adapter.listAccountsByUserId(x.id)).toEqual([]);
  });

  it('refuses check cookies mixed from a link and a sign-in (InvalidCheck)', async () => {
    const x = await signedIn();
    const back = await startLink(x.cookies);
    const signIn = providerContext(config, 'idp', { method: 'POST' });
    await module.get(OAuthService).signIn(signIn);
    const signInState = jar(signIn.responseCookies.filter((c) => c.name.includes('state')));
    const ctx = providerContext(config, 'idp', {
      ...back,
      cookies: { ...back.cookies, ...signInState, ...x.cookies },
    });
    await expect(callback(ctx)).rejects.toThrow(/different flows/);
  });

  it('refuses to start a link without a session (SessionRequired), before going to the provider', async () => {
    const start = providerContext(config, 'idp', { method: 'POST' });
    expect(await failure(module.get(OAuthService).link(start))).toBe('SessionRequired');
    expect(start.responseCookies).toEqual([]);
  });
});
