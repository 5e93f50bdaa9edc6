import { escapeAttr, escapeHtml, safeUrl } from '../util/html-escape.js';
import { renderPage } from './page-layout.js';
import { ENGLISH_MESSAGES } from '../config/messages/page-messages.js';
import type { ErrorPageParams } from './page.types.js';

/** What the error page says for a type, and which way it points the user. */
interface ErrorContent {
  status: number;
  /** Its sentences: messages `errorPage.<key>.heading` and `errorPage.<key>.message`. */
  key:
    | 'server'
    | 'badRequest'
    | 'accessDenied'
    | 'verification'
    | 'passkey'
    | 'expired'
    | 'alreadyLinked'
    | 'rateLimited'
    | 'default';
  /** Offer a link back to the sign-in page (otherwise to the site's home). */
  signIn: boolean;
}

const SERVER_PROBLEM: ErrorContent = {
  status: 500,
  key: 'server',
  signIn: false,
};

const BAD_REQUEST: ErrorContent = {
  status: 400,
  key: 'badRequest',
  signIn: true,
};

/**
 * The error page per `?error=` type. Auth.js's statuses: `Configuration` 500, `AccessDenied` and
 * `Verification` 403, anything else 200. Ours add: `MissingAdapterMethods` 500 (a server problem),
 * `WebAuthnVerificationError` 403, request problems 400, `RateLimited` 429.
 */
const ERROR_PAGES: Record<string, ErrorContent> = {
  Configuration: SERVER_PROBLEM,
  MissingAdapterMethods: SERVER_PROBLEM,
  AccessDenied: {
    status: 403,
    key: 'accessDenied',
    signIn: true,
  },
  Verification: {
    status: 403,
    key: 'verification',
    signIn: true,
  },
  WebAuthnVerificationError: {
    status: 403,
    key: 'passkey',
    signIn: true,
  },
  InvalidCheck: {
    status: 400,
    key: 'expired',
    signIn: true,
  },
  AccountAlreadyLinked: {
    status: 409,
    key: 'alreadyLinked',
    signIn: false,
  },
  InvalidRequest: BAD_REQUEST,
  InvalidProvider: BAD_REQUEST,
  UnknownAction: BAD_REQUEST,
  RateLimited: {
    status: 429,
    key: 'rateLimited',
    signIn: true,
  },
};

const DEFAULT_CONTENT: ErrorContent = {
  status: 200,
  key: 'default',
  signIn: true,
};

function contentFor(type?: string): ErrorContent {
  return type && Object.hasOwn(ERROR_PAGES, type) ? ERROR_PAGES[type]! : DEFAULT_CONTENT;
}

/**
 * The HTTP status of the error page for an `?error=` type (unknown types: 200, as in Auth.js). A
 * server fault's page (`Configuration`, `MissingAdapterMethods`) answers 200 where Auth.js answers
 * 500: anyone can open `?error=Configuration`, a client's request is never a server error, and the
 * fault itself was answered and logged when it happened.
 */
export function errorPageStatus(type?: string): number {
  const { status } = contentFor(type);
  return status >= 500 ? 200 : status;
}

/** The built-in error page. The raw `?error=` value is never echoed: unknown types get a generic text. */
export function renderErrorPage(p: ErrorPageParams): string {
  const content = contentFor(p.error);
  const m = p.messages ?? ENGLISH_MESSAGES;
  const heading = m[`errorPage.${content.key}.heading`];
  const home = safeUrl(p.url);
  const signIn = safeUrl(p.signInUrl);
  const links = [
    content.signIn && signIn
      ? `<a class="button" href="${escapeAttr(signIn)}">${escapeHtml(m['errorPage.signIn'])}</a>`
      : '',
    home
      ? `<a class="button${content.signIn && signIn ? ' button-secondary' : ''}" href="${escapeAttr(home)}">${escapeHtml(m['errorPage.home'])}</a>`
      : '',
  ].filter(Boolean);
  const body = [
    `<h1>${escapeHtml(heading)}</h1>`,
    `<p>${escapeHtml(m[`errorPage.${content.key}.message`])}</p>`,
    links.length ? `<div class="actions">${links.join('\n')}</div>` : '',
  ].join('\n');
  return renderPage({
    title: heading,
    lang: m.lang,
    theme: p.theme,
    body: p.replaceBody ? p.replaceBody(body) : body,
    nonce: p.nonce,
  });
}
