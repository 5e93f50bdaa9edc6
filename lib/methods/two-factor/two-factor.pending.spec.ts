import { describe, expect, it } from '@jest/globals';
import { AUTH_SERVICES } from '../../auth.providers.js';
import { applyCookies, createAuthTestbed } from '../../sign-in/fixtures/auth-testbed.fixture.js';
import { Credentials } from '../credentials/credentials.provider.js';
import { PendingSignIns, type PendingSignIn } from './two-factor.pending.js';

async function sealed(pending: Omit<PendingSignIn, 'userId' | 'until' | 'amr' | 'callbackUrl' | 'isNewUser'>) {
  const bed = await createAuthTestbed(
    { providers: [Credentials({ credentials: { password: {} }, authorize: () => null })], twoFactor: {} },
    AUTH_SERVICES,
  );
  const pendings = bed.get(PendingSignIns);
  const ctx = bed.providerContext(bed.request('POST', '/callback/credentials'), 'credentials');
  await pendings.seal(ctx, {
    userId: 'u1',
    amr: ['fed'],
    callbackUrl: 'http://127.0.0.1:3000/',
    isNewUser: false,
    until: Date.now() + 60_000,
    ...pending,
  });
  const [cookie] = ctx.responseCookies;
  const jar = applyCookies({}, ctx.responseCookies);
  const opened = await pendings.open(
    bed.providerContext(bed.request('GET', '/two-factor', { cookies: jar }), 'credentials'),
  );
  return { cookie: cookie!, opened };
}

describe('PendingSignIns', () => {
  it('keeps the account and its profile when they fit a cookie', async () => {
    const account = { provider: 'idp', providerAccountId: 'a1', type: 'oidc' as const, access_token: 'at' };
    const { opened } = await sealed({
      account: { ...account, id_token: 'x.y.z' },
      profile: { sub: 'a1', name: 'Ada' },
    });
    // The ID token never rides along (its `sid` is kept apart).
    expect(opened).toMatchObject({ userId: 'u1', account, profile: { sub: 'a1', name: 'Ada' }, amr: ['fed'] });
    expect(opened.account.id_token).toBeUndefined();
  });

  it('drops the profile, then the tokens, rather than write a cookie a browser would refuse', async () => {
    const big = 'x'.repeat(6000);
    const { cookie, opened } = await sealed({
      account: { provider: 'idp', providerAccountId: 'a1', type: 'oidc', access_token: big, refresh_token: big },
      profile: { sub: 'a1', picture: big },
    });
    expect(cookie.value.length).toBeLessThan(4000);
    expect(opened.account).toEqual({ provider: 'idp', providerAccountId: 'a1', type: 'oidc' });
    expect(opened.profile).toBeUndefined();
  });
});
