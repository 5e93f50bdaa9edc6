import { beforeEach, describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { TEST_SECRET } from '../../test/setup/app.js';
import { MemoryAdapter } from '../adapters/memory.adapter.js';
import { AuthModule } from '../auth.module.js';
import type { AuthModuleExtras, AuthModuleOptions } from '../config/auth-options.interface.js';
import { encode } from '../session/jwt.js';
import { SIGNED_IN_AT_CLAIM } from '../session/recent-sign-in.js';
import { AuthService } from './auth.service.js';
import type { SensitiveActionProof } from './sensitive-action.js';

// unlinkAccount and deleteAccount carry the recent sign-in check themselves (step-up): the acting
// request must be signed in as that user, recently; trusted code says `{ recentSignIn: false }`.

const COOKIE = 'authjs.session-token';
const A = { provider: 'idp', providerAccountId: 'a' };
const B = { provider: 'idp', providerAccountId: 'b' };

/** An Express-like request whose JWT session is `sub`'s, signed in `agoSeconds` ago (no claim for `null`). */
async function requestOf(sub: string, agoSeconds: number | null) {
  const token = await encode({
    token: {
      sub,
      ...(agoSeconds === null ? {} : { [SIGNED_IN_AT_CLAIM]: Math.floor(Date.now() / 1000) - agoSeconds }),
    },
    secret: TEST_SECRET,
    salt: COOKIE,
  });
  return { headers: { cookie: `${COOKIE}=${token}` } };
}

describe('AuthService: unlinkAccount and deleteAccount need a recent sign-in as that user', () => {
  let auth: AuthService;
  let adapter: MemoryAdapter;
  beforeEach(async () => {
    adapter = new MemoryAdapter();
    const moduleRef = await Test.createTestingModule({
      imports: [
        AuthModule.forRoot({
          secret: TEST_SECRET,
          providers: [
            {
              id: 'idp',
              name: 'IdP',
              type: 'oauth',
              clientId: 'c',
              clientSecret: 's',
              authorization: 'https://idp.example/authorize',
              token: 'https://idp.example/token',
              userinfo: 'https://idp.example/userinfo',
            },
          ],
          adapter,
          session: { strategy: 'jwt' },
          account: { recentSignInMaxAge: 300 },
        } as AuthModuleOptions & AuthModuleExtras),
      ],
    }).compile();
    auth = moduleRef.get(AuthService);
    await adapter.createUser({ id: 'u1', email: 'u1@example.test', emailVerified: null });
    for (const key of [A, B]) await adapter.linkAccount({ ...key, type: 'oauth', userId: 'u1' });
  });

  const typeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'done',
      (error: { type?: string }) => error.type,
    );

  it.each<[string, string, () => Promise<SensitiveActionProof | undefined>]>([
    ['a sign-in 10 s ago', 'done', async () => ({ request: await requestOf('u1', 10) })],
    ['trusted code ({ recentSignIn: false })', 'done', async () => ({ recentSignIn: false })],
    ['a sign-in an hour ago', 'ReauthenticationRequired', async () => ({ request: await requestOf('u1', 3600) })],
    [
      'a sign-in 100 s ago with maxAge 60',
      'ReauthenticationRequired',
      async () => ({ request: await requestOf('u1', 100), maxAge: 60 }),
    ],
    [
      'a session that does not say when',
      'ReauthenticationRequired',
      async () => ({ request: await requestOf('u1', null) }),
    ],
    ['no session', 'ReauthenticationRequired', async () => ({ request: { headers: {} } })],
    ["another user's recent session", 'InvalidRequest', async () => ({ request: await requestOf('u2', 10) })],
    ['no proof at all', 'InvalidRequest', async () => undefined],
  ])('unlinkAccount with %s: %s', async (_label, outcome, proof) => {
    expect(await typeOf(auth.unlinkAccount('u1', A, (await proof()) as SensitiveActionProof))).toBe(outcome);
    expect(await adapter.getUserByAccount(A)).toEqual(
      outcome === 'done' ? null : expect.objectContaining({ id: 'u1' }),
    );
  });

  it('deleteAccount is refused without a recent sign-in (nothing deleted), done with one', async () => {
    expect(await typeOf(auth.deleteAccount('u1', { request: await requestOf('u1', 3600) }))).toBe(
      'ReauthenticationRequired',
    );
    expect(await typeOf(auth.deleteAccount('u1', { request: await requestOf('u2', 1) }))).toBe('InvalidRequest');
    expect(await adapter.getUser('u1')).not.toBeNull();
    await auth.deleteAccount('u1', { request: await requestOf('u1', 1) });
    expect(await adapter.getUser('u1')).toBeNull();
    expect(await adapter.getUserByAccount(B)).toBeNull();
  });

  it('the deprecated one-argument unlinkAccount(account) still removes the account', async () => {
    await auth.unlinkAccount(B);
    expect(await adapter.getUserByAccount(B)).toBeNull();
  });
});
