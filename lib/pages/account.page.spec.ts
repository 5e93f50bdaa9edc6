import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { parseTags, unlabeledInputs, visibleInputs } from '../../test/setup/html-checks.js';
import { ENGLISH_MESSAGES, GERMAN_MESSAGES, resolveMessages } from '../config/messages/page-messages.js';
import { renderAccountPage, renderEmailChangeConfirmPage, type AccountPageParams } from './account.page.js';

const theme = { colorScheme: 'auto', logo: '', brandColor: '', buttonText: '' } as const;
const base: AccountPageParams = {
  user: { email: 'ada@example.com' },
  csrfToken: 'tok"en',
  accountUrl: 'https://app.example/auth/account',
  authUrl: 'https://app.example/auth',
  theme,
};

describe('the account page', () => {
  it('leaves out the sections it is given no data for', () => {
    const html = renderAccountPage(base);
    expect(html).toContain('ada@example.com');
    for (const id of ['sessions', 'accounts', 'passkeys', 'email', 'password', 'delete'])
      expect(html).not.toContain(`id="${id}-heading"`);
    expect(html).not.toContain('webauthn-client.js');
  });

  it('shows every section, each form posting with the CSRF token', () => {
    const html = renderAccountPage({
      ...base,
      sessions: [
        { id: 's1', current: true, userAgent: 'Chrome on macOS', createdAt: new Date(0), lastSeenAt: null },
        { id: 's2', current: false, userAgent: null, createdAt: null, lastSeenAt: new Date(0) },
      ],
      accounts: {
        linked: [{ provider: 'github', providerAccountId: '1', name: 'GitHub' }],
        linkable: [{ id: 'google', name: 'Google' }],
      },
      passkeys: {
        list: [{ credentialID: 'c1', name: null, lastUsedAt: null, credentialDeviceType: 'singleDevice' }],
        provider: 'passkey',
        scriptUrl: 'https://app.example/auth/webauthn-client.js',
      },
      email: { current: 'ada@example.com' },
      password: { hasPassword: true },
      canDelete: true,
    });
    for (const id of ['sessions', 'accounts', 'passkeys', 'email', 'password', 'delete'])
      expect(html).toContain(`id="${id}-heading"`);
    const forms = html.match(/<form method="post"[^>]*>/g) ?? [];
    const withToken = html.match(/<input type="hidden" name="csrfToken" value="tok&quot;en">/g) ?? [];
    expect(forms.length).toBeGreaterThan(5);
    expect(withToken.length).toBeGreaterThanOrEqual(forms.length);
    // Only the other session can be ended; the current one is marked.
    expect(html.match(/name="id" value="s2"/g)).toHaveLength(1);
    expect(html).not.toContain('name="id" value="s1"');
    expect(html).toContain('<span class="tag">This device</span>');
    expect(html).toContain(`action="https://app.example/auth/link/google"`);
    expect(html).toContain('data-webauthn-provider="passkey" data-webauthn-action="register"');
    expect(html).toContain('name="currentPassword"');
    expect(html).toContain('<script src="https://app.example/auth/webauthn-client.js" defer></script>');
  });

  it('escapes every value (names, addresses, ids) and allows only its own hashed inline script', () => {
    const hostile = '"><script>alert(1)</script>';
    const html = renderAccountPage({
      ...base,
      user: { email: hostile },
      passkeys: {
        list: [{ credentialID: hostile, name: hostile, lastUsedAt: null, credentialDeviceType: 'multiDevice' }],
        provider: 'passkey',
        scriptUrl: '/auth/webauthn-client.js',
      },
    });
    expect(html).not.toContain('<script>alert(1)');
    expect(html.match(/<script>/g)).toHaveLength(1);
    const inline = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
    const hash = createHash('sha256').update(inline).digest('base64');
    // The CSP meta attribute is escaped (`=` as `&#61;`).
    expect(html).toContain(`sha256-${hash.replace(/=/g, '&#61;')}`);
  });

  it('says what happened (role=status) or what went wrong (role=alert), from one messages object', () => {
    expect(renderAccountPage({ ...base, notice: 'passkey-renamed' })).toContain(
      `<div class="notice" role="status"><p>${ENGLISH_MESSAGES['account.notice.passkey-renamed']}</p></div>`,
    );
    expect(renderAccountPage({ ...base, error: 'LastSignInMethod' })).toContain(
      ENGLISH_MESSAGES['account.error.LastSignInMethod'],
    );
    expect(renderAccountPage({ ...base, error: 'Whatever<b>' })).toContain(ENGLISH_MESSAGES['account.error.default']);
    expect(renderAccountPage({ ...base, notice: 'toString' })).not.toContain('role="status"');
    const translated = renderAccountPage({
      ...base,
      messages: resolveMessages({
        'account.title': 'Ihr Konto',
        'account.notice.email-sent': 'Gesendet',
        'account.removeNamed': '{name} entfernen',
      }),
      passkeys: {
        list: [{ credentialID: 'c', name: 'Laptop', lastUsedAt: null, credentialDeviceType: 'multiDevice' }],
        provider: 'passkey',
        scriptUrl: '/auth/webauthn-client.js',
      },
      notice: 'email-sent',
    });
    expect(translated).toContain('<h1>Ihr Konto</h1>');
    expect(translated).toContain('Gesendet');
    expect(translated).toContain('aria-label="Laptop entfernen"');
    // Every key not given stays English.
    expect(translated).toContain(ENGLISH_MESSAGES['account.addPasskey']);
    expect(translated).toContain('<html lang="en">');
  });

  it('speaks German with GERMAN_MESSAGES (the `messages` option), <html lang="de">', () => {
    const html = renderAccountPage({
      ...base,
      messages: GERMAN_MESSAGES,
      password: { hasPassword: false },
      canDelete: true,
      error: 'WrongPassword',
    });
    expect(html).toContain('<html lang="de">');
    expect(html).toContain('<h1>Ihr Konto</h1>');
    expect(html).toContain('Angemeldet als <strong>ada@example.com</strong>');
    expect(html).toContain('Das aktuelle Passwort ist falsch.');
    expect(html).toContain('Passwort festlegen');
    expect(html).toContain('Konto löschen');
    expect(html).not.toContain('Your account');
    const confirm = renderEmailChangeConfirmPage({
      action: '/auth/account/email/confirm',
      csrfToken: 't',
      token: 'abc',
      email: 'new@example.com',
      theme,
      messages: GERMAN_MESSAGES,
    });
    expect(confirm).toContain('<html lang="de">');
    expect(confirm).toContain('Diese Adresse verwenden');
  });

  describe('two-factor authentication', () => {
    const factors = [
      { id: 'f1', name: 'Phone', createdAt: new Date(0), lastUsedAt: new Date(60_000) },
      { id: 'f2', name: null, createdAt: new Date(0), lastUsedAt: null },
    ];
    const forms = (html: string) =>
      [...html.matchAll(/<form method="post" action="([^"]*)">([\s\S]*?)<\/form>/g)].map((f) => ({
        action: f[1]!,
        inputs: parseTags(f[2]!)
          .filter((t) => t.name === 'input')
          .map((t) => t.attrs),
      }));

    it('is left out without data, and shown after the passkeys with its heading', () => {
      expect(renderAccountPage(base)).not.toContain('id="two-factor-heading"');
      const html = renderAccountPage({
        ...base,
        passkeys: { list: [], provider: 'passkey', scriptUrl: '/auth/webauthn-client.js' },
        twoFactor: { factors, backupCodesLeft: 8, required: false },
        email: { current: null },
      });
      expect(html).toContain(
        '<section aria-labelledby="two-factor-heading"><h2 id="two-factor-heading">Two-factor authentication</h2>',
      );
      const order = ['passkeys', 'two-factor', 'email'].map((id) => html.indexOf(`id="${id}-heading"`));
      expect(order).toEqual([...order].sort((a, b) => a - b));
    });

    it('lists each app with rename and remove forms, adds an app, regenerates backup codes: each a POST with the CSRF token', () => {
      const html = renderAccountPage({ ...base, twoFactor: { factors, backupCodesLeft: 8, required: false } });
      const url = (path: string) => `https://app.example/auth/account/two-factor/${path}`;
      const csrf = { type: 'hidden', name: 'csrfToken', value: 'tok"en' };
      expect(forms(html)).toEqual([
        {
          action: url('rename'),
          inputs: [
            csrf,
            { type: 'hidden', name: 'id', value: 'f1' },
            { id: 'two-factor-name-0', name: 'name', maxlength: '64', autocomplete: 'off', value: 'Phone' },
          ],
        },
        { action: url('remove'), inputs: [csrf, { type: 'hidden', name: 'id', value: 'f1' }] },
        {
          action: url('rename'),
          inputs: [
            csrf,
            { type: 'hidden', name: 'id', value: 'f2' },
            { id: 'two-factor-name-1', name: 'name', maxlength: '64', autocomplete: 'off', value: '' },
          ],
        },
        { action: url('remove'), inputs: [csrf, { type: 'hidden', name: 'id', value: 'f2' }] },
        { action: url('totp'), inputs: [csrf] },
        { action: url('backup-codes'), inputs: [csrf] },
      ]);
      expect(html.match(/<li data-two-factor>/g)).toHaveLength(2);
      expect(visibleInputs(html)).toEqual(['<input name="name">', '<input name="name">']);
      expect(unlabeledInputs(html)).toEqual([]);
      expect(html).toContain('<label for="two-factor-name-0">Name</label>');
      // Every button says which app it acts on.
      expect(html).toContain('aria-label="Rename Phone"');
      expect(html).toContain('aria-label="Remove Phone"');
      expect(html).toContain('aria-label="Remove Authenticator app"');
      expect(html).toContain('<p class="item-title">Authenticator app</p>');
      expect(html).toContain('Last used <time datetime="1970-01-01T00:01:00.000Z">1970-01-01 00:01 UTC</time>');
      expect(html).toContain('Not used yet');
      expect(html).toContain('>Add an authenticator app</button>');
      expect(html).toContain('<p data-backup-codes-left="8">Unused backup codes: 8</p>');
      expect(html).toContain(ENGLISH_MESSAGES['twoFactor.account.regenerateNote']);
      expect(html).toContain('>Generate new backup codes</button>');
      expect(html).not.toContain(ENGLISH_MESSAGES['twoFactor.account.required']);
      expect(html).not.toContain(ENGLISH_MESSAGES['twoFactor.account.noBackupCodes']);
    });

    it('says when the policy requires a second factor (the last app cannot be removed) and when no backup code is left', () => {
      const html = renderAccountPage({
        ...base,
        twoFactor: { factors: factors.slice(0, 1), backupCodesLeft: 0, required: true },
      });
      expect(html).toContain(
        `<p class="muted" data-two-factor-required>${ENGLISH_MESSAGES['twoFactor.account.required']}</p>`,
      );
      expect(html).toContain('Unused backup codes: 0');
      expect(html).toContain(ENGLISH_MESSAGES['twoFactor.account.noBackupCodes']);
    });

    it('without an app: says so, offers to add one, and no backup codes', () => {
      const html = renderAccountPage({ ...base, twoFactor: { factors: [], backupCodesLeft: 0, required: false } });
      expect(html).toContain(`<p>${ENGLISH_MESSAGES['twoFactor.account.none']}</p>`);
      expect(forms(html).map((f) => f.action)).toEqual(['https://app.example/auth/account/two-factor/totp']);
      expect(html).not.toContain('data-backup-codes-left');
      // No script is needed for any of it: the page loads none but its hashed busy states.
      expect(html).not.toContain('<script src');
    });

    it('escapes the names and ids of apps', () => {
      const hostile = '"><script>alert(1)</script>';
      const html = renderAccountPage({
        ...base,
        twoFactor: {
          factors: [{ id: hostile, name: hostile, createdAt: new Date(0), lastUsedAt: null }],
          backupCodesLeft: 1,
          required: false,
        },
      });
      expect(html).not.toContain('<script>alert(1)');
      expect(html).toContain('<p class="item-title">&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;</p>');
      expect(forms(html)[0]!.inputs).toContainEqual({ type: 'hidden', name: 'id', value: hostile });
      expect(forms(html)[0]!.inputs).toContainEqual(expect.objectContaining({ name: 'name', value: hostile }));
    });

    it('speaks German with GERMAN_MESSAGES', () => {
      const html = renderAccountPage({
        ...base,
        messages: GERMAN_MESSAGES,
        twoFactor: { factors, backupCodesLeft: 3, required: true },
      });
      expect(html).toContain('<h2 id="two-factor-heading">Zwei-Faktor-Authentifizierung</h2>');
      expect(html).toContain('Unbenutzte Backup-Codes: 3');
      expect(html).toContain('aria-label="Phone entfernen"');
      expect(html).toContain('>Authenticator-App hinzufügen</button>');
      expect(html).not.toContain('Two-factor');
    });
  });

  it('the email confirmation page posts the token; the GET itself changes nothing', () => {
    const html = renderEmailChangeConfirmPage({
      action: 'https://app.example/auth/account/email/confirm',
      csrfToken: 't',
      token: 'abc',
      email: 'new@example.com',
      theme,
    });
    expect(html).toContain('<form method="post" action="https://app.example/auth/account/email/confirm">');
    expect(html).toContain('name="token" value="abc"');
    expect(html).toContain('new@example.com');
  });
});
