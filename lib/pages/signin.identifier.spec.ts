import { describe, expect, it } from '@jest/globals';
import { parseTags, unlabeledInputs, visibleInputs } from '../../test/setup/html-checks.js';
import { AUTH, params, provider } from './fixtures/signin-page.fixture.js';
import type { SignInPageParams, SignInPageProvider } from './page.types.js';
import { renderSignInPage } from './signin.page.js';

/** The sample's methods: one OIDC provider, magic links, a password and passkeys (conditional UI). */
const methods: SignInPageProvider[] = [
  provider('demo-idp', 'oidc', { name: 'Demo IdP' }),
  provider('email', 'email', { name: 'Email' }),
  provider('credentials', 'credentials', {
    name: 'Password',
    credentials: {
      email: { label: 'Email', type: 'email', required: true },
      password: { label: 'Password', type: 'password', required: true },
    },
  }),
  provider('passkey', 'webauthn', {
    name: 'Passkey',
    formFields: { email: { label: 'Email', type: 'email' } },
    enableConditionalUI: true,
  }),
];

function page(over: Partial<SignInPageParams> = {}): string {
  return renderSignInPage(params({ providers: methods, signInUrl: `${AUTH}/signin`, ...over }));
}

/** The forms in document order with their method, action and own inputs. */
function forms(html: string) {
  const out: Array<{ attrs: Record<string, string>; inputs: Array<Record<string, string>> }> = [];
  for (const t of parseTags(html)) {
    if (t.name === 'form') out.push({ attrs: t.attrs, inputs: [] });
    else if (t.name === 'input' && out.length) out.at(-1)!.inputs.push(t.attrs);
  }
  return out;
}

