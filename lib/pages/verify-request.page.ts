import { escapeAttr, escapeHtml, safeUrl } from '../util/html-escape.js';
import { renderPage } from './page-layout.js';
import type { VerifyRequestPageParams } from './page.types.js';

/** The built-in "check your email" page shown after a magic link was requested. */
export function renderVerifyRequestPage(p: VerifyRequestPageParams): string {
  const home = safeUrl(p.url);
  const host = home ? hostOf(home) : undefined;
  const body = [
    '<h1>Check your email</h1>',
    '<p>A sign-in link has been sent to your email address. Open it on this device or any other to sign in.</p>',
    '<p class="muted">If it does not arrive within a few minutes, check your spam folder or request a new link.</p>',
    home ? `<p><a href="${escapeAttr(home)}">Back to ${escapeHtml(host ?? home)}</a></p>` : '',
  ].join('\n');
  return renderPage({ title: 'Check your email', theme: p.theme, body });
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}
