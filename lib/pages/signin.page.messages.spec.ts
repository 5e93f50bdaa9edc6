import { describe, expect, it } from '@jest/globals';
import { params } from './fixtures/signin-page.fixture.js';
import { renderSignInPage, signInErrorMessage } from './signin.page.js';

describe('renderSignInPage', () => {
  describe('error messages', () => {
    it.each([
      ['OAuthAccountNotLinked', 'sign in the way you did the first time'],
      ['CredentialsSignin', 'Check that the details you entered are correct'],
      ['EmailSignin', 'could not be sent'],
      ['SessionRequired', 'Please sign in to see this page'],
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
      expect(html).toContain('<div class="error" role="alert">');
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
      expect(renderSignInPage(params())).not.toContain('<div class="error" role="alert">');
    });
  });
});
