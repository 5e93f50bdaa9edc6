import { describe, expect, it } from '@jest/globals';
import type { AdapterAccount } from '../adapters/adapter.interface.js';
import { MemoryAdapter } from '../adapters/memory.adapter.js';
import { AUTH_SERVICES } from '../auth.providers.js';
import { AdapterService } from '../core/adapter.service.js';
import type { Account } from '../types/common.types.js';
import { AccountLinkingService } from './account-linking.service.js';
import { createAuthTestbed, everyProvider } from './fixtures/auth-testbed.fixture.js';

/** The account row of a first sign-in, as `account()` kept it. */
const FIRST: Account = {
  provider: 'idp',
  providerAccountId: 'sub-1',
  type: 'oidc',
  access_token: 'at-1',
  refresh_token: 'rt-1',
  expires_at: 1_000,
  id_token: 'idt-1',
  scope: 'openid email offline_access',
  token_type: 'bearer',
};
/** What a later sign-in's `account()` keeps. */
const AGAIN: Account = {
  provider: 'idp',
  providerAccountId: 'sub-1',
  type: 'oidc',
  access_token: 'at-2',
  refresh_token: 'rt-2',
  expires_at: 2_000,
  id_token: 'idt-2',
  scope: 'openid email',
  token_type: 'bearer',
};

async function setup(options: { encryptAccountTokens?: boolean; adapter?: MemoryAdapter } = {}) {
  const { adapter: given, ...rest } = options;
  const bed = await createAuthTestbed({ providers: everyProvider(), ...rest }, AUTH_SERVICES, given);
  const adapter = bed.adapter!;
  const adapters = bed.get(AdapterService);
  const ada = await adapter.createUser({ id: 'ada', email: 'ada@example.com', emailVerified: null });
  await adapters.require('linkAccount').linkAccount({ ...FIRST, userId: 'ada' } as AdapterAccount);
  const linking = bed.get(AccountLinkingService);
  /** A sign-in of `account` (the row `account()` kept), found as ada's. */
  const signIn = (account: Account) => linking.resolve({ account, storedAccount: account, user: {} }, ada, null);
  /** The stored row, opened (and the raw one, as the adapter holds it). */
  const row = async (providerAccountId = 'sub-1') => {
    const raw = (await adapter.listAccountsByUserId('ada')).find((a) => a.providerAccountId === providerAccountId);
    return { raw, opened: adapters.openAccount(raw) };
  };
  return { adapter, adapters, signIn, row };
}

describe('a sign-in to an account already linked stores its new tokens', () => {
  it("replaces the account's tokens with what account() kept, on that account only, for the same user", async () => {
    const { adapter, signIn, row } = await setup();
    await adapter.linkAccount({ ...FIRST, providerAccountId: 'sub-other', userId: 'ada' } as AdapterAccount);
    const resolved = await signIn(AGAIN);
    expect(resolved).toMatchObject({ user: { id: 'ada' }, isNewUser: false });
    expect(resolved.linked).toBeUndefined();
    const { opened } = await row();
    expect(opened).toMatchObject({ ...AGAIN, userId: 'ada' });
    // Another account of the same provider keeps its own tokens.
    expect((await row('sub-other')).opened).toMatchObject({ access_token: 'at-1', refresh_token: 'rt-1' });
  });

  it('restores tokens cleared by invalid_grant; keeps the stored refresh token when the provider sends none', async () => {
    const { adapter, signIn, row } = await setup();
    // What ProviderTokens writes after invalid_grant.
    const cleared = await adapter.updateAccountTokens(
      { provider: 'idp', providerAccountId: 'sub-1', refresh_token: 'rt-1', expires_at: 1_000 },
      { access_token: null, refresh_token: null, expires_at: null },
    );
    expect(cleared).not.toBeNull();
    await signIn(AGAIN);
    expect((await row()).opened).toMatchObject({ access_token: 'at-2', refresh_token: 'rt-2', expires_at: 2_000 });
    // No refresh token and no expiry this time (a provider that gives one only at first consent).
    const { refresh_token: _r, expires_at: _e, id_token: _i, ...noRefresh } = { ...AGAIN, access_token: 'at-3' };
    await signIn(noRefresh);
    const { opened } = await row();
    expect(opened).toMatchObject({ access_token: 'at-3', refresh_token: 'rt-2' });
    expect(opened?.expires_at ?? null).toBeNull();
    expect(opened?.id_token ?? null).toBeNull();
  });

  it('with encryptAccountTokens, stores the new tokens sealed (and they open to the plain ones)', async () => {
    const { signIn, row } = await setup({ encryptAccountTokens: true });
    await signIn(AGAIN);
    const { raw, opened } = await row();
    for (const column of ['access_token', 'refresh_token', 'id_token'] as const) {
      expect(raw?.[column]).toMatch(/^enc\.v1\./);
      expect(opened?.[column]).toBe(AGAIN[column]);
    }
  });

  it("takes over a refresh lease: the refresh's own write then finds the row changed and stores nothing", async () => {
    const { adapter, signIn, row } = await setup();
    const lease = -(Math.floor(Date.now() / 1000) + 60);
    const held = { provider: 'idp', providerAccountId: 'sub-1', refresh_token: 'rt-1', expires_at: lease };
    expect(await adapter.updateAccountTokens({ ...held, expires_at: 1_000 }, { expires_at: lease })).not.toBeNull();
    await signIn(AGAIN);
    expect(await adapter.updateAccountTokens(held, { access_token: 'late', refresh_token: 'late-rt' })).toBeNull();
    expect((await row()).opened).toMatchObject({ access_token: 'at-2', refresh_token: 'rt-2', expires_at: 2_000 });
  });

  it('writes nothing (and still signs in) with an adapter without updateAccountTokens', async () => {
    class NoSwap extends MemoryAdapter {}
    Object.defineProperty(NoSwap.prototype, 'updateAccountTokens', { value: undefined });
    const { signIn, row } = await setup({ adapter: new NoSwap() });
    expect(await signIn(AGAIN)).toMatchObject({ user: { id: 'ada' }, isNewUser: false });
    expect((await row()).opened).toMatchObject({ access_token: 'at-1', refresh_token: 'rt-1' });
  });
});
