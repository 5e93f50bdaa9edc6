import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { AUTH_SERVICES } from '../auth.providers.js';
import type { AccountChangeEvent } from '../config/callbacks.types.js';
import { GERMAN_MESSAGES } from '../config/messages/page-messages.js';
import { Credentials } from '../methods/credentials/credentials.provider.js';
import { createAuthTestbed, ORIGIN, type AuthTestbed } from '../sign-in/fixtures/auth-testbed.fixture.js';
import { createAccountBed, Client, JSON_HEADERS } from '../router/fixtures/account-client.fixture.js';
import type { AuthResponse } from '../types/http.types.js';

const AUTH = `${ORIGIN}/auth`;
describe('the /account routes: page, CSRF, passkeys, step-up, limits', () => {
  let bed: AuthTestbed;
  let client: Client;
  let events: AccountChangeEvent[];

  beforeEach(async () => {
    ({ bed, client, events } = await createAccountBed(AUTH_SERVICES));
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  async function addPasskey(id: string, name: string | null = null): Promise<void> {
    await bed.adapter!.linkAccount({ userId: 'u1', provider: 'passkey', providerAccountId: id, type: 'webauthn' });
    await bed.adapter!.createAuthenticator({
      credentialID: id,
      providerAccountId: id,
      userId: 'u1',
      credentialPublicKey: 'cGs=',
      counter: 0,
      credentialDeviceType: 'multiDevice',
      credentialBackedUp: true,
      transports: 'internal',
      name,
    });
  }

  it('without a session: 401 SessionRequired for JSON, the sign-in page (coming back) for a browser', async () => {
    const anonymous = new Client(bed);
    const json = await anonymous.send('GET', '/account', { headers: { accept: 'application/json' } });
    expect(json).toMatchObject({ status: 401, json: { error: 'SessionRequired' } });
    const page = await anonymous.send('GET', '/account');
    const target = new URL(page.redirect!);
    expect(`${target.origin}${target.pathname}`).toBe(`${AUTH}/signin`);
    expect(target.searchParams.get('callbackUrl')).toBe(`${AUTH}/account`);
  });

  it('GET /account: the page (passkeys, email, password, delete), or its JSON with the CSRF token', async () => {
    await addPasskey('cred-1', 'Laptop <b>');
    const page = await client.send('GET', '/account');
    expect(page.html).toContain('Laptop &lt;b&gt;');
    // The sessions, the current one marked.
    expect(page.html).toContain('aria-current="true"');
    expect(page.html).toContain(`action="${AUTH}/account/passkeys/rename"`);
    expect(page.html).toContain(`action="${AUTH}/account/email"`);
    expect(page.html).toContain(`action="${AUTH}/account/password"`);
    expect(page.html).toContain(`action="${AUTH}/account/delete"`);
    const json = (await client.send('GET', '/account', { headers: { accept: 'application/json' } })).json as Record<
      string,
      unknown
    >;
    expect(json).toMatchObject({ user: { id: 'u1', email: 'old@example.com' }, email: { current: 'old@example.com' } });
    expect(typeof json.csrfToken).toBe('string');
    expect(json.passkeys).toEqual([
      expect.objectContaining({ credentialID: 'cred-1', name: 'Laptop <b>', lastUsedAt: null }),
    ]);
  });

  it('refuses a state-changing request without the CSRF token, changing nothing', async () => {
    await addPasskey('cred-1', 'Old');
    const refused = await client.api('/account/passkeys/rename', { credentialID: 'cred-1', name: 'New' }, false);
    expect(refused).toMatchObject({ status: 400, json: { error: 'MissingCSRF' } });
    expect((await bed.adapter!.getAuthenticator('cred-1'))?.name).toBe('Old');
    // The header works for SPAs.
    const token = await client.csrf();
    const ok = await client.send('POST', '/account/passkeys/rename', {
      body: { credentialID: 'cred-1', name: 'New' },
      headers: { ...JSON_HEADERS, 'x-csrf-token': token },
    });
    expect(ok.json).toMatchObject({ passkey: { name: 'New' } });
  });

  it('renames a passkey (JSON and form), fires accountChange, refuses another user’s passkey', async () => {
    await addPasskey('cred-1');
    expect(
      (await client.api('/account/passkeys/rename', { credentialID: 'cred-1', name: ' Work key ' })).json,
    ).toMatchObject({
      passkey: { credentialID: 'cred-1', name: 'Work key' },
    });
    const form = await client.form('/account/passkeys/rename', { credentialID: 'cred-1', name: 'Home' });
    expect(form.redirect).toBe(`${AUTH}/account?notice=passkey-renamed`);
    expect((await bed.adapter!.getAuthenticator('cred-1'))?.name).toBe('Home');
    expect(events.filter((e) => e.action === 'passkey.rename')).toHaveLength(2);

    await bed.adapter!.createUser({ id: 'u2', email: 'u2@example.com', emailVerified: null });
    await bed.adapter!.linkAccount({
      userId: 'u2',
      provider: 'passkey',
      providerAccountId: 'theirs',
      type: 'webauthn',
    });
    await bed.adapter!.createAuthenticator({
      credentialID: 'theirs',
      providerAccountId: 'theirs',
      userId: 'u2',
      credentialPublicKey: 'cGs=',
      counter: 0,
      credentialDeviceType: 'singleDevice',
      credentialBackedUp: false,
    });
    expect((await client.api('/account/passkeys/rename', { credentialID: 'theirs', name: 'mine' })).json).toMatchObject(
      {
        error: 'InvalidRequest',
      },
    );
    expect((await bed.adapter!.getAuthenticator('theirs'))?.name ?? null).toBeNull();
    const tooLong = await client.api('/account/passkeys/rename', { credentialID: 'cred-1', name: 'x'.repeat(65) });
    expect(tooLong.json).toMatchObject({ error: 'InvalidRequest' });
  });

  it('deletes a passkey, never the last way to sign in', async () => {
    await addPasskey('cred-1');
    // Only the passkey and the verified address remain once the password account goes: the address counts.
    await bed.adapter!.unlinkAccount({ provider: 'credentials', providerAccountId: 'u1' });
    await bed.adapter!.updateUser({ id: 'u1', emailVerified: null });
    const last = await client.api('/account/passkeys/delete', { credentialID: 'cred-1' });
    expect(last).toMatchObject({ status: 400, json: { error: 'LastSignInMethod' } });
    expect(await bed.adapter!.getAuthenticator('cred-1')).not.toBeNull();

    await addPasskey('cred-2');
    expect((await client.api('/account/passkeys/delete', { credentialID: 'cred-1' })).json).toEqual({ ok: true });
    expect(await bed.adapter!.getAuthenticator('cred-1')).toBeNull();
    expect(events.map((e) => e.action)).toContain('passkey.delete');
  });

  it('requires a recent sign-in: 403 ReauthenticationRequired for JSON, sign in again for a form', async () => {
    await addPasskey('cred-1', 'Old');
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'setTimeout', 'setInterval', 'queueMicrotask'] });
    jest.setSystemTime(Date.now() + 11 * 60_000);
    const json = await client.api('/account/passkeys/rename', { credentialID: 'cred-1', name: 'New' });
    expect(json).toMatchObject({ status: 403, json: { error: 'ReauthenticationRequired' } });
    const form = await client.form('/account/passkeys/delete', { credentialID: 'cred-1' });
    const target = new URL(form.redirect!);
    expect(`${target.origin}${target.pathname}`).toBe(`${AUTH}/signin`);
    expect(target.searchParams.get('callbackUrl')).toBe(`${AUTH}/account`);
    expect(target.searchParams.get('error')).toBe('ReauthenticationRequired');
    expect((await bed.adapter!.getAuthenticator('cred-1'))?.name).toBe('Old');
  });

  it('rate-limits state-changing requests per user (429 with Retry-After)', async () => {
    await addPasskey('cred-1');
    let last: AuthResponse | undefined;
    for (let i = 0; i < 31; i++)
      last = await client.api('/account/passkeys/rename', { credentialID: 'cred-1', name: `n${i}` });
    expect(last).toMatchObject({ status: 429, json: { error: 'RateLimited' } });
    expect(Number(last!.headers?.['Retry-After'])).toBeGreaterThan(0);
    expect((await bed.adapter!.getAuthenticator('cred-1'))?.name).toBe('n29');
  });

  it('deletes the account with confirmation, and clears the session cookie', async () => {
    expect((await client.api('/account/delete', {})).json).toMatchObject({ error: 'InvalidRequest' });
    expect(await bed.adapter!.getUser('u1')).not.toBeNull();
    const done = await client.form('/account/delete', { confirm: 'yes' });
    expect(done.redirect).toBe(`${ORIGIN}/`);
    expect(await bed.adapter!.getUser('u1')).toBeNull();
    expect(client.jar['authjs.session-token']).toBeUndefined();
  });

  it('answers hostile input with a typed 4xx, never a server error, and changes nothing', async () => {
    await addPasskey('cred-1', 'Kept');
    const hostile: unknown[] = [{}, [], 42, null, 'x'.repeat(5000), '\u0000', { toString: 'x' }, true];
    const paths = [
      'passkeys/rename',
      'passkeys/delete',
      'email',
      'email/confirm',
      'password',
      'sessions/end',
      'accounts/unlink',
      'delete',
      'nope',
      'passkeys/x',
    ];
    const failures: string[] = [];
    for (const path of paths)
      for (const value of hostile) {
        const body = {
          credentialID: value,
          name: value,
          email: value,
          token: value,
          newPassword: value,
          currentPassword: value,
          id: value,
          provider: value,
          providerAccountId: value,
          confirm: value,
        };
        const res = await client.api(`/account/${path}`, body);
        if (![400, 404, 429].includes(res.status!) || (res.json as { error: string }).error === 'Configuration')
          failures.push(`${path} ${JSON.stringify(value)?.slice(0, 20)}: ${res.status} ${JSON.stringify(res.json)}`);
      }
    expect(failures).toEqual([]);
    expect((await bed.adapter!.getAuthenticator('cred-1'))?.name).toBe('Kept');
    expect(await bed.adapter!.getUser('u1')).toMatchObject({ email: 'old@example.com' });
  }, 30_000);

  it('a part the app does not configure is an unknown route (404), not a server fault', async () => {
    const bare = await createAuthTestbed(
      {
        providers: [
          Credentials({
            credentials: { username: {}, password: {} },
            authorize: async () => ({ id: 'u9', name: 'n' }),
          }),
        ],
        session: { strategy: 'jwt' },
      },
      AUTH_SERVICES,
    );
    const c = new Client(bare);
    await c.form('/callback/credentials', { username: 'n', password: 'p' });
    for (const path of [
      '/account/password',
      '/account/email',
      '/account/sessions/end-others',
      '/account/passkeys/rename',
    ])
      expect(await c.api(path, { newPassword: 'long enough pw' })).toMatchObject({
        status: 404,
        json: { error: 'UnknownAction' },
      });
    const page = await c.send('GET', '/account');
    expect(page.html).toContain('<h1>Your account</h1>');
    expect(page.html).not.toContain('id="password-heading"');
    expect(page.html).not.toContain('id="sessions-heading"');
  });

  it('speaks the `messages` option: German words and <html lang="de"> with GERMAN_MESSAGES', async () => {
    const german = await createAuthTestbed(
      {
        providers: [
          Credentials({
            credentials: { username: {}, password: {} },
            authorize: async () => ({ id: 'u9', name: 'n' }),
          }),
        ],
        session: { strategy: 'jwt' },
        messages: GERMAN_MESSAGES,
      },
      AUTH_SERVICES,
    );
    const c = new Client(german);
    await c.form('/callback/credentials', { username: 'n', password: 'p' });
    const page = await c.send('GET', '/account');
    expect(page.html).toContain('<html lang="de">');
    expect(page.html).toContain('<h1>Ihr Konto</h1>');
    expect(page.html).toContain('<h2 id="delete-heading">Ihr Konto löschen</h2>');
  });
});
