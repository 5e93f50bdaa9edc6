import { describe, expect, it } from '@jest/globals';
import { signInErrorMessage } from './signin.page.js';
import { WEBAUTHN_CLIENT_SCRIPT, webAuthnClientScript } from './webauthn-client.js';

describe('webAuthnClientScript', () => {
  it('serves the installed @simplewebauthn/browser bundle followed by the page script, as JavaScript', () => {
    const script = webAuthnClientScript();
    expect(script.contentType).toBe('text/javascript; charset=utf-8');
    expect(script.body.startsWith('/* [@simplewebauthn/browser@14.')).toBe(true);
    const [before, after] = WEBAUTHN_CLIENT_SCRIPT.split('/*MESSAGES*/{}');
    expect(script.body).toContain(before);
    expect(script.body.endsWith(after!)).toBe(true);
    // A passkey failure shows the sign-in page's sentence for its type, never the raw type.
    expect(script.body).toContain(
      `"WebAuthnVerificationError":${JSON.stringify(signInErrorMessage('WebAuthnVerificationError'))}`,
    );
    // Both halves parse (a syntax error would break every passkey button).
    expect(() => new Function(script.body)).not.toThrow();
    expect(webAuthnClientScript().body).toBe(script.body);
  });

  it('wires the documented data attributes and loads nothing from elsewhere', () => {
    for (const attr of [
      'data-webauthn-provider',
      'data-webauthn-action',
      'data-webauthn-conditional-ui',
      'data-webauthn-error',
      'data-webauthn-base-url',
      'data-callback-url',
    ]) {
      expect(WEBAUTHN_CLIENT_SCRIPT).toContain(attr);
    }
    // Requests go to the base URL the script was loaded from, never to an absolute address.
    expect(WEBAUTHN_CLIENT_SCRIPT).not.toMatch(/https?:\/\//);
  });
});
