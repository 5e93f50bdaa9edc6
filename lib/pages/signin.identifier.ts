// Identifier-first sign-in (issue 20): when several methods need an email address (magic link,
// credentials with an email field, passkeys with an email field), the page asks for the address
// once, then offers the methods that use it.
//
// Step 1 is a GET form to the sign-in page itself (`?step=methods&email=…&callbackUrl=…`), so it
// works without JavaScript, carries no CSRF token in a URL, and changes nothing. Step 2 is rendered
// by the server for any well-formed address the same way: it never tells whether an account exists.
// Its forms are the ordinary POST forms with the CSRF token.
import { escapeAttr, escapeHtml, safeUrl } from '../util/html-escape.js';
import { ERROR_ID, hiddenInputs, inputField, invalidAttrs, type FormError } from './form-fields.js';
import type { SignInPageParams, SignInPageProvider } from './page.types.js';
import { ENGLISH_MESSAGES, text, type PageMessages } from '../config/messages/page-messages.js';
import { isShown } from './signin.forms.js';

/** An address as typed: no spaces, control characters, double quotes or angle brackets; one `@` (an apostrophe, `o'brien@…`, is an address). */
const ADDRESS = /^[^\s@\p{Cc}<>"]{1,64}@[^\s@\p{Cc}<>"]{1,255}$/u;

/** The id of the step-1 email field. */
export const IDENTIFIER_FIELD_ID = 'signin-identifier';

/** What an identifier-first page shows. */
export interface IdentifierPlan {
  /** `email`: the address field (step 1); `methods`: the methods for `email` (step 2). */
  step: 'email' | 'methods';
  /** The address the methods are offered for (step 2). */
  email?: string;
  /** Step 1 came back with something that is not an address. */
  invalidEmail: boolean;
  /** The passkey provider offered in the address field's autofill (conditional UI), if any. */
  autofill?: SignInPageProvider;
  /** The providers that use the address, in the order of the configuration. */
  methods: SignInPageProvider[];
  /** Whether a provider's own button or form is on this step. */
  shown(provider: SignInPageProvider): boolean;
}

/** The field of a provider's form that holds the email address, if it has one. */
export function identifierField(provider: SignInPageProvider): string | undefined {
  if (provider.type === 'email') return 'email';
  const fields =
    provider.type === 'credentials'
      ? provider.credentials
      : provider.type === 'webauthn'
        ? provider.formFields
        : undefined;
  if (!fields) return undefined;
  return Object.entries(fields).find(
    ([name, input]) =>
      input.type !== 'hidden' && input.type !== 'password' && (name === 'email' || input.type === 'email'),
  )?.[0];
}

/** The identifier-first plan of the page, or `undefined` when fewer than two shown methods need an address. */
export function identifierFirst(p: SignInPageParams): IdentifierPlan | undefined {
  if (!p.signInUrl || !safeUrl(p.signInUrl)) return undefined;
  const methods = p.providers.filter((x) => isShown(x, p) && identifierField(x) !== undefined);
  if (methods.length < 2) return undefined;
  const typed = p.email?.trim();
  const valid = typed !== undefined && ADDRESS.test(typed);
  const step = valid && p.step !== 'email' ? 'methods' : 'email';
  const set = new Set(methods);
  return {
    step,
    email: valid ? typed : undefined,
    invalidEmail: p.step === 'methods' && !valid,
    autofill: methods.find((x) => x.type === 'webauthn' && x.enableConditionalUI),
    methods,
    shown: (x) => (step === 'methods' ? set.has(x) : !set.has(x)),
  };
}

/**
 * Step 1: the address field, posted (GET) back to the sign-in page; with passkeys, also a button
 * that signs in with a discoverable passkey, no address needed.
 */
