import { describe, expect, it } from '@jest/globals';
import { MemoryAdapter } from '../../adapters/memory.adapter.js';
import { AUTH_SERVICES } from '../../auth.providers.js';
import { CallbackRouteError, CredentialsSignin, InvalidRequest, RateLimited } from '../../errors/auth.errors.js';
import { MemoryRateLimitStore } from '../../rate-limit/memory-rate-limit.store.js';
import { Credentials, type CredentialsUserConfig } from './credentials.provider.js';
import {
  createAuthTestbed,
  rejectionOf,
  type AuthTestbed,
  type TestbedOptions,
} from '../../sign-in/fixtures/auth-testbed.fixture.js';
import type { User } from '../../types/common.types.js';
import { CredentialsService } from './credentials.service.js';

const FIELDS = { email: { label: 'Email', type: 'email' }, password: { label: 'Password', type: 'password' } } as const;

/** A code the sign-in page may show. */
class WrongOtp extends CredentialsSignin {
  override code = 'wrong_otp';
}

interface Setup {
  authorize?: CredentialsUserConfig['authorize'];
  provider?: Partial<CredentialsUserConfig>;
  options?: Partial<TestbedOptions>;
  adapter?: MemoryAdapter | null;
}

/** A testbed with one credentials provider; `calls` records what `authorize` received. */
async function credentialsTestbed({ authorize, provider = {}, options = {}, adapter }: Setup = {}) {
  const calls: Array<{ credentials: Record<string, unknown>; request: Request }> = [];
  const logged: Error[] = [];
  const bed = await createAuthTestbed(
    {
      providers: [
        Credentials({
          credentials: FIELDS,
          authorize: async (credentials, request) => {
            calls.push({ credentials, request });
            return authorize ? authorize(credentials, request) : { id: 'user-1', email: String(credentials.email) };
          },
          ...provider,
        }),
      ],
      logger: { error: (e) => void logged.push(e) },
      ...options,
    },
    AUTH_SERVICES,
    adapter,
  );
  return { bed, calls, logged, flow: bed.get(CredentialsService) };
}

function submit(bed: AuthTestbed, flow: CredentialsService, body: Record<string, unknown>, ip?: string) {
  return flow.callback(bed.providerContext(bed.request('POST', '/callback/credentials', { body, ip }), 'credentials'));
}

const GOOD = { email: 'ada@example.com', password: 'correct horse' };

