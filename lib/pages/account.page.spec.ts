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

    it('is left out without data, and shown after the email address and the passkeys with its heading', () => {
      expect(renderAccountPage(base)).not.toContain('id="two-factor-heading"');
      const html = renderAccountPage({
        ...base,
        passkeys: {
          list: [{ credentialID: 'c1', name: null, lastUsedAt: null, credentialDeviceType: 'multiDevice' }],
          provider: 'passkey',
          scriptUrl: '/auth/webauthn-client.js',
        },
        twoFactor: { factors, backupCodesLeft: 8, required: false },
        email: { current: null },
      });
      expect(html).toContain(
        '<section aria-labelledby="two-factor-heading"><h2 id="two-factor-heading">Two-factor authentication</h2>',
      );
      const order = ['email', 'passkeys', 'two-factor'].map((id) => html.indexOf(`id="${id}-heading"`));
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
      expect(html).toContain('<label for="two-factor-name-0">New name for Phone</label>');
      // Every button says which app it acts on.
      expect(html).toContain('aria-label="Rename Phone">Rename</summary>');
      expect(html).toContain('aria-label="Save the new name of Phone">Save</button>');
      expect(html).toContain('aria-label="Remove Phone"');
      expect(html).toContain('aria-label="Remove Authenticator app"');
      expect(html).toContain('<p class="item-title">Authenticator app</p>');
      // (Some ICU versions put a narrow no-break space before "AM".)
      expect(html.replace(/\u202f/g, ' ')).toContain(
        'Last used <time datetime="1970-01-01T00:01:00.000Z" data-local>Jan 1, 1970, 12:01 AM UTC</time>',
      );
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

  describe('rows a person (and a screen reader) can tell apart', () => {
    const now = Date.UTC(2026, 10, 28, 7, 48);
    const full: AccountPageParams = {
      ...base,
      sessions: [
        { id: 's1', current: true, userAgent: 'Chrome on macOS', createdAt: new Date(now), lastSeenAt: null },
        { id: 's2', current: false, userAgent: 'Chrome on macOS', createdAt: new Date(now), lastSeenAt: null },
        { id: 's3', current: false, userAgent: 'Chrome on macOS', createdAt: null, lastSeenAt: new Date(now) },
        { id: 's4', current: false, userAgent: 'Unknown browser on Android', createdAt: null, lastSeenAt: null },
        { id: 's5', current: false, userAgent: 'Firefox', createdAt: null, lastSeenAt: null },
        { id: 's6', current: false, userAgent: 'Kiosk 3000', createdAt: null, lastSeenAt: null },
        { id: 's7', current: false, userAgent: null, createdAt: null, lastSeenAt: null },
      ],
      accounts: {
        linked: [
          { provider: 'github', providerAccountId: '1', name: 'GitHub' },
          { provider: 'idp', providerAccountId: '2', name: 'Company' },
        ],
        linkable: [{ id: 'google', name: 'Google' }],
      },
      passkeys: {
        list: [
          { credentialID: 'c1', name: null, lastUsedAt: null, credentialDeviceType: 'singleDevice' },
          { credentialID: 'c2', name: null, lastUsedAt: new Date(now), credentialDeviceType: 'multiDevice' },
          { credentialID: 'c3', name: 'Work laptop', lastUsedAt: null, credentialDeviceType: 'multiDevice' },
        ],
        provider: 'passkey',
        scriptUrl: '/auth/webauthn-client.js',
      },
      twoFactor: {
        factors: [{ id: 'f1', name: 'Pixel', createdAt: new Date(now), lastUsedAt: null }],
        backupCodesLeft: 3,
        required: false,
      },
      apiKeys: {
        keys: ['Deploy bot', 'deploy bot'].map((name, i) => ({
          id: `k${i}`,
          name,
          hint: 'abcd',
          scopes: [],
          createdAt: new Date(now),
          expires: null,
          lastUsedAt: null,
        })),
        scopes: null,
        max: 20,
      },
      email: { current: 'ada@example.com' },
      password: { hasPassword: true },
      canDelete: true,
    };

    /** Every button, disclosure and link: its visible words and its accessible name. */
    function controls(html: string): Array<{ visible: string; name: string }> {
      return [...html.matchAll(/<(button|summary|a)\b([^>]*)>([\s\S]*?)<\/\1>/g)].map((c) => {
        const visible = c[3]!
          .replace(/<[^>]+>/g, '')
          .replace(/&amp;/g, '&')
          .replace(/\s+/g, ' ')
          .trim();
        const label = parseTags(`<x${c[2]}>`)[0]!.attrs['aria-label'];
        return { visible, name: label ?? visible };
      });
    }

    it.each([
      ['English', ENGLISH_MESSAGES],
      ['German', GERMAN_MESSAGES],
    ] as const)(
      'in %s: every control has a name of its own, and its visible words are part of it (label in name)',
      (_lang, messages) => {
        const all = controls(renderAccountPage({ ...full, messages }));
        expect(all.length).toBeGreaterThan(20);
        const names = all.map((c) => c.name.toLowerCase());
        expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
        for (const c of all)
          expect({ ...c, contained: c.name.toLowerCase().includes(c.visible.toLowerCase()) }).toEqual({
            ...c,
            contained: true,
          });
      },
    );

    it('names each row for what it acts on: "End session on Chrome on macOS (1)", "Unlink GitHub", "Remove Passkey (2)"', () => {
      const names = controls(renderAccountPage(full)).map((c) => c.name);
      expect(names).toEqual(
        expect.arrayContaining([
          'End session on Chrome on macOS (1)',
          'End session on Chrome on macOS (2)',
          'End session on Unknown browser on Android',
          'End session on Firefox',
          'End session on Kiosk 3000',
          'End session on Unknown device',
          'Unlink GitHub',
          'Unlink Company',
          'Link Google',
          'Rename Passkey (1)',
          'Save the new name of Passkey (2)',
          'Remove Passkey (2)',
          'Remove Work laptop',
          'Rename Pixel',
          'Rotate Deploy bot (1)',
          'Revoke deploy bot (2)',
          'Sign out',
        ]),
      );
      // The current session has no button, keeps its plain label and is marked.
      const html = renderAccountPage(full);
      expect(html).toContain(
        '<li aria-current="true"><div class="item-main"><p class="item-title">Chrome on macOS<span class="tag">This device</span>',
      );
      expect(html).toContain('<label for="passkey-name-2">New name for Work laptop</label>');
    });

    it('speaks German down to the devices: "Chrome unter macOS", and the unlink button\'s word is in its name', () => {
      const html = renderAccountPage({ ...full, messages: GERMAN_MESSAGES });
      const names = controls(html);
      expect(names).toEqual(
        expect.arrayContaining([
          { visible: 'Beenden', name: 'Sitzung auf Chrome unter macOS (Nr. 1) beenden' },
          { visible: 'Beenden', name: 'Sitzung auf Unbekannter Browser unter Android beenden' },
          { visible: 'Beenden', name: 'Sitzung auf Unbekanntes Gerät beenden' },
          { visible: 'Trennen', name: 'Verbindung zu GitHub trennen' },
          { visible: 'Umbenennen', name: 'Passkey ohne Namen (Nr. 1) umbenennen' },
          { visible: 'Speichern', name: 'Neuen Namen für Work laptop speichern' },
          { visible: 'Widerrufen', name: 'deploy bot (Nr. 2) widerrufen' },
        ]),
      );
      expect(html).toContain('<p class="item-title">Chrome unter macOS<span class="tag">Dieses Gerät</span>');
      for (const english of [' on ', 'Unknown', 'End session', 'Unlink', 'Rename', 'Save'])
        expect(html.replace(/<style>[^]*?<\/style>|<script[^>]*>[^]*?<\/script>/g, '')).not.toContain(english);
    });

    it('shows times as <time datetime>: in the page language and UTC from the server, then local by a nonce script', () => {
      const html = renderAccountPage({ ...full, nonce: 'bm9uY2Utbm9uY2Utbm9uY2U=' }).replace(/\u202f/g, ' ');
      expect(html).toContain(
        'Signed in <time datetime="2026-11-28T07:48:00.000Z" data-local>Nov 28, 2026, 7:48 AM UTC</time>',
      );
      const german = renderAccountPage({ ...full, messages: GERMAN_MESSAGES });
      expect(german).toContain(
        'Angemeldet am <time datetime="2026-11-28T07:48:00.000Z" data-local>28.11.2026, 07:48 Uhr (UTC)</time>',
      );
      // No raw ISO date a person reads: the ISO form is only in `datetime`.
      for (const page of [html, german]) {
        const shown = page.replace(/<[^>]+>/g, ' ');
        expect(shown).not.toMatch(/\d{4}-\d{2}-\d{2}/);
      }
      // The script that rewrites them runs by the response's nonce, which the CSP names.
      expect(html).toContain('<script nonce="bm9uY2Utbm9uY2Utbm9uY2U&#61;">');
      expect(html).toContain('&#39;nonce-bm9uY2Utbm9uY2Utbm9uY2U&#61;&#39;');
      expect(html).toMatch(/<script nonce="[^"]+">[^<]*Intl\.DateTimeFormat[^<]*time\[data-local\]/);
      // A fresh nonce per page when none is given.
      const nonceOf = (page: string) => /<script nonce="([^"]+)">/.exec(page)![1];
      expect(nonceOf(renderAccountPage(full))).not.toBe(nonceOf(renderAccountPage(full)));
    });

    it('keeps deleting apart: its own red section last, a box to tick (required), and "Sign out" at the top', () => {
      const html = renderAccountPage(full);
      const danger = html.slice(html.indexOf('<section aria-labelledby="delete-heading" class="danger-zone">'));
      expect(danger).toMatch(
        /^<section aria-labelledby="delete-heading" class="danger-zone"><h2 id="delete-heading">Delete your account<\/h2>/,
      );
      expect(danger.slice(danger.indexOf('</section>') + 10)).not.toContain('<section');
      expect(danger).toContain('<input type="checkbox" name="confirm" value="yes" required>');
      expect(danger).not.toContain('Sign out');
      const head = html.slice(html.indexOf('<div class="account-head">'), html.indexOf('<section'));
      expect(head).toContain(
        '<a class="button button-secondary btn-sm" href="https://app.example/auth/signout">Sign out</a>',
      );
      // White on the button's red, in either scheme: 6.5:1.
      expect(html).toContain('.danger{background:#b91c1c;border-color:#b91c1c;color:#fff}');
    });

    it('says what happened after every change, linking an account too', () => {
      const html = renderAccountPage(full);
      expect(html).toContain(
        '<input type="hidden" name="callbackUrl" value="https://app.example/auth/account?notice&#61;account-linked">',
      );
      for (const notice of [
        'account-linked',
        'account-unlinked',
        'session-ended',
        'sessions-ended',
        'passkey-renamed',
        'two-factor-renamed',
        'backup-codes-regenerated',
      ])
        for (const messages of [ENGLISH_MESSAGES, GERMAN_MESSAGES])
          expect(renderAccountPage({ ...base, messages, notice })).toContain(
            `<div class="notice" role="status"><p>${messages[`account.notice.${notice}` as keyof typeof messages]}</p></div>`,
          );
    });
  });

  describe('the offer of a first passkey', () => {
    const page = (list: NonNullable<AccountPageParams['passkeys']>['list'], messages = ENGLISH_MESSAGES) =>
      renderAccountPage({
        ...base,
        messages,
        email: { current: 'ada@example.com' },
        password: { hasPassword: true },
        accounts: { linked: [], linkable: [{ id: 'github', name: 'GitHub' }] },
        passkeys: { list, provider: 'passkey', scriptUrl: '/auth/webauthn-client.js' },
        twoFactor: { factors: [], backupCodesLeft: 0, required: false },
        canDelete: true,
      });
    const headings = (html: string) => [...html.matchAll(/<h2 id="([\w-]+)-heading"/g)].map((h) => h[1]);

    it.each([
      ['English', ENGLISH_MESSAGES],
      ['German', GERMAN_MESSAGES],
    ] as const)(
      'in %s: no passkey yet, the offer comes first: one line saying what a passkey is, one primary button',
      (_lang, m) => {
        const html = page([], m);
        expect(headings(html)).toEqual(['passkeys', 'email', 'password', 'accounts', 'two-factor', 'delete']);
        const offer = html.slice(html.indexOf('<section aria-labelledby="passkeys-heading"'));
        expect(offer.slice(0, offer.indexOf('</section>'))).toBe(
          `<section aria-labelledby="passkeys-heading" class="offer"><h2 id="passkeys-heading">${m['account.passkeysHeading']}</h2>` +
            `<p data-passkey-offer>${escapeText(m['account.passkeysOffer'])}</p>` +
            '<form data-webauthn-provider="passkey" data-webauthn-action="register" data-webauthn-base-url="https://app.example/auth">' +
            '<input type="hidden" name="csrfToken" value="tok&quot;en">' +
            '<input type="hidden" name="callbackUrl" value="https://app.example/auth/account?notice&#61;passkey-added">' +
            '<p class="error" data-webauthn-error id="passkey-error" role="alert" hidden></p>' +
            `<button type="submit" class="button btn-auto">${m['account.addPasskey']}</button>` +
            `<noscript><p class="muted">${m['account.passkeysNeedScript']}</p></noscript></form>`,
        );
        // The page's one "Add a passkey", and the passkey script with it.
        expect(html.split(`>${m['account.addPasskey']}</button>`)).toHaveLength(2);
        expect(html).toContain('<script src="/auth/webauthn-client.js" defer></script>');
      },
    );

    it('with a passkey: no offer, the list in its place, the button quiet', () => {
      const html = page([
        { credentialID: 'c1', name: 'Laptop', lastUsedAt: null, credentialDeviceType: 'multiDevice' },
      ]);
      expect(headings(html)).toEqual(['email', 'password', 'accounts', 'passkeys', 'two-factor', 'delete']);
      expect(html).not.toContain('data-passkey-offer');
      expect(html).not.toContain('class="offer"');
      expect(html).toContain(
        `<button type="submit" class="button button-secondary btn-auto">${ENGLISH_MESSAGES['account.addPasskey']}</button>`,
      );
    });

    it('without passkeys configured: no offer, no script', () => {
      const html = renderAccountPage({ ...base, email: { current: 'ada@example.com' } });
      expect(html).not.toContain('data-passkey-offer');
      expect(html).not.toContain('webauthn-client.js');
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

/** The page's escaping of a sentence (`escapeHtml`). */
function escapeText(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}