export function identifierStep(p: SignInPageParams, plan: IdentifierPlan, hidden: string): string {
  const m = p.messages ?? ENGLISH_MESSAGES;
  const error: FormError | undefined = plan.invalidEmail
    ? {
        html: `<p class="error" id="${ERROR_ID}" role="alert" data-error="InvalidEmail">${escapeHtml(m['signIn.invalidEmail'])}</p>`,
      }
    : undefined;
  const passkey = plan.methods.find((x) => x.type === 'webauthn');
  const autofill = plan.autofill
    ? ` data-webauthn-autofill="${escapeAttr(plan.autofill.id)}" data-csrf-token="${escapeAttr(p.csrfToken)}"`
    : '';
  return [
    // The browser's own check stays on; the page's script shows its inline error instead of the
    // bubble (`data-invalid-message`), and the server answers an address it lets through the same way.
    `<form action="${escapeAttr(safeUrl(p.signInUrl)!)}" method="get" data-form="identifier"${autofill}>`,
    hiddenInputs({ callbackUrl: p.callbackUrl, step: 'methods' }),
    `<label for="${IDENTIFIER_FIELD_ID}">${escapeHtml(m['signIn.emailLabel'])}</label>`,
    `<input id="${IDENTIFIER_FIELD_ID}" name="email" type="email" autocomplete="${plan.autofill ? 'username webauthn' : 'username'}" inputmode="email" required data-invalid-message="${escapeAttr(m['signIn.invalidEmail'])}" placeholder="${escapeAttr(m['signIn.emailPlaceholder'])}" value="${escapeAttr(p.email ?? '')}"${invalidAttrs(error, true)}>`,
    error?.html ?? '',
    `<button type="submit" class="button">${escapeHtml(m['signIn.continue'])}</button>`,
    '</form>',
    passkey ? passkeyButton(passkey, hidden, m) : '',
  ].join('\n');
}

/** A passkey sign-in that needs no address: the browser offers this site's discoverable passkeys. */
function passkeyButton(provider: SignInPageProvider, hidden: string, m: PageMessages): string {
  return [
    `<form class="passkey" action="${escapeAttr(provider.callbackUrl)}" method="post" data-form="webauthn" data-webauthn-provider="${escapeAttr(provider.id)}">`,
    hidden,
    `<button type="submit" class="button button-secondary" data-webauthn-action="authenticate">${escapeHtml(m['signIn.passkey'])}</button>`,
    '<p class="error" role="alert" data-webauthn-error hidden></p>',
    `<noscript><p class="muted">${escapeHtml(m['signIn.passkeyNeedsJavaScript'])}</p></noscript>`,
    '</form>',
  ].join('\n');
}

/** The order of step 2: a password first (the person typing one expects it), then the link, then passkeys. */
const RANK: Partial<Record<SignInPageProvider['type'], number>> = { credentials: 0, email: 1, webauthn: 2 };

/**
 * Step 2: the address (with a way to change it), the first method as the one primary action, the
 * other methods as quiet link-style buttons under it, and passkey sign-up last, for new users.
 */
export function methodsStep(
  p: SignInPageParams,
  plan: IdentifierPlan,
  hidden: string,
  inline: (provider: SignInPageProvider) => FormError | undefined,
): string {
  const email = plan.email!;
  const m = p.messages ?? ENGLISH_MESSAGES;
  const back = new URL(safeUrl(p.signInUrl)!);
  back.searchParams.set('callbackUrl', p.callbackUrl);
  back.searchParams.set('email', email);
  back.searchParams.set('step', 'email');
  const forgot = forgotPasswordLink(p, email);
  const ordered = [...plan.methods].sort((a, b) => RANK[a.type]! - RANK[b.type]!);
  const failed = ordered.find((x) => inline(x));
  const forms = ordered.map((x, i) =>
    methodForm(x, email, hidden, m, i === 0, !failed && i === 0, inline(x), i === 0 ? forgot : undefined),
  );
  const passkey = ordered.find((x) => x.type === 'webauthn');
  return [
    `<p class="identity"><span class="visually-hidden">${escapeHtml(m['signIn.signingInAs'])} </span>` +
      `<strong data-email id="signin-address">${escapeHtml(email)}</strong> ` +
      `<a class="quiet" href="${escapeAttr(back.href)}" aria-describedby="signin-address">${escapeHtml(m['signIn.changeAddress'])}</a></p>`,
    forms[0],
    forms.length > 1
      ? `<div class="divider" aria-hidden="true">${escapeHtml(m['signIn.or'])}</div>\n<div class="alternatives">${forms.slice(1).join('\n')}</div>`
      : '',
    // Signing up with a passkey (a new user): offered, but not as one of the ways to sign in.
    passkey
      ? `<form class="new-here" action="${escapeAttr(passkey.callbackUrl)}" method="post" data-form="webauthn" data-webauthn-provider="${escapeAttr(passkey.id)}">` +
        `${hidden}<input type="hidden" name="email" value="${escapeAttr(email)}">` +
        `<span class="muted">${escapeHtml(m['signIn.newHere'])}</span> <button type="submit" class="link-button" data-webauthn-action="register">${escapeHtml(m['signIn.createPasskey'])}</button>` +
        '<p class="error" role="alert" data-webauthn-error hidden></p></form>'
      : '',
    `<p class="muted switch"><a href="${escapeAttr(back.href)}">${escapeHtml(m['signIn.switch'])}</a></p>`,
  ].join('\n');
}

