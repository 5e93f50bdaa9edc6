// The parts of the sign-in page: a provider's button or form, and the error message of a form.
import type { CredentialInput } from '../methods/credentials/credentials.types.js';
import { escapeAttr, escapeHtml, readableTextColor, safeCssColor, safeUrl } from '../util/html-escape.js';
import { providerMark } from './provider-mark.js';
import { ERROR_ID, fieldId, inputField, invalidAttrs, type FormError } from './form-fields.js';
import type { SignInPageParams, SignInPageProvider } from './page.types.js';
import { ENGLISH_MESSAGES, html, text, type PageMessages } from '../config/messages/page-messages.js';
import { signInErrorMessage, stableErrorType } from './signin.messages.js';

/** Whether the page shows a form or button for this provider. */
export function isShown(provider: SignInPageProvider, p: SignInPageParams): boolean {
  switch (provider.type) {
    case 'oauth':
    case 'oidc':
    case 'email':
      return true;
    case 'credentials':
      return Boolean(provider.credentials && Object.keys(provider.credentials).length);
    case 'webauthn':
      return Boolean(p.webauthnScriptUrl && safeUrl(p.webauthnScriptUrl));
    default:
      // A method the app added shows the form it contributes.
      return typeof p.methodForms?.[provider.type] === 'function';
  }
}

/**
 * The message of an `?error=` type: the human sentence, with the stable type in `data-error`.
 * `div` is the box above the forms; `p` the message inside the form that failed.
 */
export function errorMessage(
  type: string,
  code: string | undefined,
  tag: 'div' | 'p',
  m: PageMessages = ENGLISH_MESSAGES,
): string {
  const message = escapeHtml(signInErrorMessage(type, m));
  // A code is the app's own identifier (CredentialsSignin subclasses); show it only if it looks like one.
  const showCode = type === 'CredentialsSignin' && code && code !== 'credentials' && /^[\w.-]{1,64}$/.test(code);
  const reason = showCode ? html(m, 'signIn.reason', { code: escapeHtml(code) }) : '';
  // Unknown types are not echoed, not even in the attribute.
  const stable = stableErrorType(type);
  if (tag === 'p') {
    return `<p class="error" id="${ERROR_ID}" role="alert" data-error="${escapeAttr(stable)}">${message}${reason ? `<br><span class="muted">${reason}</span>` : ''}</p>`;
  }
  return `<div class="error" role="alert" data-error="${escapeAttr(stable)}"><p>${message}</p>${reason ? `<p class="muted">${reason}</p>` : ''}</div>`;
}

export function oauthButton(
  provider: SignInPageProvider,
  index: number,
  hidden: string,
  css: string[],
  images: string[],
  error?: FormError,
  m: PageMessages = ENGLISH_MESSAGES,
): string {
  const bg = safeCssColor(provider.style?.brandColor) ?? safeCssColor(provider.style?.bg);
  if (bg) {
    const text = safeCssColor(provider.style?.text) ?? readableTextColor(bg);
    // Classes by position: a provider id never reaches the style sheet.
    css.push(`.provider-${index}{background:${bg};color:${text};border-color:var(--border);--mark-cut:${bg}}`);
  }
  const logo = safeUrl(provider.style?.logo, true);
  if (logo) images.push(logo);
  return [
    `<form class="provider" action="${escapeAttr(provider.signinUrl)}" method="post">`,
    hidden,
    `<button type="submit" class="button${bg ? ` provider-${index}` : ''}"${error ? ` aria-describedby="${ERROR_ID}" autofocus` : ''}>`,
    logo ? `<img src="${escapeAttr(logo)}" alt="" width="24" height="24">` : providerMark(provider.name),
    `<span>${escapeHtml(text(m, 'signIn.withProvider', { provider: provider.name }))}</span>`,
    '</button>',
    error?.html ?? '',
    '</form>',
  ].join('');
}

