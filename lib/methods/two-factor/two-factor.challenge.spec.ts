import { describe, expect, it } from '@jest/globals';
import { AUTH_SERVICES } from '../../auth.providers.js';
import { MemoryRateLimitStore } from '../../rate-limit/memory-rate-limit.store.js';
import { AuthRouterService } from '../../router/auth-router.service.js';
import { applyCookies, createAuthTestbed } from '../../sign-in/fixtures/auth-testbed.fixture.js';
import { Credentials } from '../credentials/credentials.provider.js';
import { totpCode } from './totp.js';
import { PendingSignIns } from './two-factor.pending.js';
import { TwoFactors } from './two-factors.service.js';

const USER = 'user-1';
const MAX_ATTEMPTS = 3;
const WINDOW = 900;

/** A user with an app, held after a password in a browser (`jar`), on a testbed whose clock we move. */
async function held() {
  let clock = Date.parse('2026-11-27T12:00:00Z');
  const bed = await createAuthTestbed(
    {
      providers: [Credentials({ credentials: { password: {} }, authorize: () => null })],
      twoFactor: { maxAttempts: MAX_ATTEMPTS, lockoutWindow: WINDOW },
      rateLimitStore: new MemoryRateLimitStore({ now: () => clock }),
    },
    AUTH_SERVICES,
  );
  await bed.adapter!.createUser({ id: USER, email: 'u@example.test', emailVerified: null });
  const factors = bed.get(TwoFactors);
  const started = await factors.startTotp(USER, 'u@example.test', 'http://127.0.0.1:3000');
  await factors.confirmTotp(USER, started.id, await totpCode(started.secret));
  const router = bed.get(AuthRouterService);
  const csrf = await router.handle(bed.request('GET', '/csrf'), 'csrf');
  let jar = applyCookies({}, csrf.cookies);
  const ctx = bed.providerContext(bed.request('POST', '/callback/credentials', { cookies: jar }), 'credentials');
  await bed.get(PendingSignIns).seal(ctx, {
    userId: USER,
    account: { provider: 'credentials', providerAccountId: USER, type: 'credentials' },
    isNewUser: false,
    amr: ['pwd'],
    callbackUrl: 'http://127.0.0.1:3000/',
    until: Date.now() + 300_000,
  });
  jar = applyCookies(jar, ctx.responseCookies);
  const csrfToken = (csrf.json as { csrfToken: string }).csrfToken;
  const answer = (code: string) =>
    router.handle(
      bed.request('POST', '/two-factor', { cookies: jar, body: { csrfToken, method: 'totp', code } }),
      'two-factor',
    );
  return { answer, secret: started.secret, advance: (s: number) => void (clock += s * 1000) };
}

describe('the second factor lockout (injected clock)', () => {
  it('locks a user out after maxAttempts wrong codes, the right one included, until the window ends', async () => {
    const { answer, secret, advance } = await held();
    // A code from an hour ago: the right app, the wrong time.
    const wrong = await totpCode(secret, { now: Date.now() - 3_600_000 });
    for (let i = 0; i < MAX_ATTEMPTS; i++) expect((await answer(wrong)).status).toBe(400);
    const locked = await answer(await totpCode(secret, { now: Date.now() + 30_000 }));
    expect(locked.status).toBe(429);
    expect(Number(locked.headers?.['Retry-After'])).toBe(WINDOW);
    expect(locked.cookies?.some((c) => c.name === 'authjs.session-token')).not.toBe(true);

    advance(WINDOW - 1);
    expect((await answer(await totpCode(secret, { now: Date.now() + 30_000 }))).status).toBe(429);
    advance(1);
    const done = await answer(await totpCode(secret, { now: Date.now() + 30_000 }));
    expect(done.redirect).toBe('http://127.0.0.1:3000/');
    expect(done.cookies?.some((c) => c.name === 'authjs.session-token' && c.value)).toBe(true);
  });
});
