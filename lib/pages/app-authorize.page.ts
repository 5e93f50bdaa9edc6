// The pages of a native app's sign-in (`nativeApps`): "Continue to {app}" for a browser already
// signed in, and the refusal of a request that cannot go back to its app. Plain forms and links.
import { ENGLISH_MESSAGES, text } from '../config/messages/page-messages.js';
import { escapeAttr, escapeHtml, safeUrl } from '../util/html-escape.js';
import { hiddenInputs } from './form-fields.js';
import { renderPage } from './page-layout.js';
import type { AppAuthorizePageParams, AppErrorPageParams } from './page.types.js';

/**
 * Asks a signed-in user to confirm that the app may sign them in: an app can open this page
 * without the user, so a code is never sent to a redirect URI the app does not prove it owns
 * (RFC 8252 section 8.6) without a person choosing to.
 */
export function renderAppAuthorizePage(p: AppAuthorizePageParams): string {
  const m = p.messages ?? ENGLISH_MESSAGES;
  const title = text(m, 'app.authorize.title', { app: p.app });
  const other = safeUrl(p.otherAccountUrl);
  const body = [
    `<h1>${escapeHtml(title)}</h1>`,
    `<p>${escapeHtml(text(m, 'app.authorize.intro', { app: p.app, user: p.user }))}</p>`,
    `<form method="post" action="${escapeAttr(safeUrl(p.action) ?? '')}" data-app-authorize>`,
    hiddenInputs({ ...p.request, csrfToken: p.csrfToken }),
    `<button type="submit" class="button">${escapeHtml(m['app.authorize.continue'])}</button>`,
    '</form>',
    other
      ? `<p class="switch"><a href="${escapeAttr(other)}">${escapeHtml(m['app.authorize.otherAccount'])}</a></p>`
      : '',
  ].join('\n');
  return renderPage({ title, lang: m.lang, theme: p.theme, body, busyStates: true });
}

/** An authorization request that cannot be answered to its app: what is wrong, and to go back. */
export function renderAppErrorPage(p: AppErrorPageParams): string {
  const m = p.messages ?? ENGLISH_MESSAGES;
  const body = [
    `<h1>${escapeHtml(m['app.error.title'])}</h1>`,
    `<p class="error" role="alert">${escapeHtml(p.message)}</p>`,
    `<p>${escapeHtml(m['app.error.back'])}</p>`,
  ].join('\n');
  return renderPage({ title: m['app.error.title'], lang: m.lang, theme: p.theme, body });
}