export function emailForm(
  provider: SignInPageProvider,
  p: SignInPageParams,
  hidden: string,
  error?: FormError,
): string {
  const id = fieldId(provider, 'email');
  const m = p.messages ?? ENGLISH_MESSAGES;
  return [
    // `novalidate`: the server judges the address and answers with the page's own inline error and
    // `aria-invalid`; the browser's bubble (in its own language, over the buttons) would stop the form.
    `<form action="${escapeAttr(provider.signinUrl)}" method="post" novalidate>`,
    hidden,
    `<label for="${id}">${escapeHtml(m['signIn.emailLabel'])}</label>`,
    `<input id="${id}" name="email" type="email" autocomplete="email" inputmode="email" required placeholder="${escapeAttr(m['signIn.emailPlaceholder'])}" value="${escapeAttr(p.email ?? '')}"${invalidAttrs(error, true)}>`,
    error?.html ?? '',
    `<button type="submit" class="button">${escapeHtml(text(m, 'signIn.withProvider', { provider: provider.name }))}</button>`,
    '</form>',
  ].join('\n');
}

/** The credentials form: one labelled input per field, posted to the provider's callback URL. */
export function fieldsForm(
  provider: SignInPageProvider,
  fields: Record<string, CredentialInput>,
  hidden: string,
  kind: string,
  buttonText: string,
  email?: string,
  error?: FormError,
): string {
  let first = true;
  return [
    `<form action="${escapeAttr(provider.callbackUrl)}" method="post" data-form="${escapeAttr(kind)}">`,
    hidden,
    ...Object.entries(fields).map(([name, input]) => {
      // The typed address comes back after a failure; a password never does.
      const prefill = name === 'email' && input.type !== 'password' ? email : undefined;
      const focus = first && input.type !== 'hidden';
      if (focus) first = false;
      return inputField(provider, name, input, prefill, error, focus);
    }),
    error?.html ?? '',
    `<button type="submit" class="button">${escapeHtml(buttonText)}</button>`,
    '</form>',
  ].join('\n');
}

/**
 * The passkey form. It works only with the script (the browser's WebAuthn API is JavaScript-only),
 * so a `<noscript>` says so; the other forms on the page keep working without it.
 */
export function passkeyForm(
  provider: SignInPageProvider,
  p: SignInPageParams,
  hidden: string,
  error?: FormError,
): string {
  const m = p.messages ?? ENGLISH_MESSAGES;
  const fields = { ...(provider.formFields ?? {}) };
  if (provider.enableConditionalUI) {
    // Conditional UI needs `webauthn` in the autocomplete token list of the field the browser fills.
    for (const [name, input] of Object.entries(fields)) {
      const ac = typeof input.autocomplete === 'string' ? input.autocomplete : '';
      if (name === 'email' && !/\bwebauthn\b/.test(ac))
        fields[name] = { ...input, autocomplete: `${ac || 'username'} webauthn` };
    }
  }
  return [
    // The script wires forms by these attributes (see lib/pages/webauthn-client.ts); the form's
    // csrfToken, callbackUrl and email inputs are what it sends.
    `<form action="${escapeAttr(provider.callbackUrl)}" method="post" data-form="webauthn" data-webauthn-provider="${escapeAttr(provider.id)}"` +
      `${provider.enableConditionalUI ? ' data-webauthn-conditional-ui' : ''}>`,
    hidden,
    ...Object.entries(fields).map(([name, input]) =>
      inputField(provider, name, input, name === 'email' ? p.email : undefined, error, name === 'email'),
    ),
    `<button type="submit" class="button">${escapeHtml(text(m, 'signIn.withProvider', { provider: provider.name }))}</button>`,
    // Registration is its own button: the server never decides it from the address typed (that
    // would tell anyone which addresses have an account), so the user says it.
    ...(Object.hasOwn(fields, 'email')
      ? [
          `<p class="muted">${escapeHtml(m['signIn.passkeyNewHere'])}</p>`,
          `<button type="submit" class="button button-secondary" data-webauthn-action="register">${escapeHtml(m['signIn.createPasskey'])}</button>`,
        ]
      : []),
    // The script writes its errors here; a failure the server reported is already in it.
    error
      ? error.html.replace('<p class="error"', '<p class="error" data-webauthn-error')
      : '<p class="error" role="alert" data-webauthn-error hidden></p>',
    `<noscript><p class="muted">${escapeHtml(text(m, 'signIn.needsJavaScript', { provider: provider.name }))}</p></noscript>`,
    '</form>',
  ].join('\n');
}
