import { describe, expect, it } from '@jest/globals';
import { ENGLISH_MESSAGES, GERMAN_MESSAGES, type PageMessages } from '../config/messages/page-messages.js';
import { renderAccountPage, renderEmailChangeConfirmPage, renderNewApiKeyPage } from './account.page.js';
import { renderEmailConfirmPage } from './email-confirm.page.js';
import { renderErrorPage } from './error.page.js';
import { AUTH, params, theme } from './fixtures/signin-page.fixture.js';
import { renderSignInPage } from './signin.page.js';
import { renderSignOutPage } from './signout.page.js';
import { renderVerifyRequestPage } from './verify-request.page.js';

/** Messages whose every sentence is its key in brackets: what is left of a page's text came from elsewhere. */
const MARKED = Object.fromEntries(
  Object.keys(ENGLISH_MESSAGES).map((k) => [k, k === 'lang' ? 'xx' : `[[${k}]]`]),
) as PageMessages;

const GERMAN_SENTENCES = Object.values(GERMAN_MESSAGES);

/** Every page in several states, with `messages`. */
function pages(messages: PageMessages): Record<string, string> {
  const base = { theme: { ...theme }, messages };
  const signIn = (over: object) => renderSignInPage(params({ messages, signInUrl: `${AUTH}/signin`, ...over }));
  return {
    'sign-in': signIn({}),
    'sign-in error': signIn({ error: 'OAuthCallbackError' }),
    'sign-in code': signIn({ error: 'CredentialsSignin', code: 'x1' }),
    'sign-in notice': signIn({ error: 'SessionRequired' }),
    'sign-in unknown': signIn({ error: 'Nope' }),
    'sign-in all forms': renderSignInPage(params({ messages })),
    'sign-in none': renderSignInPage(params({ messages, providers: [] })),
    'sign-out': renderSignOutPage({ ...base, csrfToken: 'c', callbackUrl: '/', signOutUrl: `${AUTH}/signout` }),
    'verify-request': renderVerifyRequestPage({
      ...base,
      url: 'http://h.test',
      email: 'a@b.test',
      maxAge: 5430,
      signInUrl: `${AUTH}/signin`,
    }),
    'verify-request plain': renderVerifyRequestPage({ ...base, url: 'http://h.test', signInUrl: `${AUTH}/signin` }),
    ...Object.fromEntries(
      [
        'Configuration',
        'AccessDenied',
        'Verification',
        'WebAuthnVerificationError',
        'InvalidCheck',
        'UnknownAction',
        'RateLimited',
        'Nope',
      ].map((error) => [
        `error ${error}`,
        renderErrorPage({ ...base, error, url: 'http://h.test', signInUrl: `${AUTH}/signin` }),
      ]),
    ),
    'email-confirm': renderEmailConfirmPage({
      ...base,
      action: `${AUTH}/callback/email`,
      token: 't',
      email: 'a@b.test',
      callbackUrl: '/',
    }),
    ...accountPages(messages),
  };
}

/**
 * The account page with every section, each notice and error, its email change confirmation, and the
 * page that shows a new API key.
 */
function accountPages(messages: PageMessages): Record<string, string> {
  const account = {
    theme: { ...theme },
    messages,
    user: { email: 'a@b.test' },
    csrfToken: 'c',
    accountUrl: `${AUTH}/account`,
    authUrl: AUTH,
    sessions: [
      { id: 's1', current: true, userAgent: 'Chrome on macOS', createdAt: new Date(0), lastSeenAt: new Date(0) },
      { id: 's2', current: false, userAgent: null, createdAt: null, lastSeenAt: null },
    ],
    accounts: { linked: [{ provider: 'github', providerAccountId: '1', name: 'GitHub' }], linkable: [] },
    passkeys: {
      list: [
        { credentialID: 'k1', name: null, lastUsedAt: null, credentialDeviceType: 'singleDevice' },
        { credentialID: 'k2', name: 'Laptop', lastUsedAt: new Date(0), credentialDeviceType: 'multiDevice' },
      ],
      provider: 'passkey',
      scriptUrl: `${AUTH}/webauthn-client.js`,
    },
    apiKeys: {
      keys: [
        {
          id: 'AbCdEf123456',
          name: 'Deploy bot',
          hint: 'x9Z2',
          scopes: ['notes:read'],
          createdAt: new Date(0),
          expires: new Date(0),
          lastUsedAt: new Date(0),
        },
        {
          id: 'ZyXwVu654321',
          name: 'Deploy bot',
          hint: 'q0Q0',
          scopes: [],
          createdAt: new Date(0),
          expires: null,
          lastUsedAt: null,
        },
      ],
      scopes: ['notes:read'],
      max: 20,
    },
    email: { current: 'a@b.test' },
    password: { hasPassword: true },
    canDelete: true,
  };
  const keys = Object.keys(ENGLISH_MESSAGES);
  const states = (kind: 'notice' | 'error') =>
    keys.filter((k) => k.startsWith(`account.${kind}.`)).map((k) => k.slice(`account.${kind}.`.length));
  return {
    account: renderAccountPage(account),
    'account empty': renderAccountPage({
      ...account,
      user: { name: 'Ada' },
      sessions: [],
      accounts: { linked: [], linkable: [{ id: 'google', name: 'Google' }] },
      passkeys: { ...account.passkeys, list: [] },
      apiKeys: { keys: [], scopes: null, max: 20 },
      email: { current: null },
      password: { hasPassword: false },
    }),
    'account API keys at the limit': renderAccountPage({ ...account, apiKeys: { ...account.apiKeys, max: 2 } }),
    ...Object.fromEntries(
      [false, true].map((rotated) => [
        `new API key${rotated ? ' rotated' : ''}`,
        renderNewApiKeyPage({
          theme: { ...theme },
          messages,
          key: 'nak_AbCdEf123456secret',
          name: 'Deploy bot',
          rotated,
          continueUrl: `${AUTH}/account`,
        }),
      ]),
    ),
    ...Object.fromEntries(
      states('notice').map((n) => [`account notice ${n}`, renderAccountPage({ ...account, notice: n })]),
    ),
    ...Object.fromEntries(
      [...states('error'), 'Nope'].map((e) => [`account error ${e}`, renderAccountPage({ ...account, error: e })]),
    ),
    'account email change confirm': renderEmailChangeConfirmPage({
      theme: { ...theme },
      messages,
      action: `${AUTH}/account/email/confirm`,
      csrfToken: 'c',
      token: 't',
      email: 'a@b.test',
    }),
  };
}

