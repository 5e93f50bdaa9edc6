import { describe, expect, it } from '@jest/globals';
import { externalResources, parseTags } from '../../test/setup/html-checks.js';
import { GERMAN_MESSAGES } from '../config/messages/page-messages.js';
import { duration, renderVerifyRequestPage } from './verify-request.page.js';

const theme = {
  colorScheme: 'auto',
  logo: 'https://cdn.example.com/logo.png',
  brandColor: '',
  buttonText: '',
} as const;

describe('renderVerifyRequestPage', () => {
  it('tells the user to check their email and links back to the site', () => {
    const html = renderVerifyRequestPage({ url: 'http://127.0.0.1:3000', theme });
    expect(html).toContain('<h1>Check your email</h1>');
    expect(html).toContain(
      '<a class="button button-secondary" href="http://127.0.0.1:3000/">Back to 127.0.0.1:3000</a>',
    );
    expect(html).toContain('<img class="logo" src="https://cdn.example.com/logo.png" alt="">');
    expect(externalResources(html, ['https://cdn.example.com'])).toEqual([]);
    expect(parseTags(html).find((t) => t.attrs['http-equiv'])!.attrs.content).toContain(
      'img-src https://cdn.example.com',
    );
  });

  it('drops a link that is not http(s)', () => {
    const html = renderVerifyRequestPage({
      url: 'javascript:alert(1)',
      theme: { ...theme, logo: 'javascript:alert(2)' },
    });
    expect(html).not.toContain('javascript:');
    expect(parseTags(html).filter((t) => t.name === 'a' || t.name === 'img')).toEqual([]);
  });

  // promise: pages.verify-request-details
  it('says where the link went and how long it lasts, and offers a new link at the sign-in page', () => {
    const html = renderVerifyRequestPage({
      url: 'http://127.0.0.1:3000',
      theme,
      email: 'ada@example.com',
      maxAge: 24 * 60 * 60,
      signInUrl: 'http://127.0.0.1:3000/auth/signin',
    });
    expect(html).toContain(
      'A <span class="nowrap">sign-in</span> link has been sent to <strong class="address" data-email>ada@example.com</strong>.',
    );
    // The question is text beside the link, never inside it.
    expect(html).toContain(
      '<p class="muted">Wrong address, or no email? <a href="http://127.0.0.1:3000/auth/signin?email&#61;ada%40example.com">Send a new link</a></p>',
    );
    expect(html).toContain('It works once and expires in <span data-expires>24 hours</span>.');
    expect(
      parseTags(html)
        .filter((t) => t.name === 'a')
        .map((t) => t.attrs.href),
    ).toEqual(['http://127.0.0.1:3000/auth/signin?email=ada%40example.com', 'http://127.0.0.1:3000/']);
  });

  it('names the app ("Back to Acme") and gives the logo its name as alt text when the theme has one', () => {
    const html = renderVerifyRequestPage({
      url: 'http://127.0.0.1:3000',
      theme: { ...theme, brandName: ' Acme  Notes ' },
    });
    expect(html).toContain('>Back to Acme Notes</a>');
    expect(html).toContain('<img class="logo" src="https://cdn.example.com/logo.png" alt="Acme Notes">');
  });

  it('keeps hyphenated words whole (German "E-Mail"), the address apart', () => {
    const html = renderVerifyRequestPage({
      url: 'http://127.0.0.1:3000',
      theme,
      email: 'ada-lovelace@example.com',
      messages: GERMAN_MESSAGES,
      signInUrl: 'http://127.0.0.1:3000/auth/signin',
    });
    expect(html).toContain('<h1>Prüfen Sie Ihre <span class="nowrap">E-Mails</span></h1>');
    expect(html).toContain('keine <span class="nowrap">E-Mail</span>?');
    expect(html).toContain('<strong class="address" data-email>ada-lovelace@example.com</strong>');
  });

  it('shows no address that does not look like one, escaped or not', () => {
    for (const email of ['<b>x</b>@example.com', 'no-at-sign', 'a b@example.com', `a@b\u0000`]) {
      const html = renderVerifyRequestPage({ url: 'http://127.0.0.1:3000', theme, email });
      expect(html).toContain('sent to your email address');
      expect(html).not.toContain('data-email');
    }
  });

  it("shows an address with an apostrophe (o'brien@…), escaped, and offers the new link for it", () => {
    const html = renderVerifyRequestPage({
      url: 'http://127.0.0.1:3000',
      theme,
      email: "o'brien@example.com",
      signInUrl: 'http://127.0.0.1:3000/auth/signin',
    });
    expect(html).toContain('<strong class="address" data-email>o&#39;brien@example.com</strong>');
    expect(
      parseTags(html)
        .filter((t) => t.name === 'a')
        .map((t) => t.attrs.href),
    ).toEqual(['http://127.0.0.1:3000/auth/signin?email=o%27brien%40example.com', 'http://127.0.0.1:3000/']);
  });

  it.each([
    [15 * 60, '15 minutes'],
    [3600, '1 hour'],
    [5400, '1 hour and 30 minutes'],
    [86_400, '24 hours'],
    [7 * 86_400, '7 days'],
    [30, '1 minute'],
    [0, undefined],
    [Number.NaN, undefined],
  ])('duration(%p) = %p', (seconds, words) => {
    expect(duration(seconds)).toBe(words);
  });
});