describe('identifier-first sign-in', () => {
  // promise: pages.identifier-first
  it('step 1: the OAuth buttons, then one email field (GET back to the page, no CSRF token in the URL)', () => {
    const html = page();
    const all = forms(html);
    expect(all.map((f) => f.attrs['data-form'] ?? f.attrs.action)).toEqual([
      `${AUTH}/signin/demo-idp`,
      'identifier',
      'webauthn',
    ]);
    const step = all[1]!;
    expect(step.attrs).toMatchObject({ method: 'get', action: `${AUTH}/signin` });
    expect(step.inputs.map((i) => i.name)).toEqual(['callbackUrl', 'step', 'email']);
    expect(step.inputs.find((i) => i.name === 'step')!.value).toBe('methods');
    expect(step.inputs.find((i) => i.name === 'csrfToken')).toBeUndefined();
    expect(visibleInputs(html)).toEqual(['<input name="email">']);
    expect(unlabeledInputs(html)).toEqual([]);
    // The OAuth buttons come first, above the divider.
    expect(html.indexOf('/signin/demo-idp')).toBeLessThan(html.indexOf('class="divider"'));
    expect(html.indexOf('class="divider"')).toBeLessThan(html.indexOf('data-form="identifier"'));
  });

  it('step 1 has a passkey button that needs no address (a discoverable passkey)', () => {
    const form = forms(page()).find((f) => f.attrs['data-form'] === 'webauthn')!;
    expect(form.attrs['data-webauthn-provider']).toBe('passkey');
    expect(form.inputs.map((i) => i.name)).toEqual(['csrfToken', 'callbackUrl']);
    expect(page()).toContain('data-webauthn-action="authenticate">Sign in with a passkey</button>');
  });

  it('step 1 offers passkeys in the autofill of its email field (conditional UI) and loads the script', () => {
    const html = page();
    const field = parseTags(html).find((t) => t.name === 'input' && t.attrs.name === 'email')!;
    expect(field.attrs.autocomplete).toBe('username webauthn');
    const form = forms(html)[1]!.attrs;
    expect(form['data-webauthn-autofill']).toBe('passkey');
    expect(form['data-csrf-token']).toBe('csrf-123');
    expect(form['data-webauthn-provider']).toBeUndefined();
    expect(html).toContain(`<script src="${AUTH}/webauthn-client.js" defer></script>`);
    // Without conditional UI: a plain username field, no autofill offer.
    const plain = page({ providers: methods.map((m) => ({ ...m, enableConditionalUI: false })) });
    expect(plain).toContain('autocomplete="username" inputmode="email"');
    expect(plain).not.toContain('data-webauthn-autofill');
  });

  it('step 2: the address, then a password form (focused), an email-me-a-link form and a passkey form, all with CSRF', () => {
    const html = page({ email: 'ada@example.test', step: 'methods' });
    const all = forms(html);
    // The last is passkey sign-up, apart from the ways to sign in.
    expect(all.map((f) => f.attrs['data-form'])).toEqual(['credentials', 'email', 'webauthn', 'webauthn']);
    for (const f of all) {
      expect(f.attrs.method).toBe('post');
      expect(f.inputs).toContainEqual({ type: 'hidden', name: 'csrfToken', value: 'csrf-123' });
      expect(f.inputs.find((i) => i.name === 'email')!.value).toBe('ada@example.test');
    }
    expect(all[0]!.attrs.action).toBe(`${AUTH}/callback/credentials`);
    expect(all[1]!.attrs.action).toBe(`${AUTH}/signin/email`);
    expect(visibleInputs(html)).toEqual(['<input name="password">']);
    expect(html).toMatch(/name="password" type="password"[^>]* autofocus>/);
    expect(html).toContain('<strong data-email id="signin-address">ada@example.test</strong>');
    expect(html).toContain('Email me a sign-in link');
    // No OAuth button on step 2; a link back to step 1, the address pre-filled.
    expect(html).not.toContain('/signin/demo-idp');
    const back = parseTags(html).find((t) => t.name === 'a')!.attrs.href!;
    expect(Object.fromEntries(new URL(back).searchParams)).toEqual({
      callbackUrl: 'http://127.0.0.1:3000/private',
      email: 'ada@example.test',
      step: 'email',
    });
    expect(unlabeledInputs(html)).toEqual([]);
  });

  // promise: pages.step-two
  it('step 2 has one primary action: the other methods are link-style, sign-up apart, the address changeable', () => {
    const html = page({ email: 'ada@example.test', step: 'methods' });
    const buttons = parseTags(html).filter((t) => t.name === 'button');
    expect(buttons.filter((b) => b.attrs.class === 'button').length).toBe(1);
    expect(html).toMatch(/<button type="submit" class="button">Sign in with Password<\/button>/);
    const alternatives = html.slice(html.indexOf('<div class="alternatives">'), html.indexOf('class="new-here"'));
    expect(alternatives).toContain('<button type="submit" class="link-button">Email me a sign-in link</button>');
    expect(alternatives).toContain('<button type="submit" class="link-button">Sign in with a passkey</button>');
    expect(alternatives).not.toContain('Create a passkey');
    // Sign-up with a passkey is a quiet line after the methods, not one of them.
    expect(html).toMatch(
      /<form class="new-here"[^>]*data-webauthn-provider="passkey">.*<span class="muted">New here\?<\/span> <button type="submit" class="link-button" data-webauthn-action="register">Create a passkey<\/button>/,
    );
    // The address with a control to change it, which names the address in its description.
    expect(html).toMatch(/<a class="quiet" href="[^"]+step&#61;email" aria-describedby="signin-address">Change<\/a>/);
    // The password can be shown (the toggle appears with the script), and no forgot link without the page.
    expect(html).toMatch(
      /<div class="label-row"><label for="input-credentials-password">Password<\/label><button type="button" class="link-button" data-reveal="input-credentials-password" data-hide="Hide password" aria-controls="input-credentials-password" hidden>Show password<\/button><\/div>/,
    );
    expect(html).not.toContain('Forgot password?');
  });

  it('step 2 links "Forgot password?" to the app\'s page with the address, under the password', () => {
    const html = page({
      email: 'ada@example.test',
      step: 'methods',
      forgotPasswordUrl: 'http://127.0.0.1:3000/forgot?from=signin',
    });
    const credentials = html.slice(html.indexOf('data-form="credentials"'), html.indexOf('data-form="email"'));
    expect(credentials).toContain(
      '<p class="field-link"><a class="quiet" href="http://127.0.0.1:3000/forgot?from&#61;signin&amp;email&#61;ada%40example.test">Forgot password?</a></p>',
    );
    expect(credentials.indexOf('Forgot password?')).toBeGreaterThan(credentials.indexOf('name="password"'));
    expect(page({ email: 'a@b.test', step: 'methods', forgotPasswordUrl: 'javascript:alert(1)' })).not.toContain(
      'Forgot password?',
    );
  });

  it('step 2 is the same for every address: it never tells whether an account exists', () => {
    const a = page({ email: 'known@example.test', step: 'methods' });
    const b = page({ email: 'nobody@example.test', step: 'methods' });
    expect(a.replace(/known(@|%40)/g, 'X$1')).toBe(b.replace(/nobody(@|%40)/g, 'X$1'));
  });

  it('step 1 again with ?step=email, the address pre-filled', () => {
    const html = page({ email: 'ada@example.test', step: 'email' });
    expect(forms(html).map((f) => f.attrs['data-form'] ?? 'oauth')).toEqual(['oauth', 'identifier', 'webauthn']);
    expect(html).toContain('value="ada@example.test"');
  });

  it('a step-2 request with no address or a malformed one: step 1 with the error under the field', () => {
    for (const email of [undefined, '', 'not an address', 'a@b@c', '<x>@y']) {
      const html = page({ email, step: 'methods' });
      expect(forms(html).map((f) => f.attrs['data-form'] ?? 'oauth')).toEqual(['oauth', 'identifier', 'webauthn']);
      expect(html).toContain('data-error="InvalidEmail"');
      expect(html).toMatch(/name="email"[^>]*aria-invalid="true" aria-describedby="signin-error" autofocus>/);
      expect(html).not.toContain('<x>');
    }
  });

  it("step 2 for an address with an apostrophe (o'brien@…, which the browser's check accepts): shown escaped, sent back in every form", () => {
    const html = page({ email: "o'brien@example.test", step: 'methods' });
    expect(html).not.toContain('data-error="InvalidEmail"');
    expect(html).toContain('<strong data-email id="signin-address">o&#39;brien@example.test</strong>');
    for (const f of forms(html)) expect(f.inputs.find((i) => i.name === 'email')!.value).toBe("o'brien@example.test");
  });

  it("step 1 keeps the browser's own check and gives the field the page's inline message for it", () => {
    const html = page();
    const identifier = forms(html).find((f) => f.attrs['data-form'] === 'identifier')!;
    expect(identifier.attrs).not.toHaveProperty('novalidate');
    expect(html).toMatch(
      /<input id="signin-identifier" name="email" type="email"[^>]* required data-invalid-message="Enter a valid email address, like name@example.com." /,
    );
  });

  it('a failed sign-in comes back to step 2 with the error in the form that failed', () => {
    const html = page({ email: 'ada@example.test', error: 'CredentialsSignin', errorProvider: 'credentials' });
    const credentials = html.slice(html.indexOf('data-form="credentials"'), html.indexOf('data-form="email"'));
    expect(credentials).toContain('data-error="CredentialsSignin"');
    expect(credentials).toMatch(/name="password"[^>]*aria-invalid="true" aria-describedby="signin-error" autofocus>/);
    expect(html.match(/autofocus/g)).toHaveLength(1);
    const link = page({ email: 'ada@example.test', error: 'EmailSignin', errorProvider: 'email' });
    const email = link.slice(link.indexOf('data-form="email"'), link.indexOf('data-form="webauthn"'));
    expect(email).toContain('data-error="EmailSignin"');
    expect(email).toContain('aria-describedby="signin-error" autofocus>Email me a sign-in link');
  });

  it('an error of a form not on this step goes above the forms', () => {
    const html = page({ error: 'OAuthCallbackError', errorProvider: 'credentials' });
    expect(html).toContain('<div class="error" role="alert" data-error="OAuthCallbackError">');
  });

  it('only with two or more methods that need an address, and only with the page URL', () => {
    const one = renderSignInPage(
      params({ providers: [methods[0]!, methods[1]!], signInUrl: `${AUTH}/signin`, email: 'ada@example.test' }),
    );
    expect(one).not.toContain('data-form="identifier"');
    expect(one).toContain(`action="${AUTH}/signin/email"`);
    expect(renderSignInPage(params({ providers: methods }))).not.toContain('data-form="identifier"');
    // A credentials provider without an email field keeps its own form on step 1.
    const username = provider('login', 'credentials', {
      credentials: { username: { label: 'Username' }, password: { label: 'Password', type: 'password' } },
    });
    const mixed = page({ providers: [...methods, username] });
    expect(forms(mixed).map((f) => f.attrs['data-form'] ?? 'oauth')).toEqual([
      'oauth',
      'identifier',
      'webauthn',
      'credentials',
    ]);
  });
});
