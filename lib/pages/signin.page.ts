import { escapeAttr, escapeHtml, safeUrl } from '../util/html-escape.js';
import { hiddenInputs, type FormError } from './form-fields.js';
import { appName, renderPage } from './page-layout.js';
import type { SignInPageParams, SignInPageProvider } from './page.types.js';
import { emailForm, errorMessage, fieldsForm, isShown, oauthButton, passkeyForm } from './signin.forms.js';
import { identifierFirst, identifierStep, methodsStep, type IdentifierPlan } from './signin.identifier.js';
import { ENGLISH_MESSAGES, text } from '../config/messages/page-messages.js';
import { NOTICE_TYPES, signInErrorMessage } from './signin.messages.js';

export { signInErrorMessage, signInErrorTypes } from './signin.messages.js';

/**
 * The built-in sign-in page: a button per OAuth/OIDC provider, then the email, credentials and
 * passkey forms. When several methods need an email address (and `signInUrl` is given), the page is
 * identifier-first: one email field, then a second step offering what fits (see signin.identifier.ts).
 */
export function renderSignInPage(p: SignInPageParams): string {
  const hidden = hiddenInputs({ csrfToken: p.csrfToken, callbackUrl: p.callbackUrl });
  const css: string[] = [];
  const images: string[] = [];
  const plan = identifierFirst(p);
  const m = p.messages ?? ENGLISH_MESSAGES;

  // An error goes into the form that failed (`?provider=`) when that form is on the page; a notice
  // (SessionRequired) and an error of no form shown here go above the forms.
  const notice = p.error !== undefined && NOTICE_TYPES.has(p.error);
  const onPage = (x: SignInPageProvider) => isShown(x, p) && (!plan || plan.shown(x));
  const failed =
    p.error && !notice && p.errorProvider ? p.providers.find((x) => x.id === p.errorProvider && onPage(x)) : undefined;
  const inline = (provider: SignInPageProvider): FormError | undefined =>
    failed === provider ? { html: errorMessage(p.error!, p.code, 'p', m) } : undefined;

  const sections = plan
    ? identifierSections(p, plan, hidden, css, images, inline)
    : allSections(p, hidden, css, images, inline);
  const needsScript =
    p.providers.some((x) => x.type === 'webauthn' && onPage(x)) ||
    Boolean(plan?.methods.some((x) => x.type === 'webauthn'));

  let top = '';
  if (notice) {
    top = `<div class="notice" role="status" data-error="${escapeAttr(p.error!)}"><p>${escapeHtml(signInErrorMessage(p.error!, m))}</p></div>`;
  } else if (p.error && !failed) top = errorMessage(p.error, p.code, 'div', m);
  // The app's name in the heading and the tab title, when the theme gives one.
  const app = appName(p.theme);
  const title = app ? text(m, 'signIn.titleNamed', { app }) : m['signIn.title'];
  const body = [
    `<h1>${escapeHtml(title)}</h1>`,
    top,
    sections.length
      ? sections.join(`\n<div class="divider" aria-hidden="true">${escapeHtml(m['signIn.or'])}</div>\n`)
      : `<p>${escapeHtml(m['signIn.none'])}</p>`,
  ].join('\n');

  return renderPage({
    title,
    lang: m.lang,
    theme: p.theme,
    body: p.replaceBody ? p.replaceBody(body) : body,
    nonce: p.nonce,
    css: css.join(''),
    imageUrls: images,
    busyStates: true,
    scriptUrls: needsScript ? [safeUrl(p.webauthnScriptUrl)!] : [],
  });
}

type Inline = (provider: SignInPageProvider) => FormError | undefined;

/** Every method on one page: OAuth buttons, then one form per email, credentials and passkey provider. */
function allSections(p: SignInPageParams, hidden: string, css: string[], images: string[], inline: Inline): string[] {
  const sections: string[] = [];
  const oauth = p.providers.filter((x) => x.type === 'oauth' || x.type === 'oidc');
  if (oauth.length) sections.push(oauthButtons(oauth, p, hidden, css, images, inline));
  for (const provider of p.providers) {
    if (!isShown(provider, p) || provider.type === 'oauth' || provider.type === 'oidc') continue;
    sections.push(providerForm(provider, p, hidden, inline(provider)));
  }
  return sections;
}

/**
 * Identifier-first: step 1 is the OAuth buttons, the email field and the methods that need no
 * address; step 2 (an address given) is the methods that use it, for that address.
 */
function identifierSections(
  p: SignInPageParams,
  plan: IdentifierPlan,
  hidden: string,
  css: string[],
  images: string[],
  inline: Inline,
): string[] {
  // Step 2 offers the methods for the address, and the forms of methods the app added (which the
  // plan does not know), as step 1 does.
  if (plan.step === 'methods')
    return [
      methodsStep(p, plan, hidden, inline),
      ...p.providers
        .filter((x) => p.methodForms?.[x.type] !== undefined)
        .map((x) => providerForm(x, p, hidden, inline(x))),
    ];
  const sections: string[] = [];
  const oauth = p.providers.filter((x) => x.type === 'oauth' || x.type === 'oidc');
  if (oauth.length) sections.push(oauthButtons(oauth, p, hidden, css, images, inline));
  sections.push(identifierStep(p, plan, hidden));
  for (const provider of p.providers) {
    if (provider.type === 'oauth' || provider.type === 'oidc' || !isShown(provider, p) || !plan.shown(provider))
      continue;
    sections.push(providerForm(provider, p, hidden, inline(provider)));
  }
  return sections;
}

function oauthButtons(
  oauth: SignInPageProvider[],
  p: SignInPageParams,
  hidden: string,
  css: string[],
  images: string[],
  inline: Inline,
): string {
  const used = new Set<string>();
  return `<div class="providers">${oauth
    .map((provider, i) => oauthButton(provider, i, hidden, css, images, inline(provider), p.messages, used))
    .join('\n')}</div>`;
}

/** The full form of an email, credentials or passkey provider, or of a method the app added. */
function providerForm(provider: SignInPageProvider, p: SignInPageParams, hidden: string, error?: FormError): string {
  const own = p.methodForms?.[provider.type];
  if (own) return own(provider, p, hidden, error);
  if (provider.type === 'email') return emailForm(provider, p, hidden, error);
  if (provider.type === 'credentials')
    return fieldsForm(
      provider,
      provider.credentials!,
      hidden,
      'credentials',
      text(p.messages ?? ENGLISH_MESSAGES, 'signIn.withProvider', { provider: provider.name }),
      p.email,
      error,
      p.messages ?? ENGLISH_MESSAGES,
      safeUrl(p.forgotPasswordUrl),
    );
  return passkeyForm(provider, p, hidden, error);
}
