// Every sentence of the built-in account page, in one object (a translation replaces it whole or in
// part: `renderAccountPage({ messages })`).

/** The account page's words. Values are plain text (escaped when rendered). */
export interface AccountMessages {
  title: string;
  signedInAs: string;
  signOut: string;
  sessionsHeading: string;
  sessionsIntro: string;
  thisDevice: string;
  unknownDevice: string;
  started: string;
  lastSeen: string;
  endSession: string;
  endOtherSessions: string;
  accountsHeading: string;
  noAccounts: string;
  unlink: string;
  link: string;
  passkeysHeading: string;
  noPasskeys: string;
  unnamedPasskey: string;
  syncedPasskey: string;
  deviceBoundPasskey: string;
  lastUsed: string;
  neverUsed: string;
  passkeyName: string;
  rename: string;
  remove: string;
  addPasskey: string;
  passkeysNeedScript: string;
  emailHeading: string;
  currentEmail: string;
  noEmail: string;
  newEmail: string;
  changeEmail: string;
  passwordHeading: string;
  currentPassword: string;
  newPassword: string;
  setPassword: string;
  changePassword: string;
  deleteHeading: string;
  deleteWarning: string;
  deleteConfirm: string;
  deleteAccount: string;
  confirmEmailTitle: string;
  confirmEmailText: string;
  confirmEmailButton: string;
  /** Shown after an action (`?notice=`), by notice key. */
  notices: Record<AccountNotice, string>;
  /** Shown after a refused action (`?error=`), by error type; `default` for any other. */
  errors: Record<string, string> & { default: string };
}

/** What the page says after a successful action (`?notice=` of the redirect back). */
export type AccountNotice =
  | 'passkey-renamed'
  | 'passkey-removed'
  | 'passkey-added'
  | 'email-sent'
  | 'email-changed'
  | 'password-set'
  | 'session-ended'
  | 'sessions-ended'
  | 'account-unlinked';

/** The default (English) words of the account page. */
export const ACCOUNT_MESSAGES: AccountMessages = {
  title: 'Your account',
  signedInAs: 'Signed in as',
  signOut: 'Sign out',
  sessionsHeading: 'Where you are signed in',
  sessionsIntro: 'End a session you do not recognise.',
  thisDevice: 'This device',
  unknownDevice: 'Unknown device',
  started: 'Signed in',
  lastSeen: 'last active',
  endSession: 'End this session',
  endOtherSessions: 'Sign out everywhere else',
  accountsHeading: 'Linked accounts',
  noAccounts: 'No other account is linked.',
  unlink: 'Unlink',
  link: 'Link',
  passkeysHeading: 'Passkeys',
  noPasskeys: 'You have no passkeys yet.',
  unnamedPasskey: 'Passkey',
  syncedPasskey: 'synced',
  deviceBoundPasskey: 'on one device',
  lastUsed: 'Last used',
  neverUsed: 'Not used yet',
  passkeyName: 'Name',
  rename: 'Rename',
  remove: 'Remove',
  addPasskey: 'Add a passkey',
  passkeysNeedScript: 'Adding a passkey needs JavaScript.',
  emailHeading: 'Email address',
  currentEmail: 'Your address',
  noEmail: 'No address yet.',
  newEmail: 'New address',
  changeEmail: 'Send a confirmation link',
  passwordHeading: 'Password',
  currentPassword: 'Current password',
  newPassword: 'New password',
  setPassword: 'Set a password',
  changePassword: 'Change password',
  deleteHeading: 'Delete your account',
  deleteWarning: 'This deletes your account, your sessions, linked accounts and passkeys. It cannot be undone.',
  deleteConfirm: 'I understand, delete my account',
  deleteAccount: 'Delete account',
  confirmEmailTitle: 'Confirm your new address',
  confirmEmailText: 'Use this address for your account from now on:',
  confirmEmailButton: 'Use this address',
  notices: {
    'passkey-renamed': 'The passkey was renamed.',
    'passkey-removed': 'The passkey was removed.',
    'passkey-added': 'The passkey was added.',
    'email-sent': 'We sent a confirmation link to the new address. Open it to finish the change.',
    'email-changed': 'Your email address was changed.',
    'password-set': 'Your password was saved.',
    'session-ended': 'The session was ended.',
    'sessions-ended': 'You were signed out everywhere else.',
    'account-unlinked': 'The account was unlinked.',
  },
  errors: {
    default: 'That did not work. Try again.',
    MissingCSRF: 'The form expired. Try again.',
    RateLimited: 'Too many attempts. Wait a few minutes, then try again.',
    LastSignInMethod: 'This is your only way to sign in: add another one first.',
    EmailInUse: 'Another account uses this email address.',
    EmailSignin: 'That email address cannot be used. Check it and try again.',
    Verification: 'The confirmation link is invalid, used or expired. Ask for a new one.',
    WrongPassword: 'The current password is wrong.',
    InvalidRequest: 'That was not valid. Check the form and try again.',
    ReauthenticationRequired: 'Sign in again to do this.',
  },
};

/** The page's words with `overrides` on top (their `notices` and `errors` merged too). */
export function accountMessages(overrides?: Partial<AccountMessages>): AccountMessages {
  if (!overrides) return ACCOUNT_MESSAGES;
  return {
    ...ACCOUNT_MESSAGES,
    ...overrides,
    notices: { ...ACCOUNT_MESSAGES.notices, ...overrides.notices },
    errors: { ...ACCOUNT_MESSAGES.errors, ...overrides.errors },
  };
}
