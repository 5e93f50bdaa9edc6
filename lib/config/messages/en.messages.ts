// Every sentence of the built-in pages, in English (the default): the `messages` option replaces
// any of them (see page-messages.ts). `{name}` marks a value the page fills in.

const TRY_ANOTHER_ACCOUNT = 'Try signing in with a different account.';

export const ENGLISH_MESSAGES = {
  /** The `lang` of the pages' `<html>`. */
  lang: 'en',

  'signIn.title': 'Sign in',
  'signIn.withProvider': 'Sign in with {provider}',
  'signIn.or': 'or',
  'signIn.none': 'No sign-in method is configured.',
  'signIn.emailLabel': 'Email',
  'signIn.emailPlaceholder': 'email@example.com',
  'signIn.continue': 'Continue',
  'signIn.invalidEmail': 'Enter a valid email address, like name@example.com.',
  'signIn.signingInAs': 'Signing in as',
  'signIn.switch': 'Use another address or sign-in method',
  'signIn.emailLink': 'Email me a sign-in link',
  'signIn.passkey': 'Sign in with a passkey',
  'signIn.createPasskey': 'Create a passkey',
  'signIn.passkeyNewHere': 'New here? Enter your email, then create a passkey.',
  'signIn.needsJavaScript': 'Signing in with {provider} needs JavaScript.',
  'signIn.passkeyNeedsJavaScript': 'Passkeys need JavaScript.',
  'signIn.reason': 'Reason: {code}',

  // What the sign-in page says for each `?error=` type (Auth.js's, including legacy names, and ours).
  'error.Signin': TRY_ANOTHER_ACCOUNT,
  'error.OAuthSignin': TRY_ANOTHER_ACCOUNT,
  'error.OAuthSignInError': TRY_ANOTHER_ACCOUNT,
  'error.OAuthCallbackError':
    'The sign-in was cancelled or refused by the provider. Try again, or use a different account.',
  'error.OAuthCreateAccount': TRY_ANOTHER_ACCOUNT,
  'error.EmailCreateAccount': TRY_ANOTHER_ACCOUNT,
  'error.Callback': TRY_ANOTHER_ACCOUNT,
  'error.OAuthAccountNotLinked':
    'This email address is already used by another sign-in method. To confirm it is you, sign in the way you did the first time.',
  'error.AccountNotLinked':
    'This passkey or email address belongs to another account. Sign in the way you did the first time.',
  'error.EmailSignin': 'The sign-in email could not be sent. Check the address and try again.',
  'error.CredentialsSignin': 'Sign in failed. Check that the details you entered are correct.',
  'error.SessionRequired': 'Please sign in to continue.',
  'error.SessionExpired': 'Your session has ended. Please sign in again to continue.',
  'error.InvalidSession': 'Please sign in again to continue.',
  'error.ReauthenticationRequired': 'For your security, please sign in again to continue.',
  'error.RateLimited': 'Too many attempts. Wait a few minutes, then try again.',
  'error.MissingCSRF': 'The form expired or was sent from another page. Please try again.',
  'error.InvalidCheck': 'The sign-in took too long or was started in another tab. Please start again.',
  'error.WebAuthnVerificationError': 'Your passkey could not be verified. Try again, or sign in another way.',
  'error.Verification': 'The sign-in link is no longer valid. Request a new one.',
  'error.AccessDenied': 'You do not have permission to sign in.',
  'error.MissingAdapterMethods': 'Signing in this way is not available right now: the server is not fully configured.',
  'error.Configuration': 'Signing in is not available right now: there is a problem with the server configuration.',
  /** Any other type (the raw value is never shown). */
  'error.Unknown': 'Unable to sign in.',

  'signOut.title': 'Sign out',
  'signOut.question': 'Are you sure you want to sign out?',
  'signOut.button': 'Sign out',
  'signOut.cancel': 'Cancel',

  'verifyRequest.title': 'Check your email',
  'verifyRequest.sentTo': 'A sign-in link has been sent to {email}.',
  'verifyRequest.sent': 'A sign-in link has been sent to your email address.',
  'verifyRequest.openIt': 'Open it on this device or any other to sign in.',
  'verifyRequest.expires': 'It works once and expires in {duration}.',
  'verifyRequest.once': 'It works once.',
  'verifyRequest.spam': 'If it does not arrive within a few minutes, check your spam folder.',
  'verifyRequest.resendOther': 'Wrong address, or no email? Send a new link',
  'verifyRequest.resend': 'Send a new link',
  'verifyRequest.back': 'Back to {site}',
  'duration.day': '{n} day',
  'duration.days': '{n} days',
  'duration.hour': '{n} hour',
  'duration.hours': '{n} hours',
  'duration.minute': '{n} minute',
  'duration.minutes': '{n} minutes',
  'duration.and': ' and ',

  'errorPage.signIn': 'Sign in',
  'errorPage.home': 'Go to the home page',
  'errorPage.server.heading': 'Server error',
  'errorPage.server.message':
    'There is a problem with the server configuration. The site administrators can find the details in the server logs.',
  'errorPage.badRequest.heading': 'Something went wrong',
  'errorPage.badRequest.message':
    'The sign-in request could not be understood. Please start again from the sign-in page.',
  'errorPage.accessDenied.heading': 'Access denied',
  'errorPage.accessDenied.message': 'You do not have permission to sign in.',
  'errorPage.verification.heading': 'Unable to sign in',
  'errorPage.verification.message':
    'The sign-in link is no longer valid. It may have been used already, or it may have expired. Request a new one from the sign-in page.',
  'errorPage.passkey.heading': 'Passkey not accepted',
  'errorPage.passkey.message': 'Your passkey could not be verified. Try again, or sign in another way.',
  'errorPage.expired.heading': 'Sign-in expired',
  'errorPage.expired.message':
    'The sign-in took too long, or it was started in another browser or tab. Please start again.',
  'errorPage.alreadyLinked.heading': 'Account already linked',
  'errorPage.alreadyLinked.message':
    'That account is already linked to another user, so it was not linked to yours. Sign in with it to use that user, or unlink it there first.',
  'errorPage.rateLimited.heading': 'Too many attempts',
  'errorPage.rateLimited.message': 'Wait a few minutes, then try again.',
  'errorPage.default.heading': 'Error',
  'errorPage.default.message': 'Something went wrong while signing in.',

  'emailConfirm.title': 'Sign in',
  'emailConfirm.continueAs': 'Continue as {email}?',
  'emailConfirm.notYou': 'If you did not ask to sign in, close this page: nothing happens until you press the button.',
  'emailConfirm.button': 'Sign in',
};

/** Every sentence of the built-in pages, by key (`messages` option: any subset, per language). */
export type PageMessages = Record<keyof typeof ENGLISH_MESSAGES, string>;
