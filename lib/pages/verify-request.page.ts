import { escapeAttr, escapeHtml, safeUrl } from '../util/html-escape.js';
import { appName, keepHyphenatedWords, renderPage } from './page-layout.js';
import { ENGLISH_MESSAGES, text, type PageMessages } from '../config/messages/page-messages.js';
import type { VerifyRequestPageParams } from './page.types.js';

/** An address as typed: no spaces, control characters, double quotes or angle brackets; one `@` (an apostrophe, `o'brien@…`, is an address). Anything else is not shown. */
const ADDRESS = /^[^\s@\p{Cc}<>"]{1,64}@[^\s@\p{Cc}<>"]{1,255}$/u;

/**
 * The built-in "check your email" page shown after a magic link was requested: where the link
 * went, how long it lasts, and a way to ask for one at another address (the sign-in page, pre-filled).
 */
export function renderVerifyRequestPage(p: VerifyRequestPageParams): string {
  const m = p.messages ?? ENGLISH_MESSAGES;
  const home = safeUrl(p.url);
  const site = appName(p.theme) ?? (home ? hostOf(home) : undefined);
  const email = p.email && ADDRESS.test(p.email) ? p.email : undefined;
  const lasts = p.maxAge !== undefined ? duration(p.maxAge, m) : undefined;
  const signIn = p.signInUrl ? safeUrl(p.signInUrl) : undefined;
  const again = signIn && email ? withEmail(signIn, email) : signIn;
  // Sentences keep their hyphenated words whole ("E-Mail"); the address breaks only if it must.
  const say = (key: keyof PageMessages, values: Record<string, string> = {}) =>
    keepHyphenatedWords(escapeHtml(m[key])).replace(/\{(\w+)\}/g, (all, name: string) =>
      Object.hasOwn(values, name) ? values[name]! : all,
    );
  const resend = again ? `<a href="${escapeAttr(again)}">${escapeHtml(m['verifyRequest.resend'])}</a>` : '';
  const body = [
    `<h1>${say('verifyRequest.title')}</h1>`,
    email
      ? `<p>${say('verifyRequest.sentTo', { email: `<strong class="address" data-email>${escapeHtml(email)}</strong>` })}</p>`
      : `<p>${say('verifyRequest.sent')}</p>`,
    `<p>${say('verifyRequest.openIt')} ${
      lasts
        ? say('verifyRequest.expires', { duration: `<span data-expires>${escapeHtml(lasts)}</span>` })
        : say('verifyRequest.once')
    }</p>`,
    `<p class="muted">${say('verifyRequest.spam')}</p>`,
    // The question is text; only "Send a new link" is the link.
    resend ? `<p class="muted">${email ? `${say('verifyRequest.resendOther')} ` : ''}${resend}</p>` : '',
    home
      ? `<div class="actions"><a class="button button-secondary" href="${escapeAttr(home)}">${escapeHtml(text(m, 'verifyRequest.back', { site: site ?? home }))}</a></div>`
      : '',
  ].join('\n');
  return renderPage({
    title: m['verifyRequest.title'],
    lang: m.lang,
    theme: p.theme,
    body: p.replaceBody ? p.replaceBody(body) : body,
    nonce: p.nonce,
  });
}

/** "24 hours", "15 minutes", "1 hour and 30 minutes": how long a link lasts, in words. */
export function duration(seconds: number, m: PageMessages = ENGLISH_MESSAGES): string | undefined {
  if (!Number.isFinite(seconds) || seconds <= 0) return undefined;
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3600);
  const minutes = Math.round((seconds % 3600) / 60);
  // Whole days read as hours up to two days ("24 hours", "48 hours"): what people expect of a link.
  const h = days <= 2 ? days * 24 + hours : hours;
  const parts = [
    days > 2 ? unit(m, days, 'day') : '',
    h ? unit(m, h, 'hour') : '',
    minutes ? unit(m, minutes, 'minute') : '',
  ].filter(Boolean);
  return parts.length ? parts.join(m['duration.and']) : unit(m, 1, 'minute');
}

function unit(m: PageMessages, n: number, name: 'day' | 'hour' | 'minute'): string {
  return text(m, n === 1 ? `duration.${name}` : `duration.${name}s`, { n });
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
