// The parts of the sign-in page: a provider's button or form, and the error message of a form.
import type { CredentialInput } from '../methods/credentials/credentials.types.js';
import { escapeAttr, escapeHtml, safeUrl } from '../util/html-escape.js';
import { providerButtonLook, type ProviderButtonColors } from './provider-mark.js';
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

/**
 * An OAuth provider's button: its mark and colours from {@link providerButtonLook} (a `style.logo`
 * replaces the mark). `used` holds the marks already on the page, so no two buttons share one.
 */
export function oauthButton(
  provider: SignInPageProvider,
  index: number,
  hidden: string,
  css: string[],
  images: string[],
  error?: FormError,
  m: PageMessages = ENGLISH_MESSAGES,
  used: Set<string> = new Set(),
): string {
  const look = providerButtonLook(provider, used);
  // Classes by position: a provider id never reaches the style sheet; the colours are hex values.
  const vars = (s: 'l' | 'd', c: ProviderButtonColors) =>
    `--${s}-bg:${c.background};--${s}-fg:${c.text};--${s}-border:${c.border};--${s}-mark:${c.mark}`;
  css.push(`.provider-${index}{${vars('l', look.light)};${vars('d', look.dark)}}`);
  const logo = safeUrl(provider.style?.logo, true);
  if (logo) images.push(logo);
  return [
    `<form class="provider" action="${escapeAttr(provider.signinUrl)}" method="post">`,
    hidden,
    `<button type="submit" class="button oauth provider-${index}" data-mark="${escapeAttr(look.markKey)}"${error ? ` aria-describedby="${ERROR_ID}" autofocus` : ''}>`,
    logo ? `<img src="${escapeAttr(logo)}" alt="" width="20" height="20">` : look.mark,
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
    // The browser's own check stays on (it works without JavaScript); the page's script replaces its
    // bubble with the inline error below (`data-invalid-message`), as the server's answer would be.
    `<form action="${escapeAttr(provider.signinUrl)}" method="post">`,
    hidden,
    `<label for="${id}">${escapeHtml(m['signIn.emailLabel'])}</label>`,
    `<input id="${id}" name="email" type="email" autocomplete="email" inputmode="email" required data-invalid-message="${escapeAttr(m['signIn.invalidEmail'])}" placeholder="${escapeAttr(m['signIn.emailPlaceholder'])}" value="${escapeAttr(p.email ?? '')}"${invalidAttrs(error, true)}>`,
    error?.html ?? '',
    `<button type="submit" class="button">${escapeHtml(text(m, 'signIn.withProvider', { provider: provider.name }))}</button>`,
    '</form>',
  ].join('\n');
}

/**
 * The credentials form: one labelled input per field, posted to the provider's callback URL; a
 * password field has a show/hide button, and a "Forgot password?" link when the app has that page.
 */
export function fieldsForm(
  provider: SignInPageProvider,
  fields: Record<string, CredentialInput>,
  hidden: string,
  kind: string,
  buttonText: string,
  email?: string,
  error?: FormError,
  m: PageMessages = ENGLISH_MESSAGES,
  forgotPassword?: string,
): string {
  let first = true;
  const reveal = { show: m['signIn.showPassword'], hide: m['signIn.hidePassword'] };
  return [
    `<form action="${escapeAttr(provider.callbackUrl)}" method="post" data-form="${escapeAttr(kind)}">`,
    hidden,
    ...Object.entries(fields).map(([name, input]) => {
      // The typed address comes back after a failure; a password never does.
      const prefill = name === 'email' && input.type !== 'password' ? email : undefined;
      const focus = first && input.type !== 'hidden';
      if (focus) first = false;
      return inputField(provider, name, input, prefill, error, focus, false, reveal);
    }),
    error?.html ?? '',
    forgotPassword && Object.values(fields).some((x) => x.type === 'password')
      ? `<p class="field-link"><a class="quiet" href="${escapeAttr(forgotPassword)}">${escapeHtml(m['signIn.forgotPassword'])}</a></p>`
      : '',
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
          `<button type="submit" class="link-button" data-webauthn-action="register">${escapeHtml(m['signIn.createPasskey'])}</button>`,
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
