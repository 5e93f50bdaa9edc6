// The form fields of the sign-in page: labelled inputs, hidden inputs, and the attributes that tie a
// failed form's fields to its error message.
import type { CredentialInput } from '../methods/credentials/credentials.types.js';
import { escapeAttr, escapeHtml } from '../util/html-escape.js';
import type { SignInPageProvider } from './page.types.js';

/** Input types a form may render; anything else becomes `text`. */
const INPUT_TYPES = new Set(['text', 'email', 'password', 'number', 'tel', 'url', 'search', 'date', 'hidden']);

/** Attributes passed through from a provider's input definition (primitive values only). */
const PASSED_ATTRIBUTES: Record<string, string> = {
  placeholder: 'placeholder',
  autocomplete: 'autocomplete',
  minLength: 'minlength',
  maxLength: 'maxlength',
  minlength: 'minlength',
  maxlength: 'maxlength',
  pattern: 'pattern',
  inputMode: 'inputmode',
  inputmode: 'inputmode',
  autoCapitalize: 'autocapitalize',
  autocapitalize: 'autocapitalize',
  spellCheck: 'spellcheck',
  spellcheck: 'spellcheck',
  min: 'min',
  max: 'max',
  step: 'step',
};

/** The id of the inline error message, which the failed form's fields point at (`aria-describedby`). */
export const ERROR_ID = 'signin-error';

/** The error of the form that failed, shown inside that form. */
export interface FormError {
  /** The message element (`id="signin-error"`, `data-error="<type>"`). */
  html: string;
}

/** The attributes that tie a field of the failed form to its message and focus it (no script needed). */
export function invalidAttrs(error: FormError | undefined, focus: boolean): string {
  if (!error) return '';
  return ` aria-invalid="true" aria-describedby="${ERROR_ID}"${focus ? ' autofocus' : ''}`;
}

/**
 * One labelled input of a provider's form (credentials fields), its attributes from the definition.
 * A password field given `reveal` gets a show/hide button beside its label.
 */
export function inputField(
  provider: SignInPageProvider,
  name: string,
  input: CredentialInput,
  prefill?: string,
  error?: FormError,
  focus = false,
  autofocus = false,
  reveal?: { show: string; hide: string },
): string {
  const type = typeof input.type === 'string' && INPUT_TYPES.has(input.type) ? input.type : 'text';
  const value = prefill ?? (typeof input.value === 'string' ? input.value : undefined);
  if (type === 'hidden') return `<input type="hidden" name="${escapeAttr(name)}" value="${escapeAttr(value ?? '')}">`;
  const id = fieldId(provider, name);
  const label = typeof input.label === 'string' && input.label.trim() ? input.label : name;
  const attrs: string[] = [`id="${id}"`, `name="${escapeAttr(name)}"`, `type="${type}"`];
  const given = Object.fromEntries(
    Object.entries(input).filter(
      ([k, v]) => k in PASSED_ATTRIBUTES && (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'),
    ),
  );
  if (given.autocomplete === undefined) {
    const auto = defaultAutocomplete(name, type);
    if (auto) given.autocomplete = auto;
  }
  for (const [k, v] of Object.entries(given)) attrs.push(`${PASSED_ATTRIBUTES[k]}="${escapeAttr(v)}"`);
  if (input.required === true) attrs.push('required');
  if (value !== undefined) attrs.push(`value="${escapeAttr(value)}"`);
  const focusOnly = !error && autofocus ? ' autofocus' : '';
  const field = `<input ${attrs.join(' ')}${invalidAttrs(error, focus)}${focusOnly}>`;
  if (type === 'password' && reveal) {
    // Shown by the page's script (it needs one to work): without JavaScript there is no dead button.
    const toggle = `<button type="button" class="link-button" data-reveal="${id}" data-hide="${escapeAttr(reveal.hide)}" aria-controls="${id}" hidden>${escapeHtml(reveal.show)}</button>`;
    return `<div class="label-row"><label for="${id}">${escapeHtml(label)}</label>${toggle}</div>\n${field}`;
  }
  return `<label for="${id}">${escapeHtml(label)}</label>\n${field}`;
}

/** What password managers need to fill the form correctly when the provider did not say. */
function defaultAutocomplete(name: string, type: string): string | undefined {
  if (type === 'password') return 'current-password';
  if (type === 'email' || /^e-?mail$/i.test(name)) return 'email';
  if (/^(user(name)?|login)$/i.test(name)) return 'username';
  if (/^(code|otp|totp|one-?time-?code)$/i.test(name)) return 'one-time-code';
  return undefined;
}

/** Unique, attribute-safe ids: provider ids are URL-safe but still escaped, never trusted. */
export function fieldId(provider: SignInPageProvider, name: string): string {
  return escapeAttr(`input-${provider.id}-${name}`.replace(/[^\w-]/g, '_'));
}

/** Hidden inputs (CSRF token, callback URL), escaped. */
export function hiddenInputs(values: Record<string, string>): string {
  return Object.entries(values)
    .map(([name, value]) => `<input type="hidden" name="${escapeAttr(name)}" value="${escapeAttr(value)}">`)
    .join('');
}
