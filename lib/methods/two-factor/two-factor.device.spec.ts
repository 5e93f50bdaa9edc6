import { describe, expect, it } from '@jest/globals';
import { Credentials } from '../credentials/credentials.provider.js';
import { AUTH_SERVICES } from '../../auth.providers.js';
import { applyCookies, createAuthTestbed } from '../../sign-in/fixtures/auth-testbed.fixture.js';
import { RememberedDevices } from './two-factor.device.js';
import { TwoFactors } from './two-factors.service.js';
import { totpCode } from './totp.js';

const USER = 'user-1';

/** A testbed with a password store, a user with a confirmed app, and a browser this one remembers. */
async function remembered() {
  const hashes = new Map<string, string>([[USER, 'hash-1']]);
  const bed = await createAuthTestbed(
    {
      providers: [
        Credentials({
          credentials: { password: {} },
          authorize: () => null,
          passwordStore: {
            getPasswordHash: (id) => hashes.get(id) ?? null,
            setPasswordHash: (id, hash) => void hashes.set(id, hash),
          },
        }),
      ],
      twoFactor: { rememberDevice: 7 },
    },
    AUTH_SERVICES,
  );
  await bed.adapter!.createUser({ id: USER, email: 'u@example.test', emailVerified: null });
  const factors = bed.get(TwoFactors);
  const started = await factors.startTotp(USER, 'u@example.test', 'http://127.0.0.1:3000');
  await factors.confirmTotp(USER, started.id, await totpCode(started.secret));
  const devices = bed.get(RememberedDevices);
  const ctx = () => bed.providerContext(bed.request('POST', '/two-factor', { cookies: jar }), 'credentials');
  let jar: Record<string, string> = {};
  const first = ctx();
  await devices.remember(first, USER);
  jar = applyCookies(jar, first.responseCookies);
  return { bed, hashes, factors, devices, started, recognises: () => devices.recognises(ctx(), USER), ctx };
}

describe('RememberedDevices', () => {
  it('recognises the browser it remembered, for that user only', async () => {
    const { devices, recognises, ctx } = await remembered();
    expect(await recognises()).toBe(true);
    expect(await devices.recognises(ctx(), 'someone-else')).toBe(false);
  });

  it('a new password ends it', async () => {
    const { hashes, recognises } = await remembered();
    hashes.set(USER, 'hash-2');
    expect(await recognises()).toBe(false);
  });

  it('a factor change ends it: new backup codes, a removed app, a reset', async () => {
    for (const change of ['codes', 'remove', 'reset'] as const) {
      const { factors, started, recognises } = await remembered();
      if (change === 'codes') await factors.regenerateBackupCodes(USER);
      if (change === 'remove') await factors.remove({ id: USER }, started.id);
      if (change === 'reset') await factors.reset(USER);
      expect([change, await recognises()]).toEqual([change, false]);
    }
  });

  it('a tampered cookie is not recognised', async () => {
    const { bed, devices } = await remembered();
    const name = 'authjs.two-factor-device';
    const ctx = bed.providerContext(
      bed.request('POST', '/two-factor', { cookies: { [name]: 'x.y.z.a.b' } }),
      'credentials',
    );
    expect(await devices.recognises(ctx, USER)).toBe(false);
  });
});
