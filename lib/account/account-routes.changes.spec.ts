import { AUTH_SERVICES } from '../auth.providers.js';
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { AuthService } from '../guard/auth.service.js';
import type { AccountChangeEvent } from '../config/callbacks.types.js';
import type { SendVerificationRequestParams } from '../methods/email/email.types.js';
import { ORIGIN, type AuthTestbed } from '../sign-in/fixtures/auth-testbed.fixture.js';
import { createAccountBed, Client } from '../router/fixtures/account-client.fixture.js';

const AUTH = `${ORIGIN}/auth`;
describe('the /account routes: email, password, sessions, linked accounts', () => {
  let bed: AuthTestbed;
  let client: Client;
  let mails: SendVerificationRequestParams[];
  let events: AccountChangeEvent[];
  let hashes: Map<string, string>;

  beforeEach(async () => {
    ({ bed, client, mails, events, hashes } = await createAccountBed(AUTH_SERVICES));
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('changes the email through a single-use link to the new address; the old one is told', async () => {
    const sent = await client.api('/account/email', { email: ' New@Example.com ' });
    expect(sent.json).toMatchObject({ ok: true, email: 'new@example.com' });
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({ identifier: 'new@example.com', purpose: 'email-change' });
    const link = new URL(mails[0]!.url);
    expect(link.pathname).toBe('/auth/account/email/confirm');
    expect((await bed.adapter!.getUser('u1'))?.email).toBe('old@example.com');

    // Opening the link changes nothing (a mail scanner's GET); its button posts the token.
    const page = await client.send('GET', '/account/email/confirm', { query: Object.fromEntries(link.searchParams) });
    expect(page.html).toContain(`action="${AUTH}/account/email/confirm"`);
    expect((await bed.adapter!.getUser('u1'))?.email).toBe('old@example.com');

    const body = Object.fromEntries(link.searchParams);
    const confirmed = await client.form('/account/email/confirm', body);
    expect(confirmed.redirect).toBe(`${AUTH}/account?notice=email-changed`);
    expect(await bed.adapter!.getUser('u1')).toMatchObject({
      email: 'new@example.com',
      emailVerified: expect.any(Date),
    });
    expect(mails[1]).toMatchObject({ identifier: 'old@example.com', purpose: 'email-change-notice' });
    expect(events.map((e) => e.action)).toEqual(expect.arrayContaining(['email.change-requested', 'email.changed']));

    // Single use.
    expect((await client.api('/account/email/confirm', body)).json).toMatchObject({ error: 'Verification' });
  });

  it('refuses an email change to an address another user has by the time the link is followed', async () => {
    await client.api('/account/email', { email: 'taken@example.com' });
    await bed.adapter!.createUser({ id: 'u2', email: 'taken@example.com', emailVerified: null });
    const body = Object.fromEntries(new URL(mails[0]!.url).searchParams);
    expect((await client.api('/account/email/confirm', body)).json).toMatchObject({ error: 'EmailInUse' });
    expect((await bed.adapter!.getUser('u1'))?.email).toBe('old@example.com');
  });

  it('a link only changes the address of the user it was sent for', async () => {
    await client.api('/account/email', { email: 'new@example.com' });
    const body = Object.fromEntries(new URL(mails[0]!.url).searchParams);
    const other = new Client(bed);
    await bed.adapter!.createUser({ id: 'u1b', email: 'b@example.com', emailVerified: null });
    // Another signed-in user (a credentials sign-in as u1b) cannot use it.
    const authorize = bed.config.providerById.get('credentials')!.config as { authorize: unknown } as {
      authorize: (c: Record<string, unknown>) => unknown;
    };
    authorize.authorize = async () => ({ id: 'u1b', name: 'b' });
    await other.form('/callback/credentials', { username: 'b', password: 'x' });
    expect((await other.api('/account/email/confirm', body)).json).toMatchObject({ error: 'Verification' });
    expect((await bed.adapter!.getUser('u1b'))?.email).toBe('b@example.com');
    // The token is still good for its user.
    expect((await client.api('/account/email/confirm', body)).json).toMatchObject({ ok: true });
  });

  // promise: account.password
  it('sets, then changes a password: the current one is required and checked', async () => {
    expect((await client.api('/account/password', { newPassword: 'short' })).json).toMatchObject({
      error: 'InvalidRequest',
    });
    expect((await client.api('/account/password', { newPassword: 'correct horse' })).json).toEqual({ ok: true });
    const first = hashes.get('u1');
    expect(first).toMatch(/^\$scrypt\$/);
    expect((await client.api('/account/password', { newPassword: 'battery staple' })).json).toMatchObject({
      error: 'WrongPassword',
    });
    expect(
      (await client.api('/account/password', { newPassword: 'battery staple', currentPassword: 'wrong one' })).json,
    ).toMatchObject({ error: 'WrongPassword' });
    expect(hashes.get('u1')).toBe(first);
    expect(
      (await client.api('/account/password', { newPassword: 'battery staple', currentPassword: 'correct horse' })).json,
    ).toEqual({ ok: true });
    expect(hashes.get('u1')).not.toBe(first);
    expect(events.filter((e) => e.action === 'password.set')).toHaveLength(2);
  }, 20_000);

  it('lists the sessions (the current one marked), ends another one, then every other one', async () => {
    const laptop = new Client(bed);
    await laptop.form('/callback/credentials', { username: 'ada', password: 'right' });
    const phone = new Client(bed);
    await phone.form('/callback/credentials', { username: 'ada', password: 'right' });
    const listed = (await client.send('GET', '/account/sessions')).json as {
      sessions: Array<{ id: string; current: boolean }>;
    };
    expect(listed.sessions).toHaveLength(3);
    expect(listed.sessions.filter((x) => x.current)).toHaveLength(1);
    const mine = ((await laptop.send('GET', '/account/sessions')).json as typeof listed).sessions.find(
      (x) => x.current,
    )!;
    expect(await client.form('/account/sessions/end', { id: mine.id })).toMatchObject({
      redirect: `${AUTH}/account?notice=session-ended`,
    });
    expect(await laptop.send('GET', '/account', { headers: { accept: 'application/json' } })).toMatchObject({
      status: 401,
    });
    expect((await client.api('/account/sessions/end-others')).json).toEqual({ ok: true, ended: 1 });
    expect(await phone.send('GET', '/account', { headers: { accept: 'application/json' } })).toMatchObject({
      status: 401,
    });
    expect(((await client.send('GET', '/account/sessions')).json as typeof listed).sessions).toHaveLength(1);
    expect(events.map((e) => e.action)).toEqual(expect.arrayContaining(['session.end', 'sessions.end-others']));
  });

  it('lists linked accounts with the providers left to link, and unlinks one (never the last way in)', async () => {
    await bed.adapter!.linkAccount({ userId: 'u1', provider: 'idp', providerAccountId: 'idp-1', type: 'oauth' });
    const json = (await client.send('GET', '/account', { headers: { accept: 'application/json' } })).json as {
      accounts: Array<{ provider: string }>;
      linkable: unknown[];
    };
    expect(json.accounts.map((a) => a.provider)).toEqual(['idp']);
    expect(json.linkable).toEqual([]);
    expect(
      (await client.api('/account/accounts/unlink', { provider: 'idp', providerAccountId: 'idp-1' })).json,
    ).toEqual({ ok: true });
    expect(await bed.adapter!.getAccount('idp-1', 'idp')).toBeNull();
    const page = await client.send('GET', '/account');
    expect(page.html).toContain(`action="${AUTH}/link/idp"`);
    // Only the password account is left... and the verified address: take both away but the account.
    await bed.adapter!.linkAccount({ userId: 'u1', provider: 'idp', providerAccountId: 'idp-2', type: 'oauth' });
    await bed.adapter!.unlinkAccount({ provider: 'credentials', providerAccountId: 'u1' });
    await bed.adapter!.updateUser({ id: 'u1', emailVerified: null });
    expect(
      (await client.api('/account/accounts/unlink', { provider: 'idp', providerAccountId: 'idp-2' })).json,
    ).toMatchObject({
      error: 'LastSignInMethod',
    });
    expect(await bed.adapter!.getAccount('idp-2', 'idp')).not.toBeNull();
  });

  describe('AuthService', () => {
    it('changeEmail needs the url option or the request for the link; setPassword replaces, or checks a given current one', async () => {
      const auth = bed.get(AuthService);
      await expect(auth.changeEmail('u1', 'x@example.com')).rejects.toMatchObject({ type: 'InvalidRequest' });
      await auth.changeEmail('u1', 'x@example.com', { request: { headers: { host: '127.0.0.1:3000' } } });
      expect(new URL(mails[0]!.url).origin).toBe(ORIGIN);

      await auth.setPassword('u1', 'first password');
      await auth.setPassword('u1', 'second password'); // no current password: the app checked the user itself
      await expect(auth.setPassword('u1', 'third password', 'first password')).rejects.toMatchObject({
        type: 'WrongPassword',
      });
      await auth.setPassword('u1', 'third password', 'second password');
    }, 20_000);
  });
});
