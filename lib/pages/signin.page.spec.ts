import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { externalResources, parseTags, unlabeledInputs, visibleInputs } from '../../test/setup/html-checks.js';
import { AUTH, params, provider } from './fixtures/signin-page.fixture.js';
import { BUSY_SCRIPT } from './page-layout.js';
import { renderSignInPage } from './signin.page.js';

function inlineScriptHash(): string {
  return `sha256-${createHash('sha256').update(BUSY_SCRIPT, 'utf8').digest('base64')}`;
}

/** Forms with their own fields, in document order. */
function forms(html: string) {
  const tags = parseTags(html);
  const result: Array<{ action: string; inputs: Array<Record<string, string>>; attrs: Record<string, string> }> = [];
  for (const t of tags) {
    if (t.name === 'form') result.push({ action: t.attrs.action!, inputs: [], attrs: t.attrs });
    else if (t.name === 'input' && result.length) result.at(-1)!.inputs.push(t.attrs);
  }
  return result;
}

describe('renderSignInPage', () => {
  // promise: pages.self-contained
  it('is a full, self-contained, responsive HTML document', () => {
    const html = renderSignInPage(params());
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(html).toContain('<title>Sign in</title>');
    expect(externalResources(html, ['http://127.0.0.1:3000'])).toEqual([]);
    expect(externalResources(html)).toEqual([`${AUTH}/webauthn-client.js`]);
    expect(html).not.toMatch(/<link\b/i);
  });

  it('shows one POST form per OAuth/OIDC provider with the CSRF token and callback URL', () => {
    const html = renderSignInPage(params());
    const oauth = forms(html).filter(
      (f) => f.action.includes('/signin/github') || f.action.includes('/signin/demo-idp'),
    );
    expect(oauth.map((f) => f.action)).toEqual([`${AUTH}/signin/github`, `${AUTH}/signin/demo-idp`]);
    for (const f of oauth) {
      expect(f.attrs.method).toBe('post');
      expect(f.inputs).toEqual([
        { type: 'hidden', name: 'csrfToken', value: 'csrf-123' },
        { type: 'hidden', name: 'callbackUrl', value: 'http://127.0.0.1:3000/private' },
      ]);
    }
    expect(html).toContain('<span>Sign in with GitHub</span>');
    expect(html).toContain('<span>Sign in with Demo IdP</span>');
  });

  it('puts every form in real buttons with the CSRF token and callback URL', () => {
    const html = renderSignInPage(params());
    const all = forms(html);
    expect(all).toHaveLength(5);
    for (const f of all) {
      expect(f.inputs).toContainEqual({ type: 'hidden', name: 'csrfToken', value: 'csrf-123' });
      expect(f.inputs).toContainEqual({ type: 'hidden', name: 'callbackUrl', value: 'http://127.0.0.1:3000/private' });
    }
    // Every button submits, but the password's show/hide toggle (shown by the script, hidden without it).
    const buttons = parseTags(html).filter((t) => t.name === 'button');
    expect(buttons.filter((b) => b.attrs.type !== 'submit')).toEqual([
      expect.objectContaining({
        attrs: expect.objectContaining({ type: 'button', 'data-reveal': expect.any(String) }),
      }),
    ]);
    expect(buttons.find((b) => b.attrs['data-reveal'])!.attrs).toHaveProperty('hidden');
    expect(html).not.toMatch(/<(div|span|a)[^>]*onclick/i);
  });

  it('gives a provider button its light and dark colours and shows a logo only when given', () => {
    const withLogo = renderSignInPage(
      params({
        providers: [provider('x', 'oauth', { style: { brandColor: '#ffffff', logo: 'data:image/png;base64,AAAA' } })],
      }),
    );
    // A neutral button; white has no contrast on it, so the mark takes the text colour.
    expect(withLogo).toContain('.provider-0{--l-bg:#ffffff;--l-fg:#18181b;--l-border:#d4d4d8;--l-mark:#18181b;');
    expect(withLogo).toContain('<img src="data:image/png;base64,AAAA" alt="" width="20" height="20">');
    const noLogo = renderSignInPage(params({ providers: [provider('x', 'oauth')] }));
    expect(parseTags(noLogo).filter((t) => t.name === 'img')).toEqual([]);
    expect(noLogo).toContain('<svg class="mark"');
  });

  it('allows the origin of a configured provider logo, and nothing else, in the CSP', () => {
    const html = renderSignInPage(
      params({ providers: [provider('x', 'oauth', { style: { logo: 'https://cdn.example.com/x.svg' } })] }),
    );
    expect(externalResources(html, ['https://cdn.example.com'])).toEqual([]);
    const csp = parseTags(html).find((t) => t.name === 'meta' && t.attrs['http-equiv'] === 'Content-Security-Policy')!
      .attrs.content!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain('img-src https://cdn.example.com');
    // The only script is the inline busy-state script, allowed by its hash.
    expect(csp).toContain(`script-src '${inlineScriptHash()}';`);
    expect(csp).not.toContain('connect-src');
  });

  it('includes the busy-state script inline, and only it', () => {
    const html = renderSignInPage(params({ providers: [provider('x', 'oauth')] }));
    expect(html).toContain(`<script>${BUSY_SCRIPT}</script>`);
    expect(parseTags(html).filter((t) => t.name === 'script')).toHaveLength(1);
  });

  it('renders the email form with a labelled email input, pre-filled', () => {
    const html = renderSignInPage(params({ email: 'ann@example.com' }));
    const email = forms(html).find((f) => f.action === `${AUTH}/signin/email`)!;
    expect(email.inputs.find((i) => i.name === 'email')).toMatchObject({
      id: 'input-email-email',
      type: 'email',
      autocomplete: 'email',
      value: 'ann@example.com',
    });
    expect(html).toContain('<label for="input-email-email">Email</label>');
    expect(html).toContain('Sign in with Email</button>');
  });

  it("keeps the browser's check on the email form (no `novalidate`), with the page's message for its script", () => {
    const html = renderSignInPage(params({ email: 'not an address' }));
    const email = forms(html).find((f) => f.action === `${AUTH}/signin/email`)!;
    expect(email.attrs).not.toHaveProperty('novalidate');
    expect(html).toContain('data-invalid-message="Enter a valid email address, like name@example.com."');
    expect(BUSY_SCRIPT).toContain('addEventListener("invalid"');
  });

  it('builds the credentials form from the provider inputs, posted to its callback URL', () => {
    const html = renderSignInPage(params());
    const creds = forms(html).find((f) => f.action === `${AUTH}/callback/credentials`)!;
    expect(creds.inputs.filter((i) => i.type !== 'hidden')).toEqual([
      { id: 'input-credentials-username', name: 'username', type: 'text', autocomplete: 'username', required: '' },
      {
        id: 'input-credentials-password',
        name: 'password',
        type: 'password',
        autocomplete: 'current-password',
        required: '',
      },
    ]);
    expect(html).toContain('<label for="input-credentials-username">Username</label>');
    expect(html).toContain('<label for="input-credentials-password">Password</label>');
  });

  it('passes safe input attributes, falls back to the field name as label, and refuses unknown input types', () => {
    const html = renderSignInPage(
      params({
        providers: [
          provider('c', 'credentials', {
            credentials: {
              otp: { type: 'number', placeholder: '123456', maxLength: 6, inputMode: 'numeric' },
              weird: { type: 'image', onfocus: 'alert(1)', src: 'https://evil.example/x.png' } as never,
            },
          }),
        ],
      }),
    );
    const inputs = forms(html)[0]!.inputs.filter((i) => i.type !== 'hidden');
    expect(inputs[0]).toEqual({
      id: 'input-c-otp',
      name: 'otp',
      type: 'number',
      placeholder: '123456',
      maxlength: '6',
      inputmode: 'numeric',
      autocomplete: 'one-time-code',
    });
    expect(inputs[1]).toEqual({ id: 'input-c-weird', name: 'weird', type: 'text' });
    expect(html).toContain('<label for="input-c-otp">otp</label>');
  });

  it('leaves out a credentials provider without inputs', () => {
    const html = renderSignInPage(params({ providers: [provider('c', 'credentials')] }));
    expect(forms(html)).toEqual([]);
    expect(html).toContain('No sign-in method is configured.');
  });

  it('renders the passkey form for the passkey script, with a note for browsers without JavaScript', () => {
    const html = renderSignInPage(params());
    const passkey = forms(html).find((f) => f.action === `${AUTH}/callback/passkey`)!;
    expect(passkey.attrs).toMatchObject({ 'data-webauthn-provider': 'passkey', method: 'post' });
    expect(passkey.attrs['data-webauthn-conditional-ui']).toBeUndefined();
    expect(html).toContain('<p class="error" role="alert" data-webauthn-error hidden></p>');
    expect(passkey.inputs.find((i) => i.name === 'email')).toMatchObject({
      type: 'email',
      autocomplete: 'username webauthn',
    });
    // The first button (Enter) signs in; registering is asked for by its own button, never inferred
    // from the address.
    const buttons = parseTags(html)
      .filter((t) => t.name === 'button' && t.attrs.type === 'submit')
      .slice(-2);
    expect(buttons.map((b) => b.attrs['data-webauthn-action'])).toEqual([undefined, 'register']);
    expect(html).toContain('<button type="submit" class="button">Sign in with Passkey</button>');
    expect(html).toContain(
      '<button type="submit" class="link-button" data-webauthn-action="register">Create a passkey</button>',
    );
    expect(html).toContain(`<script src="${AUTH}/webauthn-client.js" defer></script>`);
    expect(html).toContain('<noscript>');
    const csp = parseTags(html).find((t) => t.attrs['http-equiv'] === 'Content-Security-Policy')!.attrs.content!;
    expect(csp).toContain(`script-src '${inlineScriptHash()}' http://127.0.0.1:3000`);
    expect(csp).toContain("connect-src 'self'");
  });

  it('adds the webauthn autocomplete token for conditional UI', () => {
    const html = renderSignInPage(
      params({
        providers: [
          provider('passkey', 'webauthn', {
            enableConditionalUI: true,
            formFields: { email: { label: 'Email', type: 'email' } },
          }),
        ],
      }),
    );
    const email = forms(html)[0]!.inputs.find((i) => i.name === 'email')!;
    expect(email.autocomplete).toBe('username webauthn');
    expect(forms(html)[0]!.attrs['data-webauthn-conditional-ui']).toBe('');
  });

  it('shows no passkey form and loads no script without the script URL', () => {
    const html = renderSignInPage(params({ webauthnScriptUrl: undefined }));
    expect(html.replace(`<script>${BUSY_SCRIPT}</script>`, '')).not.toContain('<script');
    expect(forms(html).some((f) => f.action.endsWith('/callback/passkey'))).toBe(false);
  });

  // promise: pages.labels
  it('labels every visible input', () => {
    const html = renderSignInPage(params({ email: 'a@b.c', error: 'CredentialsSignin' }));
    expect(visibleInputs(html)).toEqual([
      '<input name="email">',
      '<input name="username">',
      '<input name="password">',
      '<input name="email">',
    ]);
    expect(unlabeledInputs(html)).toEqual([]);
  });
});
