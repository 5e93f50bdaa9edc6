import { describe, expect, it } from '@jest/globals';
import { ENGLISH_MESSAGES, GERMAN_MESSAGES, type PageMessages } from '../config/messages/page-messages.js';
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
  };
}

/** The words a person reads (text, placeholders, titles) that are not markers nor the page's own values. */
function leftover(html: string): string {
  const values = [
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
  ];
  let text = html
    .replace(/<style>[^]*?<\/style>|<script>[^]*?<\/script>/g, ' ')
    .replace(/placeholder="([^"]*)"/g, ' $1 ')
    .replace(/<text[^>]*>\w<\/text>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\[\[[\w.]+\]\]/g, ' ')
    .replace(/&#?\w+;/g, ' ');
  for (const v of values) text = text.split(v).join(' ');
  return text.replace(/[\s\d.:?,()-]+/g, ' ').trim();
}

describe('the built-in pages and `messages`', () => {
  // promise: pages.messages
  it.each(Object.entries(pages(MARKED)))('%s: every sentence comes from messages', (_name, html) => {
    expect(leftover(html)).toBe('');
    expect(html).toContain('<html lang="xx">');
  });

  it.each(Object.entries(pages(GERMAN_MESSAGES)))('%s in German: no English sentence left', (_name, html) => {
    expect(html).toContain('<html lang="de">');
    for (const [key, sentence] of Object.entries(ENGLISH_MESSAGES)) {
      if (key === 'lang' || sentence.length < 8) continue;
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
    expect(html).toContain('Ein Anmeldelink wurde an <strong data-email>a@b.test</strong> gesendet.');
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
