import { beforeEach, describe, expect, it } from '@jest/globals';
import type { AdapterAccount } from '../adapters/adapter.interface.js';
import type { MemoryAdapter } from '../adapters/memory.adapter.js';
import { AUTH_SERVICES } from '../auth.providers.js';
import { AdapterConflictError, OAuthAccountNotLinked } from '../errors/auth.errors.js';
import { createAuthTestbed, everyProvider, rejectionOf } from './fixtures/auth-testbed.fixture.js';
import { pickUser, toAdapterAccount, UserCreationService } from './user-creation.service.js';

const ACCOUNT: AdapterAccount = { provider: 'idp', providerAccountId: 'gh-42', type: 'oauth', userId: '' };

describe('UserCreationService', () => {
  let users: UserCreationService;
  let adapter: MemoryAdapter;
  beforeEach(async () => {
    const bed = await createAuthTestbed({ providers: everyProvider() }, AUTH_SERVICES);
    users = bed.get(UserCreationService);
    adapter = bed.adapter!;
  });

  it('creates the user (stored fields only, unverified) and links the account', async () => {
    const input = { account: ACCOUNT, user: { email: 'new@example.com', name: 'New', nickname: 'n' } as never };
    const resolved = await users.createUserWithAccount(input, ACCOUNT);
    expect(resolved).toMatchObject({
      isNewUser: true,
      created: true,
      linked: { provider: 'idp', userId: resolved.user.id },
    });
    expect(await adapter.getUserByAccount(ACCOUNT)).toEqual({
      id: resolved.user.id,
      email: 'new@example.com',
      name: 'New',
      image: null,
      emailVerified: null,
    });
  });

  it('loses a race for the account gracefully: the created user is deleted and the winner signs in', async () => {
    const winner = await adapter.createUser({ id: 'winner', email: 'w@example.com', emailVerified: null });
    await adapter.linkAccount({ ...ACCOUNT, userId: 'winner' });
    const resolved = await users.createUserWithAccount(
      { account: ACCOUNT, user: { email: 'loser@example.com' } },
      ACCOUNT,
    );
    expect(resolved).toEqual({ user: winner, isNewUser: false });
    expect(await adapter.getUserByEmail('loser@example.com')).toBeNull();
  });

  it('reports a failed creation that no winner explains', async () => {
    await adapter.createUser({ id: 'taken', email: 'taken@example.com', emailVerified: null });
    expect(
      await rejectionOf(
        users.createUserWithAccount({ account: ACCOUNT, user: { email: 'taken@example.com' } }, ACCOUNT),
      ),
    ).toBeInstanceOf(AdapterConflictError);
    expect(await adapter.getUserByAccount(ACCOUNT)).toBeNull();
  });

  it('accepts the same link made twice, and refuses a link to another user', async () => {
    await adapter.createUser({ id: 'a', email: null as never, emailVerified: null });
    await adapter.createUser({ id: 'b', email: null as never, emailVerified: null });
    await users.linkOrFindWinner({ ...ACCOUNT, userId: 'a' });
    await users.linkOrFindWinner({ ...ACCOUNT, userId: 'a' });
    expect(await rejectionOf(users.linkOrFindWinner({ ...ACCOUNT, userId: 'b' }))).toBeInstanceOf(
      OAuthAccountNotLinked,
    );
    expect(await adapter.getUserByAccount(ACCOUNT)).toMatchObject({ id: 'a' });
  });

  it('undoes a creation, quietly when the user is gone already', async () => {
    await adapter.createUser({ id: 'u', email: 'u@example.com', emailVerified: null });
    await users.undoCreate('u');
    expect(await adapter.getUser('u')).toBeNull();
    await expect(users.undoCreate('u')).resolves.toBeUndefined();
  });

  it('keeps only name, email and image of a profile, and replaces the userId of an account', () => {
    expect(pickUser({ id: 'x', email: 'e@example.com', role: 'admin' } as never)).toEqual({
      name: null,
      email: 'e@example.com',
      image: null,
    });
    expect(
      toAdapterAccount({ provider: 'idp', providerAccountId: '1', type: 'oauth', userId: 'old', id_token: 't' }, 'new'),
    ).toEqual({
      provider: 'idp',
      providerAccountId: '1',
      type: 'oauth',
      userId: 'new',
      id_token: 't',
    });
  });
});
