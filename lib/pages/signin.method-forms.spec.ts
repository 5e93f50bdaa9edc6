import { describe, expect, it } from '@jest/globals';
import { AUTH, params, provider } from './fixtures/signin-page.fixture.js';
import type { SignInFormRenderer, SignInPageParams, SignInPageProvider } from './page.types.js';
import { renderSignInPage } from './signin.page.js';

/** A form of a method the app added: its provider id, and the error it was handed. */
const codeForm: SignInFormRenderer = (p, _page, hidden, error) =>
  `<form data-own="${p.id}" action="${p.callbackUrl}" method="post">${hidden}${error?.html ?? ''}</form>`;

const builtIn: SignInPageProvider[] = [
  provider('email', 'email', { name: 'Email' }),
  provider('credentials', 'credentials', {
    name: 'Password',
    credentials: { email: { type: 'email' }, password: { type: 'password' } },
  }),
];
const code = provider('code', 'email-code' as never, { name: 'Email code' });

function page(over: Partial<SignInPageParams> = {}): string {
  return renderSignInPage(
    params({
      providers: [...builtIn, code],
      methodForms: { 'email-code': codeForm },
      signInUrl: `${AUTH}/signin`,
      ...over,
    }),
  );
}

describe('the sign-in page and the forms of methods the app added', () => {
  it('renders an added method’s form on both steps of identifier-first sign-in', () => {
    expect(page()).toContain('data-own="code"');
    const step2 = page({ step: 'methods', email: 'ada@example.test' });
    expect(step2).toContain('data-own="code"');
    expect(step2).toContain('data-form="credentials"');
  });

  it('hands the form its own error, and shows it nowhere else', () => {
    const html = page({ error: 'Verification', errorProvider: 'code' });
    const own = html.slice(html.indexOf('data-own="code"'));
    expect(own.slice(0, own.indexOf('</form>'))).toContain('data-error="Verification"');
    expect(html.match(/data-error="Verification"/g)).toHaveLength(1);
  });

  it('leaves out a provider of a type no method renders', () => {
    expect(page({ methodForms: {} })).not.toContain('data-own="code"');
  });
});
