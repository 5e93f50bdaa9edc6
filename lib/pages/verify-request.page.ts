import { escapeAttr, escapeHtml, safeUrl } from '../util/html-escape.js';
import { renderPage } from './page-layout.js';
import type { VerifyRequestPageParams } from './page.types.js';

/** An address as typed: no spaces, control characters, quotes or angle brackets; one `@`. Anything else is not shown. */
const ADDRESS = /^[^\s@\p{Cc}<>"']{1,64}@[^\s@\p{Cc}<>"']{1,255}$/u;

/**
 * The built-in "check your email" page shown after a magic link was requested: where the link
 * went, how long it lasts, and a way to ask for one at another address (the sign-in page, pre-filled).
 */
export function renderVerifyRequestPage(p: VerifyRequestPageParams): string {
  const home = safeUrl(p.url);
  const host = home ? hostOf(home) : undefined;
  const email = p.email && ADDRESS.test(p.email) ? p.email : undefined;
  const lasts = p.maxAge !== undefined ? duration(p.maxAge) : undefined;
  const signIn = p.signInUrl ? safeUrl(p.signInUrl) : undefined;
  const again = signIn && email ? withEmail(signIn, email) : signIn;
  const body = [
    '<h1>Check your email</h1>',
    email
      ? `<p>A sign-in link has been sent to <strong data-email>${escapeHtml(email)}</strong>.</p>`
      : '<p>A sign-in link has been sent to your email address.</p>',
    `<p>Open it on this device or any other to sign in. ${
      lasts ? `It works once and expires in <span data-expires>${escapeHtml(lasts)}</span>.` : 'It works once.'
    }</p>`,
    '<p class="muted">If it does not arrive within a few minutes, check your spam folder.</p>',
    '<div class="actions">',
    again
      ? `<a class="button button-secondary" href="${escapeAttr(again)}">${email ? 'Wrong address, or no email? Send a new link' : 'Send a new link'}</a>`
      : '',
    home ? `<a href="${escapeAttr(home)}">Back to ${escapeHtml(host ?? home)}</a>` : '',
    '</div>',
  ].join('\n');
  return renderPage({ title: 'Check your email', theme: p.theme, body });
}

/** "24 hours", "15 minutes", "1 hour and 30 minutes": how long a link lasts, in words. */
export function duration(seconds: number): string | undefined {
  if (!Number.isFinite(seconds) || seconds <= 0) return undefined;
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3600);
  const minutes = Math.round((seconds % 3600) / 60);
  // Whole days read as hours up to two days ("24 hours", "48 hours"): what people expect of a link.
  const h = days <= 2 ? days * 24 + hours : hours;
  const parts = [
    days > 2 ? unit(days, 'day') : '',
    h ? unit(h, 'hour') : '',
    minutes ? unit(minutes, 'minute') : '',
  ].filter(Boolean);
  return parts.length ? parts.join(' and ') : unit(1, 'minute');
}

function unit(n: number, name: string): string {
  return `${n} ${name}${n === 1 ? '' : 's'}`;
}

function withEmail(url: string, email: string): string {
  try {
    const u = new URL(url);
    u.searchParams.set('email', email);
    return u.href;
  } catch {
    return url;
  }
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}
