import { describe, expect, it } from '@jest/globals';
import { MemoryAdapter } from './memory.adapter.js';
import { runAdapterConformanceTests } from './testing/adapter-conformance.js';
import { AdapterConflictError, AdapterNotFoundError } from '../errors/auth.errors.js';
import type { AdapterApiKey, AdapterRefreshFamily, AdapterSigningKey } from './adapter.interface.js';

/** The adapter under test, whose store the raw hooks reach into. */
let memory: MemoryAdapter;
const refreshFamilies = () =>
  (memory as unknown as { refreshFamilies: Map<string, AdapterRefreshFamily> }).refreshFamilies;
const apiKeys = () => (memory as unknown as { apiKeys: Map<string, AdapterApiKey> }).apiKeys;
const signingKeys = () => (memory as unknown as { signingKeys: Map<string, AdapterSigningKey> }).signingKeys;

runAdapterConformanceTests({
  name: 'MemoryAdapter',
  adapter: () => (memory = new MemoryAdapter()),
  extensions: [
    'deleteSessionsByUserId',
    'deleteVerificationTokensByIdentifier',
    'listAccountsByUserId',
    'updateAccountTokens',
    'deleteUserCascade',
    'updateAuthenticatorName',
    'deleteAuthenticator',
    'listSessionsByUserId',
    'listSessionsByProviderSid',
    'twoFactor',
    'refreshFamily',
    'apiKey',
    'signingKey',
  ],
  db: {
    refreshFamily: (id) => refreshFamilies().get(id),
    corruptRefreshFamily: (id, field) => {
      const family = refreshFamilies().get(id)!;
      if (field === 'generation') family.generation = -1;
      else family.expires = new Date(Number.NaN);
    },
    apiKey: (id) => apiKeys().get(id),
    corruptApiKey: (id, field) => {
      const key = apiKeys().get(id)!;
      if (field === 'keyHash') key.keyHash = '';
      else if (field === 'scopes') key.scopes = ['read', '', 'write'];
      else key.expires = new Date(Number.NaN);
    },
    signingKey: (id) => signingKeys().get(id),
    corruptSigningKey: (id, field) => {
      const key = signingKeys().get(id)!;
      if (field === 'slot') key.slot = -1 - key.slot;
      else if (field === 'publicJwk') key.publicJwk = 'not json';
      else key.activatesAt = new Date(Number.NaN);
    },
  },
});

describe('MemoryAdapter', () => {
  it('refuses records that point to a user that does not exist', async () => {
    const adapter = new MemoryAdapter();
    const expires = new Date(Date.now() + 60_000);
    await expect(adapter.createSession({ sessionToken: 's', userId: 'nobody', expires })).rejects.toBeInstanceOf(
      AdapterNotFoundError,
    );
    await expect(
      adapter.linkAccount({ userId: 'nobody', type: 'oauth', provider: 'p', providerAccountId: '1' }),
    ).rejects.toBeInstanceOf(AdapterNotFoundError);
    await expect(adapter.updateUser({ id: 'nobody', name: 'x' })).rejects.toBeInstanceOf(AdapterNotFoundError);
  });

  it('reports the rule a refused write ran into, without the values', async () => {
    const adapter = new MemoryAdapter();
    await adapter.createUser({ id: 'u1', email: 'a@example.com', emailVerified: null });
    await adapter.createUser({ id: 'u2', email: 'b@example.com', emailVerified: null });
    const error = await adapter.updateUser({ id: 'u2', email: 'a@example.com' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AdapterConflictError);
    expect((error as AdapterConflictError).conflict).toBe('user.email');
    expect((error as Error).message).not.toContain('a@example.com');
    // The refused update changed nothing.
    expect((await adapter.getUser('u2'))?.email).toBe('b@example.com');
    expect((await adapter.getUserByEmail('a@example.com'))?.id).toBe('u1');
  });

  it('keeps the email index in step when a user changes email', async () => {
    const adapter = new MemoryAdapter();
    await adapter.createUser({ id: 'u1', email: 'old@example.com', emailVerified: null });
    await adapter.updateUser({ id: 'u1', email: 'new@example.com' });
    expect(await adapter.getUserByEmail('old@example.com')).toBeNull();
    expect((await adapter.getUserByEmail('new@example.com'))?.id).toBe('u1');
    await adapter.createUser({ id: 'u3', email: 'old@example.com', emailVerified: null });
  });

  it('does not let callers change the store through the objects they passed in', async () => {
    const adapter = new MemoryAdapter();
    const user = { id: 'u1', email: 'a@example.com', emailVerified: new Date(1000), name: 'A' };
    await adapter.createUser(user);
    user.name = 'changed';
    user.emailVerified.setTime(0);
    expect(await adapter.getUser('u1')).toMatchObject({ name: 'A', emailVerified: new Date(1000) });
  });
});

describe('MemoryAdapter users without an email', () => {
  it('stores several, as a SQL unique index allows several NULLs', async () => {
    const adapter = new MemoryAdapter();
    await adapter.createUser({ id: 'a', email: null as unknown as string, emailVerified: null });
    await adapter.createUser({ id: 'b', email: null as unknown as string, emailVerified: null });
    expect((await adapter.getUser('b'))?.email).toBeNull();
  });
});
