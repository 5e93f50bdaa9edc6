import { describe, expect, it } from '@jest/globals';
import type { MemoryAdapter } from '../adapters/memory.adapter.js';
import { AUTH_SERVICES } from '../auth.providers.js';
import type { AuthModuleOptions } from '../config/auth-options.interface.js';
import { AccessDenied, AccountNotLinked, InvalidProvider } from '../errors/auth.errors.js';
import type { Account } from '../types/common.types.js';
import {
  applyCookies,
  createAuthTestbed,
  everyProvider,
  ORIGIN,
  rejectionOf,
} from './fixtures/auth-testbed.fixture.js';
import { SessionReader } from '../session/session-reader.js';
import { SignInRedirect } from './sign-in-callback.js';
import { SignInService } from './sign-in.service.js';

const GITHUB: Account = { provider: 'idp', providerAccountId: 'gh-42', type: 'oauth' };

async function signInTestbed(options: Partial<AuthModuleOptions> = {}, adapter?: MemoryAdapter | null) {
  const events: string[] = [];
  const record = (name: string) => () => void events.push(name);
  const bed = await createAuthTestbed(
    {
      providers: everyProvider(),
      events: {
        createUser: record('createUser'),
        linkAccount: record('linkAccount'),
        signIn: record('signIn'),
        updateUser: record('updateUser'),
      },
      ...options,
    },
    AUTH_SERVICES,
    adapter,
  );
  const service = bed.get(SignInService);
  const signIn = (account: Account, user = {}, cookies: Record<string, string> = {}, extra = {}) =>
    service.completeSignIn(
      bed.providerContext(bed.request('GET', `/callback/${account.provider}`, { cookies }), account.provider),
      { account, user, ...extra },
    );
  return { bed, events, signIn };
}

const flushEvents = () => new Promise((resolve) => setImmediate(resolve));

describe('SignInService', () => {
  it('creates the user, starts a session and announces createUser, linkAccount, signIn in that order', async () => {
    const { bed, events, signIn } = await signInTestbed();
    const response = await signIn(GITHUB, { email: 'new@example.com' });
    expect(response.redirect).toBe(`${ORIGIN}/`);
    const token = response.cookies!.find((c) => c.name === 'authjs.session-token')!.value;
    expect(await bed.adapter!.getSessionAndUser(token)).toMatchObject({ user: { email: 'new@example.com' } });
    await flushEvents();
    expect(events).toEqual(['createUser', 'linkAccount', 'signIn']);
  });

  it('sends a new user to pages.newUser with the callback URL, and a returning one to the callback URL', async () => {
    const { signIn } = await signInTestbed({ pages: { newUser: '/welcome' } });
    expect((await signIn(GITHUB)).redirect).toBe(`${ORIGIN}/welcome?callbackUrl=${encodeURIComponent(`${ORIGIN}/`)}`);
    expect((await signIn(GITHUB)).redirect).toBe(`${ORIGIN}/`);
  });

  it('ends the session the request came with (no fixation)', async () => {
    const { bed, signIn } = await signInTestbed();
    const first = await signIn(GITHUB);
    const old = first.cookies!.find((c) => c.name === 'authjs.session-token')!.value;
    await signIn(GITHUB, {}, applyCookies({}, first.cookies));
    expect(await bed.adapter!.getSessionAndUser(old)).toBeNull();
  });

  it('refuses an account without an id', async () => {
    const { signIn } = await signInTestbed();
    expect(await rejectionOf(signIn({ ...GITHUB, providerAccountId: '' }))).toBeInstanceOf(InvalidProvider);
  });

  it('deletes a user it created when afterUser throws', async () => {
    const { bed, signIn } = await signInTestbed();
    const afterUser = async () => {
      throw new AccountNotLinked('no');
    };
    expect(await rejectionOf(signIn(GITHUB, { email: 'new@example.com' }, {}, { afterUser }))).toBeInstanceOf(
      AccountNotLinked,
    );
    expect(await bed.adapter!.getUserByEmail('new@example.com')).toBeNull();
  });

  it("without an adapter signs the provider's user in as is, named by the account id", async () => {
    const { bed, signIn } = await signInTestbed({ providers: everyProvider().slice(0, 1) }, null);
    const response = await signIn(GITHUB, { name: 'Ada' });
    const cookies = applyCookies({}, response.cookies);
    const session = await bed.get(SessionReader).read({ cookies, secure: false });
    expect(session).toMatchObject({ status: 'active', user: { id: 'gh-42', name: 'Ada' } });
  });

  describe('the signIn callback', () => {
    it('sees the stored user of a known account, and refuses on false before anything is written', async () => {
      const seen: unknown[] = [];
      const refuse = ({ user }: { user: unknown }) => {
        seen.push(user);
        return false;
      };
      const { bed, signIn, events } = await signInTestbed({ callbacks: { signIn: refuse } });
      expect(await rejectionOf(signIn(GITHUB, { email: 'new@example.com' }))).toBeInstanceOf(AccessDenied);
      expect(seen).toEqual([{ email: 'new@example.com', id: 'gh-42' }]);
      expect(await bed.adapter!.getUserByEmail('new@example.com')).toBeNull();
      await flushEvents();
      expect(events).toEqual([]);
    });

    it('refuses when it throws, and lets an AuthError through', async () => {
      const thrown = { error: new Error('boom') as Error };
      const { signIn } = await signInTestbed({
        callbacks: {
          signIn: () => {
            throw thrown.error;
          },
        },
      });
      expect(await rejectionOf(signIn(GITHUB))).toBeInstanceOf(AccessDenied);
      thrown.error = new AccountNotLinked('mine');
      expect(await rejectionOf(signIn(GITHUB))).toBe(thrown.error);
    });

    it('redirects through the redirect callback when it returns a URL (off-site URLs land on the origin)', async () => {
      const { signIn } = await signInTestbed({
        callbacks: { signIn: ({ user }) => (user.name === 'local' ? '/blocked' : 'https://evil.example/') },
      });
      expect(((await rejectionOf(signIn(GITHUB, { name: 'local' }))) as SignInRedirect).url).toBe(`${ORIGIN}/blocked`);
      const offSite = await rejectionOf(signIn(GITHUB, { name: 'x' }));
      expect(offSite).toBeInstanceOf(SignInRedirect);
      expect((offSite as SignInRedirect).url).toBe(`${ORIGIN}/`);
    });
  });
});
