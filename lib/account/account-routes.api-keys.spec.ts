import { describe, expect, it } from '@jest/globals';
import { AUTH_SERVICES } from '../auth.providers.js';
import type { AuthModuleOptions } from '../config/auth-options.interface.js';
import { Credentials } from '../methods/credentials/credentials.provider.js';
import { Client } from '../router/fixtures/account-client.fixture.js';
import { createAuthTestbed, ORIGIN } from '../sign-in/fixtures/auth-testbed.fixture.js';

const AUTH = `${ORIGIN}/auth`;
const JSON_ACCEPT = { accept: 'application/json' };

/** A testbed with `apiKeys` (unless `apiKeys: undefined`) and a client signed in as `u1` with a password. */
async function signedIn(options: Partial<AuthModuleOptions> = {}) {
  const bed = await createAuthTestbed(
    {
      providers: [
        Credentials({
          credentials: { username: {}, password: {} },
          authorize: async (c) => (c.password === 'right' ? { id: 'u1', name: 'Ada' } : null),
        }),
      ],
      session: { strategy: 'database' },
      apiKeys: {},
      ...options,
    },
    AUTH_SERVICES,
  );
  const client = new Client(bed);
  await client.form('/callback/credentials', { username: 'ada', password: 'right' });
  return { bed, client };
}

/** The key a page shows in its `<code data-api-key>`. */
function keyOn(html: string | undefined): string | undefined {
  return /<code data-api-key>([^<]+)<\/code>/.exec(html ?? '')?.[1];
}

describe('the account page: API keys (`apiKeys`)', () => {
  it('shows the section (and its JSON twin the keys) only when `apiKeys` is configured', async () => {
    const off = await signedIn({ apiKeys: undefined });
    expect((await off.client.send('GET', '/account')).html).not.toContain('id="api-keys-heading"');
    expect((await off.client.send('GET', '/account', { headers: JSON_ACCEPT })).json).not.toHaveProperty('apiKeys');

    const { client } = await signedIn({
      accessToken: { issuer: 'https://api.example.test/auth', scopes: ['notes:read'] },
    });
    const page = await client.send('GET', '/account');
    expect(page.html).toContain('<h2 id="api-keys-heading">API keys</h2>');
    expect(page.html).toContain(`<form method="post" action="${AUTH}/account/api-keys/create">`);
    expect(page.html).toContain('Available: notes:read');
    expect((await client.send('GET', '/account', { headers: JSON_ACCEPT })).json).toMatchObject({ apiKeys: [] });
  });

  it('a form that creates a key gets a page showing it once (never cached); the list shows it without the key', async () => {
    const { client } = await signedIn();
    const created = await client.form('/account/api-keys/create', {
      name: '<script>x</script>',
      scopes: '',
      expires: '',
    });
    expect(created.redirect).toBeUndefined();
    expect(created.headers).toMatchObject({ 'Cache-Control': 'no-store', 'X-Frame-Options': 'DENY' });
    const key = keyOn(created.html)!;
    expect(key).toMatch(/^nak_[0-9A-Za-z]+$/);
    expect(created.html).toContain('<strong>&lt;script&gt;x&lt;/script&gt;</strong>');
    expect(created.html).not.toContain('<script>x');
    expect(created.html).toContain(`href="${AUTH}/account?notice&#61;api-key-created"`);

    const page = (await client.send('GET', '/account', { query: { notice: 'api-key-created' } })).html!;
    expect(page).toContain('The API key was created.');
    expect(page).toContain('<p class="item-title">&lt;script&gt;x&lt;/script&gt;</p>');
    expect(page).toContain(`<code>…${key.slice(-4)}</code>`);
    expect(page).not.toContain(key);
    expect(page).toContain('does not expire');
  });

  it('JSON requests keep getting { key, apiKey } (no page)', async () => {
    const { client } = await signedIn();
    const res = await client.api('/account/api-keys/create', { name: 'CI', scopes: ['a', 'b'] });
    expect(res.html).toBeUndefined();
    const body = res.json as { key: string; apiKey: { id: string; name: string; scopes: string[] } };
    expect(body.apiKey).toMatchObject({ name: 'CI', scopes: ['a', 'b'] });
    expect(body.key).toContain(body.apiKey.id);
    const rotated = await client.api('/account/api-keys/rotate', { id: body.apiKey.id });
    expect(rotated.html).toBeUndefined();
    expect(rotated.json).toMatchObject({ key: expect.any(String), apiKey: { name: 'CI' } });
  });

  it('rotates through the form (a page with the new value) and revokes (back to the page with the notice)', async () => {
    const { client } = await signedIn();
    // What the page's date input sends: a day, a year from now.
    const day = new Date(Date.now() + 365 * 86_400_000).toISOString().slice(0, 10);
    const first = keyOn((await client.form('/account/api-keys/create', { name: 'Deploy', expires: day })).html)!;
    const [listed] = (
      (await client.send('GET', '/account/api-keys', { headers: JSON_ACCEPT })).json as {
        apiKeys: Array<{ id: string; expires: Date }>;
      }
    ).apiKeys;
    expect(new Date(listed!.expires).toISOString()).toBe(`${day}T00:00:00.000Z`);

    const rotated = await client.form('/account/api-keys/rotate', { id: listed!.id });
    const second = keyOn(rotated.html)!;
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    expect(rotated.html).toContain('The old value of this key no longer works.');
    expect(rotated.html).toContain('?notice&#61;api-key-rotated');

    const [current] = (
      (await client.send('GET', '/account/api-keys', { headers: JSON_ACCEPT })).json as {
        apiKeys: Array<{ id: string }>;
      }
    ).apiKeys;
    const revoked = await client.form('/account/api-keys/revoke', { id: current!.id });
    expect(revoked.redirect).toBe(`${AUTH}/account?notice=api-key-revoked`);
    const page = (await client.send('GET', '/account', { query: { notice: 'api-key-revoked' } })).html!;
    expect(page).toContain('The API key was revoked.');
    expect(page).toContain('You have no API keys.');
  });

  it('a refused form (no name, a past date, commas between scopes) goes back to the page with the error, and makes no key', async () => {
    const { client } = await signedIn();
    for (const body of [{ name: '' }, { name: 'x', expires: '2000-01-01' }, { name: 'x', scopes: 'a,b' }]) {
      const res = await client.form('/account/api-keys/create', body);
      expect(res.html).toBeUndefined();
      expect(res.redirect).toBe(`${AUTH}/account?error=InvalidRequest`);
    }
    expect((await client.send('GET', '/account/api-keys', { headers: JSON_ACCEPT })).json).toEqual({ apiKeys: [] });
  });

  it('at `maxPerUser`, the page offers no create form', async () => {
    const { client } = await signedIn({ apiKeys: { maxPerUser: 1 } });
    await client.api('/account/api-keys/create', { name: 'only' });
    const page = (await client.send('GET', '/account')).html!;
    expect(page).toContain('You have as many API keys as allowed (1).');
    expect(page).not.toContain('/account/api-keys/create');
  });
});
