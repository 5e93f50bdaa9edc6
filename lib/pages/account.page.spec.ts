import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
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
