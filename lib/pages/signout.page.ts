import { escapeAttr, safeUrl } from '../util/html-escape.js';
import { renderPage } from './page-layout.js';
import type { SignOutPageParams } from './page.types.js';

/**
 * The built-in sign-out confirmation: a form that POSTs to `signOutUrl` with the CSRF token (a GET
 * never signs anyone out, so a link or an image on another site cannot).
 */
export function renderSignOutPage(p: SignOutPageParams): string {
  const back = safeUrl(p.callbackUrl);
  const body = [
    '<h1>Sign out</h1>',
    '<p>Are you sure you want to sign out?</p>',
    `<form action="${escapeAttr(p.signOutUrl)}" method="post">`,
    `<input type="hidden" name="csrfToken" value="${escapeAttr(p.csrfToken)}">`,
    `<input type="hidden" name="callbackUrl" value="${escapeAttr(p.callbackUrl)}">`,
    '<div class="actions">',
    '<button type="submit" class="button">Sign out</button>',
    back ? `<a class="button button-secondary" href="${escapeAttr(back)}">Cancel</a>` : '',
    '</div>',
    '</form>',
  ].join('\n');
  return renderPage({ title: 'Sign out', theme: p.theme, body, busyStates: true });
}
