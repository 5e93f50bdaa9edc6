import { escapeAttr, escapeHtml, safeUrl } from '../util/html-escape.js';
import { renderPage } from './page-layout.js';
import type { ErrorPageParams } from './page.types.js';

/** What the error page says for a type, and which way it points the user. */
interface ErrorContent {
  status: number;
  heading: string;
  message: string;
  /** Offer a link back to the sign-in page (otherwise to the site's home). */
  signIn: boolean;
}

const SERVER_PROBLEM: ErrorContent = {
  status: 500,
  heading: 'Server error',
  message:
    'There is a problem with the server configuration. The site administrators can find the details in the server logs.',
  signIn: false,
};

const BAD_REQUEST: ErrorContent = {
  status: 400,
  heading: 'Something went wrong',
  message: 'The sign-in request could not be understood. Please start again from the sign-in page.',
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
    heading: 'Access denied',
    message: 'You do not have permission to sign in.',
    signIn: true,
  },
  Verification: {
    status: 403,
    heading: 'Unable to sign in',
    message:
      'The sign-in link is no longer valid. It may have been used already, or it may have expired. Request a new one from the sign-in page.',
    signIn: true,
  },
  WebAuthnVerificationError: {
    status: 403,
    heading: 'Passkey not accepted',
    message: 'Your passkey could not be verified. Try again, or sign in another way.',
    signIn: true,
  },
  InvalidCheck: {
    status: 400,
    heading: 'Sign-in expired',
    message: 'The sign-in took too long, or it was started in another browser or tab. Please start again.',
    signIn: true,
  },
  AccountAlreadyLinked: {
    status: 409,
    heading: 'Account already linked',
    message:
      'That account is already linked to another user, so it was not linked to yours. Sign in with it to use that user, or unlink it there first.',
    signIn: false,
  },
  InvalidRequest: BAD_REQUEST,
  InvalidProvider: BAD_REQUEST,
  UnknownAction: BAD_REQUEST,
  RateLimited: {
    status: 429,
    heading: 'Too many attempts',
    message: 'Wait a few minutes, then try again.',
    signIn: true,
  },
};

const DEFAULT_CONTENT: ErrorContent = {
  status: 200,
  heading: 'Error',
  message: 'Something went wrong while signing in.',
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
  const home = safeUrl(p.url);
  const signIn = safeUrl(p.signInUrl);
  const links = [
    content.signIn && signIn ? `<a class="button" href="${escapeAttr(signIn)}">Sign in</a>` : '',
    home
      ? `<a class="button${content.signIn && signIn ? ' button-secondary' : ''}" href="${escapeAttr(home)}">Go to the home page</a>`
      : '',
  ].filter(Boolean);
  const body = [
    `<h1>${escapeHtml(content.heading)}</h1>`,
    `<p>${escapeHtml(content.message)}</p>`,
    links.length ? `<div class="actions">${links.join('\n')}</div>` : '',
  ].join('\n');
  return renderPage({ title: content.heading, theme: p.theme, body });
}
