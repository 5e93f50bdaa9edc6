import { beforeEach, describe, expect, it } from '@jest/globals';
import type { MemoryAdapter } from '../../adapters/memory.adapter.js';
import { AUTH_SERVICES } from '../../auth.providers.js';
import type { ResolvedAuthConfig } from '../../config/resolved-config.js';
import { AdapterService } from '../../core/adapter.service.js';
import { createAuthTestbed, everyProvider, rejectionOf } from '../../sign-in/fixtures/auth-testbed.fixture.js';
import { UserWaysIn } from '../../sign-in/user-ways-in.js';
import { deletePasskey } from './passkeys.js';

// Deleting a passkey follows the one "last way to sign in" rule (UserWaysIn, sign-in/user-ways-in.ts).

describe('deletePasskey: never the last way to sign in', () => {
  let adapter: MemoryAdapter;
  let adapters: AdapterService;
  let config: ResolvedAuthConfig;
  let waysIn: UserWaysIn;

  beforeEach(async () => {
    const bed = await createAuthTestbed({ providers: everyProvider() }, AUTH_SERVICES);
    adapter = bed.adapter!;
    adapters = bed.get(AdapterService);
    config = bed.config;
    waysIn = bed.get(UserWaysIn);
    await adapter.createUser({ id: 'ada', email: 'ada@example.com', emailVerified: null });
    await adapter.linkAccount({ provider: 'passkey', providerAccountId: 'cred-1', type: 'webauthn', userId: 'ada' });
    await adapter.createAuthenticator({
      credentialID: 'cred-1',
      credentialPublicKey: 'pk',
      providerAccountId: 'cred-1',
      counter: 0,
      credentialDeviceType: 'multiDevice',
      credentialBackedUp: true,
      userId: 'ada',
    });
  });

  const remove = () => deletePasskey(adapters, config, waysIn, 'ada', 'cred-1');

  it('refuses the only passkey of a user whose address is not verified (LastSignInMethod), keeping it', async () => {
    expect((await rejectionOf(remove())) as { type?: string }).toMatchObject({ type: 'LastSignInMethod' });
    expect(await adapter.getUserByAccount({ provider: 'passkey', providerAccountId: 'cred-1' })).not.toBeNull();
  });

  it('removes it when a linked OAuth account remains', async () => {
    await adapter.linkAccount({ provider: 'idp', providerAccountId: 'gh', type: 'oauth', userId: 'ada' });
    await remove();
    expect(await adapter.getUserByAccount({ provider: 'passkey', providerAccountId: 'cred-1' })).toBeNull();
  });

  it('removes it when the address is verified and an email provider is configured', async () => {
    await adapter.updateUser({ id: 'ada', emailVerified: new Date() });
    await remove();
    expect(await adapter.getUserByAccount({ provider: 'passkey', providerAccountId: 'cred-1' })).toBeNull();
  });
});
