import { escapeAttr, escapeHtml, safeUrl } from '../util/html-escape.js';
import { ENGLISH_MESSAGES } from '../config/messages/page-messages.js';
import { renderPage } from './page-layout.js';
import { signInErrorMessage, stableErrorType } from './signin.messages.js';
import type { SignOutPageParams } from './page.types.js';

/**
 * The built-in sign-out confirmation: a form that POSTs to `signOutUrl` with the CSRF token (a GET
 * never signs anyone out, so a link or an image on another site cannot).
 */
export function renderSignOutPage(p: SignOutPageParams): string {
  const back = safeUrl(p.callbackUrl);
  const m = p.messages ?? ENGLISH_MESSAGES;
  // A refused sign-out comes back here: the user is still signed in, and the page says why.
  const error = p.error
    ? `<div class="error" role="alert" data-error="${escapeAttr(stableErrorType(p.error))}"><p>${escapeHtml(signInErrorMessage(p.error, m))}</p></div>`
    : '';
  const body = [
    `<h1>${escapeHtml(m['signOut.title'])}</h1>`,
    error,
    `<p>${escapeHtml(m['signOut.question'])}</p>`,
    `<form action="${escapeAttr(p.signOutUrl)}" method="post">`,
    `<input type="hidden" name="csrfToken" value="${escapeAttr(p.csrfToken)}">`,
    `<input type="hidden" name="callbackUrl" value="${escapeAttr(p.callbackUrl)}">`,
    '<div class="actions">',
    `<button type="submit" class="button">${escapeHtml(m['signOut.button'])}</button>`,
    back ? `<a class="button button-secondary" href="${escapeAttr(back)}">${escapeHtml(m['signOut.cancel'])}</a>` : '',
    '</div>',
    '</form>',
  ].join('\n');
  return renderPage({
    title: m['signOut.title'],
    lang: m.lang,
    theme: p.theme,
    body: p.replaceBody ? p.replaceBody(body) : body,
    nonce: p.nonce,
    busyStates: true,
  });
}
