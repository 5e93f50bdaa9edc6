import { describe, expect, it } from '@jest/globals';
import { externalResources, parseTags, visibleInputs } from '../../test/setup/html-checks.js';
import { errorPageStatus, renderErrorPage } from './error.page.js';

const theme = { colorScheme: 'auto', logo: '', brandColor: '', buttonText: '' } as const;
const base = { url: 'http://127.0.0.1:3000', signInUrl: 'http://127.0.0.1:3000/auth/signin', theme };

// promise: pages.error-statuses
describe('errorPageStatus', () => {
  it.each([
    ['Configuration', 200],
    ['MissingAdapterMethods', 200],
    ['AccessDenied', 403],
    ['Verification', 403],
    ['WebAuthnVerificationError', 403],
    ['InvalidCheck', 400],
    ['InvalidRequest', 400],
    ['InvalidProvider', 400],
    ['UnknownAction', 400],
    ['AccountAlreadyLinked', 409],
    ['RateLimited', 429],
    ['CredentialsSignin', 200],
    ['SomethingElse', 200],
    ['__proto__', 200],
    ['constructor', 200],
    [undefined, 200],
  ])('%s → %d', (type, status) => {
    expect(errorPageStatus(type)).toBe(status);
  });
});

describe('renderErrorPage', () => {
  it.each([
    ['Configuration', 'Server error', false],
    ['AccessDenied', 'Access denied', true],
    ['Verification', 'Unable to sign in', true],
    ['WebAuthnVerificationError', 'Passkey not accepted', true],
    ['InvalidCheck', 'Sign-in expired', true],
    [undefined, 'Error', true],
  ])('%s: heading "%s", sign-in link %s', (error, heading, signIn) => {
    const html = renderErrorPage({ ...base, error });
    expect(html).toContain(`<h1>${heading}</h1>`);
    expect(html).toContain(`<title>${heading}</title>`);
    const links = parseTags(html)
      .filter((t) => t.name === 'a')
      .map((t) => t.attrs.href);
    expect(links.includes(base.signInUrl)).toBe(signIn);
    expect(links).toContain(`${base.url}/`);
  });

  it('explains an expired magic link', () => {
    expect(renderErrorPage({ ...base, error: 'Verification' })).toContain(
      'It may have been used already, or it may have expired.',
    );
  });

  it('never echoes the error parameter', () => {
    const error = '<script>alert(1)</script>';
    const html = renderErrorPage({ ...base, error });
    expect(html).not.toContain('<script');
    expect(html).not.toContain('alert(1)');
    expect(html).toContain('<h1>Error</h1>');
  });

  it('drops links that are not http(s) and escapes the rest', () => {
    const html = renderErrorPage({
      ...base,
      url: 'javascript:alert(1)',
      signInUrl: 'http://127.0.0.1:3000/auth/signin?a="><b>',
    });
    expect(html).not.toContain('javascript:');
    expect(
      parseTags(html)
        .filter((t) => t.name === 'a')
        .map((t) => t.attrs.href),
    ).toEqual(['http://127.0.0.1:3000/auth/signin?a=%22%3E%3Cb%3E']);
    expect(html).not.toContain('<b>');
  });

  it('is self-contained, with no inputs to label', () => {
    const html = renderErrorPage({ ...base, error: 'AccessDenied', theme: { ...theme, colorScheme: 'dark' } });
    expect(externalResources(html)).toEqual([]);
    expect(visibleInputs(html)).toEqual([]);
    expect(html).toContain('<body class="theme-dark">');
  });
});
