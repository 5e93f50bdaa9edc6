// The sentences the sign-in page shows for each `?error=` type (issue 20): one place, so the page,
// the passkey script and the tests agree.

const TRY_ANOTHER_ACCOUNT = 'Try signing in with a different account.';

/**
 * What the sign-in page says for each `?error=` type: Auth.js's types (including the legacy names
 * its page still maps) and ours. Unknown types get a generic sentence; the raw value is never shown.
 */
const SIGN_IN_MESSAGES: Record<string, string> = {
  Signin: TRY_ANOTHER_ACCOUNT,
  OAuthSignin: TRY_ANOTHER_ACCOUNT,
  OAuthSignInError: TRY_ANOTHER_ACCOUNT,
  OAuthCallbackError: 'The sign-in was cancelled or refused by the provider. Try again, or use a different account.',
  OAuthCreateAccount: TRY_ANOTHER_ACCOUNT,
  EmailCreateAccount: TRY_ANOTHER_ACCOUNT,
  Callback: TRY_ANOTHER_ACCOUNT,
  OAuthAccountNotLinked:
    'This email address is already used by another sign-in method. To confirm it is you, sign in the way you did the first time.',
  AccountNotLinked: 'This passkey or email address belongs to another account. Sign in the way you did the first time.',
  EmailSignin: 'The sign-in email could not be sent. Check the address and try again.',
  CredentialsSignin: 'Sign in failed. Check that the details you entered are correct.',
  SessionRequired: 'Please sign in to continue.',
  SessionExpired: 'Your session has ended. Please sign in again to continue.',
  InvalidSession: 'Please sign in again to continue.',
  ReauthenticationRequired: 'For your security, please sign in again to continue.',
  RateLimited: 'Too many attempts. Wait a few minutes, then try again.',
  MissingCSRF: 'The form expired or was sent from another page. Please try again.',
  InvalidCheck: 'The sign-in took too long or was started in another tab. Please start again.',
  WebAuthnVerificationError: 'Your passkey could not be verified. Try again, or sign in another way.',
  Verification: 'The sign-in link is no longer valid. Request a new one.',
  AccessDenied: 'You do not have permission to sign in.',
  MissingAdapterMethods: 'Signing in this way is not available right now: the server is not fully configured.',
  Configuration: 'Signing in is not available right now: there is a problem with the server configuration.',
};

/**
 * `?error=` types that are not failures: the user only has to sign in. Shown as a neutral notice
 * (`role="status"`), not as an error.
 */
export const NOTICE_TYPES = new Set([
  'SessionRequired',
  'SessionExpired',
  'InvalidSession',
  'ReauthenticationRequired',
]);

/** Every `?error=` type the sign-in page has its own sentence for (the rest get a generic one). */
export function signInErrorTypes(): string[] {
  return Object.keys(SIGN_IN_MESSAGES);
}

/** The type as the page may echo it (`data-error`): a known type, else `Unknown` (never client text). */
export function stableErrorType(type: string): string {
  return Object.hasOwn(SIGN_IN_MESSAGES, type) ? type : 'Unknown';
}

/** The sentence the sign-in page shows for an `?error=` type. */
export function signInErrorMessage(type: string): string {
  return Object.hasOwn(SIGN_IN_MESSAGES, type) ? SIGN_IN_MESSAGES[type]! : 'Unable to sign in.';
}