/** The app's "forgot password" page (`pages.forgotPassword`), with the address typed, if it has one. */
function forgotPasswordLink(p: SignInPageParams, email: string): string | undefined {
  const page = safeUrl(p.forgotPasswordUrl);
  if (!page) return undefined;
  try {
    const url = new URL(page);
    url.searchParams.set('email', email);
    return url.href;
  } catch {
    return page;
  }
}

function methodForm(
  provider: SignInPageProvider,
  email: string,
  hidden: string,
  m: PageMessages,
  primary: boolean,
  focus: boolean,
  error?: FormError,
  forgot?: string,
): string {
  const button = primary ? 'button' : 'link-button';
  const address = (name: string) =>
    `<input type="text" name="${escapeAttr(name)}" value="${escapeAttr(email)}" autocomplete="username" hidden>`;
  const described = error ? ` aria-describedby="${ERROR_ID}" autofocus` : focus ? ' autofocus' : '';
  if (provider.type === 'credentials') {
    const id = identifierField(provider)!;
    let first = true;
    const reveal = { show: m['signIn.showPassword'], hide: m['signIn.hidePassword'] };
    const fields = Object.entries(provider.credentials!)
      .filter(([name]) => name !== id)
      .map(([name, input]) => {
        const own = first && input.type !== 'hidden';
        if (own) first = false;
        return inputField(provider, name, input, undefined, error, own, own && focus, reveal);
      });
    const hasPassword = Object.values(provider.credentials!).some((x) => x.type === 'password');
    return [
      `<form action="${escapeAttr(provider.callbackUrl)}" method="post" data-form="credentials">`,
      hidden,
      address(id),
      ...fields,
      error?.html ?? '',
      forgot && hasPassword
        ? `<p class="field-link"><a class="quiet" href="${escapeAttr(forgot)}">${escapeHtml(m['signIn.forgotPassword'])}</a></p>`
        : '',
      `<button type="submit" class="${button}">${escapeHtml(text(m, 'signIn.withProvider', { provider: provider.name }))}</button>`,
      '</form>',
    ].join('\n');
  }
  if (provider.type === 'email') {
    return [
      `<form action="${escapeAttr(provider.signinUrl)}" method="post" data-form="email">`,
      hidden,
      `<input type="hidden" name="email" value="${escapeAttr(email)}">`,
      error?.html ?? '',
      `<button type="submit" class="${button}"${described}>${escapeHtml(m['signIn.emailLink'])}</button>`,
      '</form>',
    ].join('\n');
  }
  // Passkeys: the script signs in with any passkey of this site (sign-up is offered apart, under the methods).
  return [
    `<form action="${escapeAttr(provider.callbackUrl)}" method="post" data-form="webauthn" data-webauthn-provider="${escapeAttr(provider.id)}">`,
    hidden,
    `<input type="hidden" name="email" value="${escapeAttr(email)}">`,
    `<button type="submit" class="${button}"${described}>${escapeHtml(m['signIn.passkey'])}</button>`,
    error
      ? error.html.replace('<p class="error"', '<p class="error" data-webauthn-error')
      : '<p class="error" role="alert" data-webauthn-error hidden></p>',
    `<noscript><p class="muted">${escapeHtml(m['signIn.passkeyNeedsJavaScript'])}</p></noscript>`,
    '</form>',
  ].join('\n');
}
