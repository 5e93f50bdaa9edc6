// Every sentence of the built-in account page, by key (the flat `area.name` keys of the other
// pages' `messages`, so a translation can carry them too): `renderAccountPage({ messages })` replaces
// any subset. `{name}` marks a value the page fills in.

/** The default (English) words of the account page. Values are plain text (escaped when rendered). */
export const ACCOUNT_MESSAGES = {
  'account.title': 'Your account',
  'account.signedInAs': 'Signed in as',
  'account.signOut': 'Sign out',
  'account.sessionsHeading': 'Where you are signed in',
  'account.sessionsIntro': 'End a session you do not recognise.',
  'account.thisDevice': 'This device',
  'account.unknownDevice': 'Unknown device',
  'account.started': 'Signed in',
  'account.lastSeen': 'last active',
  'account.endSession': 'End this session',
  'account.endOtherSessions': 'Sign out everywhere else',
  'account.accountsHeading': 'Linked accounts',
  'account.noAccounts': 'No other account is linked.',
  'account.unlink': 'Unlink',
  'account.unlinkNamed': 'Unlink {name}',
  'account.link': 'Link {provider}',
  'account.passkeysHeading': 'Passkeys',
  'account.noPasskeys': 'You have no passkeys yet.',
  'account.unnamedPasskey': 'Passkey',
  'account.syncedPasskey': 'synced',
  'account.deviceBoundPasskey': 'on one device',
  'account.lastUsed': 'Last used',
  'account.neverUsed': 'Not used yet',
  'account.passkeyName': 'Name',
  'account.rename': 'Rename',
  'account.renameNamed': 'Rename {name}',
  'account.remove': 'Remove',
  'account.removeNamed': 'Remove {name}',
  'account.addPasskey': 'Add a passkey',
  'account.passkeysNeedScript': 'Adding a passkey needs JavaScript.',
  'account.emailHeading': 'Email address',
  'account.currentEmail': 'Your address',
  'account.noEmail': 'No address yet.',
  'account.newEmail': 'New address',
  'account.changeEmail': 'Send a confirmation link',
  'account.passwordHeading': 'Password',
  'account.currentPassword': 'Current password',
  'account.newPassword': 'New password',
  'account.setPassword': 'Set a password',
  'account.changePassword': 'Change password',
  'account.deleteHeading': 'Delete your account',
  'account.deleteWarning':
    'This deletes your account, your sessions, linked accounts and passkeys. It cannot be undone.',
  'account.deleteConfirm': 'I understand, delete my account',
  'account.deleteAccount': 'Delete account',
  'account.confirmEmailTitle': 'Confirm your new address',
  'account.confirmEmailText': 'Use this address for your account from now on:',
  'account.confirmEmailButton': 'Use this address',
  'account.notice.passkey-renamed': 'The passkey was renamed.',
  'account.notice.passkey-removed': 'The passkey was removed.',
  'account.notice.passkey-added': 'The passkey was added.',
  'account.notice.email-sent': 'We sent a confirmation link to the new address. Open it to finish the change.',
  'account.notice.email-changed': 'Your email address was changed.',
  'account.notice.password-set': 'Your password was saved.',
  'account.notice.session-ended': 'The session was ended.',
  'account.notice.sessions-ended': 'You were signed out everywhere else.',
  'account.notice.account-unlinked': 'The account was unlinked.',
  'account.error.default': 'That did not work. Try again.',
  'account.error.MissingCSRF': 'The form expired. Try again.',
  'account.error.RateLimited': 'Too many attempts. Wait a few minutes, then try again.',
  'account.error.LastSignInMethod': 'This is your only way to sign in: add another one first.',
  'account.error.EmailInUse': 'Another account uses this email address.',
  'account.error.EmailSignin': 'That email address cannot be used. Check it and try again.',
  'account.error.Verification': 'The confirmation link is invalid, used or expired. Ask for a new one.',
  'account.error.WrongPassword': 'The current password is wrong.',
  'account.error.InvalidRequest': 'That was not valid. Check the form and try again.',
  'account.error.ReauthenticationRequired': 'Sign in again to do this.',
} as const;

/** The account page's keys and sentences. */
export type AccountMessages = Record<keyof typeof ACCOUNT_MESSAGES, string>;

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

/** The page's words with `overrides` on top, key by key. */
export function accountMessages(overrides?: Partial<AccountMessages>): AccountMessages {
  return overrides ? { ...ACCOUNT_MESSAGES, ...overrides } : ACCOUNT_MESSAGES;
}

/** A sentence, its `{name}` placeholders filled with `values` (plain text: the caller escapes). */
export function say(m: AccountMessages, key: keyof AccountMessages, values: Record<string, string> = {}): string {
  return m[key].replace(/\{(\w+)\}/g, (all, name: string) => (Object.hasOwn(values, name) ? values[name]! : all));
}

/** The sentence for a `?notice=` or `?error=` value, if the page has one. */
export function sentenceOf(m: AccountMessages, kind: 'notice' | 'error', value: string): string | undefined {
  const key = `account.${kind}.${value}`;
  return Object.hasOwn(m, key) ? m[key as keyof AccountMessages] : undefined;
}
