// The sentences the sign-in page shows for each `?error=` type (issue 20): one place, so the page,
// the passkey script and the tests agree. The sentences themselves are messages (`error.<type>`).
import { ENGLISH_MESSAGES, type PageMessages } from '../config/messages/page-messages.js';

const ERROR_TYPES = Object.keys(ENGLISH_MESSAGES)
  .filter((k) => k.startsWith('error.') && k !== 'error.Unknown')
  .map((k) => k.slice('error.'.length));
const KNOWN = new Set(ERROR_TYPES);

/**
 * `?error=` types that are not failures: the user only has to sign in. Shown as a neutral notice
 * (`role="status"`), not as an error.
 */
export const NOTICE_TYPES = new Set([
  'SessionRequired',
  'SessionExpired',
  'InvalidSession',
  'ReauthenticationRequired',
  'SecondFactorRequired',
]);

/** Every `?error=` type the sign-in page has its own sentence for (the rest get a generic one). */
export function signInErrorTypes(): string[] {
  return [...ERROR_TYPES];
}

/** The type as the page may echo it (`data-error`): a known type, else `Unknown` (never client text). */
export function stableErrorType(type: string): string {
  return KNOWN.has(type) ? type : 'Unknown';
}

/** The sentence the sign-in page shows for an `?error=` type (English unless `messages` are given). */
export function signInErrorMessage(type: string, messages: PageMessages = ENGLISH_MESSAGES): string {
  return messages[`error.${stableErrorType(type)}` as keyof PageMessages];
}
