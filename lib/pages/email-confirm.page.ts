import { escapeAttr, escapeHtml, safeUrl } from '../util/html-escape.js';
import { ENGLISH_MESSAGES, html, text, type PageMessages } from '../config/messages/page-messages.js';
import { appName, renderPage } from './page-layout.js';
import type { PageTheme } from './page.types.js';

/** What the magic-link confirmation page shows and submits. */
export interface EmailConfirmPageParams {
  /** Where the form posts: the provider's callback URL on this site. */
  action: string;
  /** The token from the link (submitted back, never shown). */
  token: string;
  /** The normalised address the link was sent to (shown and submitted). */
  email: string;
  /** The validated callback URL (submitted back). */
  callbackUrl: string;
  theme: PageTheme;
  /** The sentences; English when absent. */
  messages?: PageMessages;
}

/**
 * The page a magic link opens: one button that `POST`s the link's values back to this site, where
 * the token is used. A `GET` (a person, or a mail scanner following links) therefore never signs
 * anyone in or burns the token; only the button does. No script: scanners that run none cannot
 * press it either.
 */
export function renderEmailConfirmPage(p: EmailConfirmPageParams): string {
  const action = safeUrl(p.action) ?? '';
  const m = p.messages ?? ENGLISH_MESSAGES;
  const app = appName(p.theme);
  const title = app ? text(m, 'signIn.titleNamed', { app }) : m['emailConfirm.title'];
  const body = [
    `<h1>${escapeHtml(title)}</h1>`,
    `<p>${html(m, 'emailConfirm.continueAs', { email: `<strong class="address">${escapeHtml(p.email)}</strong>` })}</p>`,
    `<p class="muted">${escapeHtml(m['emailConfirm.notYou'])}</p>`,
    `<form method="post" action="${escapeAttr(action)}">`,
    `<input type="hidden" name="token" value="${escapeAttr(p.token)}">`,
    `<input type="hidden" name="email" value="${escapeAttr(p.email)}">`,
    `<input type="hidden" name="callbackUrl" value="${escapeAttr(p.callbackUrl)}">`,
    `<button class="button" type="submit">${escapeHtml(m['emailConfirm.button'])}</button>`,
    '</form>',
  ].join('\n');
  return renderPage({ title, lang: m.lang, theme: p.theme, body });
}
