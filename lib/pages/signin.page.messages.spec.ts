import { describe, expect, it } from '@jest/globals';
import * as errors from '../errors/auth.errors.js';
import { AUTH, params } from './fixtures/signin-page.fixture.js';
import { renderSignInPage, signInErrorMessage, signInErrorTypes } from './signin.page.js';

describe('renderSignInPage', () => {
  describe('error messages', () => {
    it.each([
      ['OAuthAccountNotLinked', 'sign in the way you did the first time'],
      ['CredentialsSignin', 'Check that the details you entered are correct'],
      ['EmailSignin', 'could not be sent'],
      ['OAuthCallbackError', 'cancelled or refused by the provider'],
      ['OAuthSignin', 'different account'],
      ['Callback', 'different account'],
      ['RateLimited', 'Too many attempts'],
      ['MissingCSRF', 'form expired'],
      ['InvalidCheck', 'start again'],
      ['WebAuthnVerificationError', 'passkey could not be verified'],
      ['MissingAdapterMethods', 'not fully configured'],
      ['AccountNotLinked', 'belongs to another account'],
    ])('%s → "%s"', (type, text) => {
      expect(signInErrorMessage(type)).toContain(text);
      const html = renderSignInPage(params({ error: type }));
      expect(html).toContain(`<div class="error" role="alert" data-error="${type}">`);
      expect(html).toContain(text);
    });

    // promise: pages.error-messages
    it('shows a generic sentence for unknown types and never echoes them', () => {
      for (const type of ['Nope', 'constructor', '__proto__', 'toString', '<script>alert(1)</script>']) {
        const html = renderSignInPage(params({ error: type }));
        expect(html).toContain('<p>Unable to sign in.</p>');
        expect(html).not.toContain(type);
      }
    });

    it('shows a CredentialsSignin code only when it is a plain identifier', () => {
      expect(renderSignInPage(params({ error: 'CredentialsSignin', code: 'invalid_totp' }))).toContain(
        'Reason: invalid_totp',
      );
      expect(renderSignInPage(params({ error: 'CredentialsSignin', code: 'credentials' }))).not.toContain('Reason:');
      expect(renderSignInPage(params({ error: 'CredentialsSignin', code: 'Call +1 555 now <b>' }))).not.toContain(
        'Reason:',
      );
      expect(renderSignInPage(params({ error: 'OAuthCallbackError', code: 'x' }))).not.toContain('Reason:');
    });

    it('shows no error box without an error', () => {
      expect(renderSignInPage(params())).not.toContain('data-error=');
      expect(renderSignInPage(params())).not.toContain('aria-invalid="true"');
    });

    // promise: pages.every-error-type-human
    it('has a human sentence for every sign-in error type of the catalogue, never the raw type', () => {
      const types = Object.values(errors)
        .filter(
          (c): c is typeof errors.SignInError => typeof c === 'function' && c.prototype instanceof errors.SignInError,
        )
        .map((c) => c.type);
      const guard: errors.GuardRejection[] = [
        'SessionRequired',
        'SessionExpired',
        'InvalidSession',
        'ReauthenticationRequired',
      ];
      // Types of the error page that a passkey or a callback can also send to the sign-in page.
      const alsoHere = ['WebAuthnVerificationError', 'Verification', 'AccessDenied', 'InvalidCheck', 'Configuration'];
      const all = [...new Set([...types, ...guard, ...alsoHere])];
      expect(types.length).toBeGreaterThanOrEqual(7);
      for (const type of all) {
        const message = signInErrorMessage(type);
        expect({ type, generic: message === 'Unable to sign in.' }).toEqual({ type, generic: false });
        expect(message).not.toContain(type);
        expect(message).toMatch(/^[A-Z].*\.$/);
        expect(signInErrorTypes()).toContain(type);
      }
    });

    it('shows "please sign in to continue" as a neutral notice, not an error', () => {
      const html = renderSignInPage(params({ error: 'SessionRequired' }));
      expect(html).toContain(
        '<div class="notice" role="status" data-error="SessionRequired"><p>Please sign in to continue.</p></div>',
      );
      expect(html).not.toContain('role="alert" data-error');
      expect(html).not.toContain('aria-invalid="true"');
    });

    it('puts the error inside the form that failed: message, aria-invalid, aria-describedby, focus, typed email kept', () => {
      const html = renderSignInPage(params({ error: 'EmailSignin', errorProvider: 'email', email: 'ada@example.com' }));
      const form = html.slice(html.indexOf(`action="${AUTH}/signin/email"`));
      const inside = form.slice(0, form.indexOf('</form>'));
      expect(inside).toMatch(
        /<input id="input-email-email" name="email" type="email"[^>]* value="ada@example.com" aria-invalid="true" aria-describedby="signin-error" autofocus>/,
      );
      expect(inside).toContain(
        '<p class="error" id="signin-error" role="alert" data-error="EmailSignin">The sign-in email could not be sent.',
      );
      // Not above the forms, and only once on the page.
      expect(html.match(/role="alert"/g)).toHaveLength(2); // the message, and the passkey form's empty slot
      expect(html.match(/aria-invalid="true"/g)).toHaveLength(1);
    });

    it('marks every field of a failed credentials form and focuses the first; the password stays empty', () => {
      const html = renderSignInPage(
        params({ error: 'CredentialsSignin', errorProvider: 'credentials', code: 'invalid_totp' }),
      );
      expect(html).toMatch(
        /name="username" type="text"[^>]*aria-invalid="true" aria-describedby="signin-error" autofocus>/,
      );
      expect(html).toMatch(/name="password" type="password"[^>]*aria-invalid="true" aria-describedby="signin-error">/);
      expect(html).not.toMatch(/name="password"[^>]*value=/);
      expect(html).toContain('Reason: invalid_totp');
    });

    it('puts an OAuth error under its button and a passkey error in the passkey form', () => {
      const oauth = renderSignInPage(params({ error: 'OAuthCallbackError', errorProvider: 'github' }));
      expect(oauth).toMatch(
        /<button type="submit" class="button oauth provider-0" data-mark="si:github" aria-describedby="signin-error" autofocus>/,
      );
      const passkey = renderSignInPage(
        params({ error: 'WebAuthnVerificationError', errorProvider: 'passkey', email: 'ada@example.com' }),
      );
      expect(passkey).toContain(
        '<p class="error" data-webauthn-error id="signin-error" role="alert" data-error="WebAuthnVerificationError">',
      );
      expect(passkey).toMatch(/value="ada@example.com" aria-invalid="true" aria-describedby="signin-error" autofocus>/);
    });

    it('shows the error above the forms when the provider named is not on the page', () => {
      for (const errorProvider of ['nope', '__proto__', undefined]) {
        const html = renderSignInPage(params({ error: 'CredentialsSignin', errorProvider }));
        expect(html).toContain('<div class="error" role="alert" data-error="CredentialsSignin">');
        expect(html).not.toContain('aria-invalid="true"');
      }
    });
  });
});