describe('CredentialsService', () => {
  it('passes only the declared fields to authorize, with the request', async () => {
    const { bed, flow, calls } = await credentialsTestbed();
    await submit(bed, flow, { ...GOOD, csrfToken: 'x', isAdmin: 'true' });
    expect(calls[0]!.credentials).toEqual(GOOD);
    expect(calls[0]!.request.url).toBe('http://127.0.0.1:3000/auth/callback/credentials');
  });

  it('refuses with CredentialsSignin (code "credentials") when authorize returns null, and stores nothing', async () => {
    const { bed, flow } = await credentialsTestbed({ authorize: async () => null });
    const error = await rejectionOf(submit(bed, flow, GOOD));
    expect(error).toBeInstanceOf(CredentialsSignin);
    expect((error as CredentialsSignin).code).toBe('credentials');
    expect(await bed.adapter!.getUserByAccount({ provider: 'credentials', providerAccountId: 'user-1' })).toBeNull();
  });

  it('turns a thrown error into a generic CredentialsSignin and logs its message, never the credentials', async () => {
    const { bed, flow, logged } = await credentialsTestbed({
      authorize: async () => {
        throw new Error('database unreachable');
      },
    });
    const error = await rejectionOf(submit(bed, flow, GOOD));
    expect(error).toBeInstanceOf(CredentialsSignin);
    expect((error as CredentialsSignin).code).toBe('credentials');
    expect(logged.map((e) => e.message).join('\n')).toContain('database unreachable');
    expect(logged.map((e) => e.message).join('\n')).not.toContain(GOOD.password);
  });

  it('keeps the code of a thrown CredentialsSignin subclass, and drops an oversized one', async () => {
    let code = 'wrong_otp';
    const { bed, flow } = await credentialsTestbed({
      authorize: async () => {
        const error = new WrongOtp();
        error.code = code;
        throw error;
      },
    });
    expect(((await rejectionOf(submit(bed, flow, GOOD))) as CredentialsSignin).code).toBe('wrong_otp');
    code = 'x'.repeat(65);
    expect(((await rejectionOf(submit(bed, flow, GOOD))) as CredentialsSignin).code).toBe('credentials');
  });

  it.each([
    ['a repeated field', { ...GOOD, password: ['a', 'b'] }],
    ['an object', { ...GOOD, email: { $ne: '' } }],
    ['an oversized value', { ...GOOD, password: 'p'.repeat(1025) }],
  ])('refuses %s with InvalidRequest before authorize runs', async (_label, body) => {
    const { bed, flow, calls } = await credentialsTestbed();
    expect(await rejectionOf(submit(bed, flow, body))).toBeInstanceOf(InvalidRequest);
    expect(calls).toEqual([]);
  });

  it('with database sessions stores the user under the id authorize returned, links the account and starts a stored session', async () => {
    const { bed, flow } = await credentialsTestbed({ options: { session: { strategy: 'database' } } });
    const response = await submit(bed, flow, GOOD);
    expect(response.redirect).toBe('http://127.0.0.1:3000/');
    const token = response.cookies!.find((c) => c.name === 'authjs.session-token')!.value;
    expect(await bed.adapter!.getSessionAndUser(token)).toMatchObject({ user: { id: 'user-1', email: GOOD.email } });
    expect(await bed.adapter!.getUserByAccount({ provider: 'credentials', providerAccountId: 'user-1' })).toMatchObject(
      { id: 'user-1' },
    );
  });

  it('with database sessions refuses a user without an id', async () => {
    const { bed, flow } = await credentialsTestbed({
      authorize: async () => ({ email: 'a@example.com' }) as User,
      options: { session: { strategy: 'database' } },
    });
    expect(await rejectionOf(submit(bed, flow, GOOD))).toBeInstanceOf(CallbackRouteError);
  });

  it('with JWT sessions stores nothing and sets a JWT, even with an adapter', async () => {
    const { bed, flow } = await credentialsTestbed({ options: { session: { strategy: 'jwt' } } });
    const response = await submit(bed, flow, GOOD);
    const cookie = response.cookies!.find((c) => c.name === 'authjs.session-token')!;
    expect(cookie.value.split('.')).toHaveLength(5);
    expect(await bed.adapter!.getUser('user-1')).toBeNull();
    expect(await bed.adapter!.getSessionAndUser(cookie.value)).toBeNull();
  });

  it('without an adapter gives a user without an id a random one (JWT)', async () => {
    const { bed, flow } = await credentialsTestbed({
      authorize: async () => ({ name: 'Anon' }) as User,
      adapter: null,
    });
    const response = await submit(bed, flow, GOOD);
    expect(response.cookies!.some((c) => c.name === 'authjs.session-token')).toBe(true);
  });

  describe('lockout', () => {
    const provider = { lockout: { maxAttempts: 2, maxAttemptsPerIp: 4 } };

    it('refuses the identifier after maxAttempts failures, before authorize runs', async () => {
      const { bed, flow, calls } = await credentialsTestbed({ authorize: async () => null, provider });
      for (let i = 0; i < 2; i++) expect(await rejectionOf(submit(bed, flow, GOOD))).toBeInstanceOf(CredentialsSignin);
      // The identifier is normalised: case and spaces do not make a new one.
      const error = await rejectionOf(submit(bed, flow, { ...GOOD, email: ' ADA@example.com' }));
      expect(error).toBeInstanceOf(RateLimited);
      expect(calls).toHaveLength(2);
    });

    it('forgets the failures of an identifier on success', async () => {
      let accept = false;
      const { bed, flow } = await credentialsTestbed({
        authorize: async () => (accept ? { id: 'user-1' } : null),
        provider,
      });
      await rejectionOf(submit(bed, flow, GOOD));
      accept = true;
      await submit(bed, flow, GOOD);
      accept = false;
      for (let i = 0; i < 2; i++) expect(await rejectionOf(submit(bed, flow, GOOD))).toBeInstanceOf(CredentialsSignin);
    });

    it('counts failures per client IP across identifiers', async () => {
      const { bed, flow } = await credentialsTestbed({ authorize: async () => null, provider });
      for (let i = 0; i < 4; i++) await rejectionOf(submit(bed, flow, { ...GOOD, email: `u${i}@example.com` }));
      expect(await rejectionOf(submit(bed, flow, { ...GOOD, email: 'new@example.com' }))).toBeInstanceOf(RateLimited);
      expect(
        await rejectionOf(submit(bed, flow, { ...GOOD, email: 'new2@example.com' }, '198.51.100.1')),
      ).toBeInstanceOf(CredentialsSignin);
    });

    it('locks the identifier for exactly windowSeconds from the first failure (injected clock)', async () => {
      let now = 1_700_000_000_000;
      const store = new MemoryRateLimitStore({ now: () => now });
      const { bed, flow, calls } = await credentialsTestbed({
        authorize: async () => null,
        provider: { lockout: { maxAttempts: 2, maxAttemptsPerIp: 100, windowSeconds: 60 } },
        options: { rateLimitStore: store },
      });
      for (let i = 0; i < 2; i++) expect(await rejectionOf(submit(bed, flow, GOOD))).toBeInstanceOf(CredentialsSignin);
      now += 20_000;
      expect(await rejectionOf(submit(bed, flow, GOOD))).toEqual(new RateLimited(40));
      now += 39_999;
      expect(await rejectionOf(submit(bed, flow, GOOD))).toEqual(new RateLimited(1));
      expect(calls).toHaveLength(2);
      // The window opened at the first failure ends 60 s after it, to the millisecond.
      now += 1;
      expect(await rejectionOf(submit(bed, flow, GOOD))).toBeInstanceOf(CredentialsSignin);
      expect(calls).toHaveLength(3);
    });

    it('is off with lockout: false', async () => {
      const { bed, flow } = await credentialsTestbed({ authorize: async () => null, provider: { lockout: false } });
      for (let i = 0; i < 8; i++) expect(await rejectionOf(submit(bed, flow, GOOD))).toBeInstanceOf(CredentialsSignin);
    });
  });
});