/** The pages' own values (the fixtures' provider names and labels, addresses, devices): not sentences. */
const VALUES = [
  'GitHub',
  'Demo IdP',
  'DEMO',
  'Password',
  'Passkey',
  'Username',
  'Email',
  'a@b.test',
  'h.test',
  'x1',
  'PASSKEY',
  'Chrome on macOS',
  'Laptop',
  'Google',
  'Ada',
  'UTC',
  'Deploy bot',
  'notes:read',
  'nak_AbCdEf123456secret',
];

/** The words a person reads (text, placeholders, titles) that are not markers nor the page's own values. */
function leftover(html: string): string {
  let text = html
    .replace(/<style>[^]*?<\/style>|<script( nonce="[^"]*")?>[^]*?<\/script>/g, ' ')
    // A date's month and day names are Intl's, in the page's language (`lang`), not sentences.
    .replace(/<time [^>]*>[^<]*<\/time>/g, ' ')
    .replace(/placeholder="([^"]*)"/g, ' $1 ')
    .replace(/<text[^>]*>\w<\/text>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\[\[[\w.-]+\]\]/g, ' ')
    .replace(/&#?\w+;/g, ' ');
  for (const v of VALUES) text = text.split(v).join(' ');
  return text.replace(/[\s\d.:?,()-]+/g, ' ').trim();
}

describe('the built-in pages and `messages`', () => {
  // promise: pages.messages
  it.each(Object.entries(pages(MARKED)))('%s: every sentence comes from messages', (_name, html) => {
    expect(leftover(html)).toBe('');
    expect(html).toContain('<html lang="xx">');
  });

  it.each(Object.entries(pages(GERMAN_MESSAGES)))('%s in German: no English sentence left', (_name, page) => {
    expect(page).toContain('<html lang="de">');
    // Form field names are not words a person reads (`name="currentPassword"`).
    const html = page.replace(/ name="[^"]*"/g, ' ');
    for (const [key, sentence] of Object.entries(ENGLISH_MESSAGES)) {
      // Skipped: short words, a page's own value ("Password", a provider's name), a word German uses too ("Passkeys").
      if (key === 'lang' || sentence.length < 8 || VALUES.includes(sentence)) continue;
      if (GERMAN_SENTENCES.some((g) => g.includes(sentence))) continue;
      expect({ key, found: html.includes(sentence) }).toEqual({ key, found: false });
    }
  });

  it('German durations and templates', () => {
    const html = renderVerifyRequestPage({
      theme: { ...theme },
      messages: GERMAN_MESSAGES,
      url: 'http://h.test',
      email: 'a@b.test',
      maxAge: 86_400,
    });
    expect(html).toContain('Ein Anmeldelink wurde an <strong class="address" data-email>a@b.test</strong> gesendet.');
    expect(html).toContain('läuft in <span data-expires>24 Stunden</span> ab.');
  });

  it('escapes a sentence of the app (messages are text, not HTML)', () => {
    const html = renderSignOutPage({
      theme: { ...theme },
      messages: { ...ENGLISH_MESSAGES, 'signOut.question': '<img src=x onerror=alert(1)>' },
      csrfToken: 'c',
      callbackUrl: '/',
      signOutUrl: `${AUTH}/signout`,
    });
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });
});
