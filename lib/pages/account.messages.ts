// The account page's sentences are the `account.*` keys of the one `messages` option (see
// config/messages/en.messages.ts and de.messages.ts); these are their public types and a lookup.
import type { PageMessages } from '../config/messages/page-messages.js';

/** The keys of the account page's sentences (`account.title`, `account.notice.<notice>`, ...). */
export type AccountMessageKey = Extract<keyof PageMessages, `account.${string}`>;

/** The account page's keys and sentences: the `account.*` part of `PageMessages`. */
export type AccountMessages = Pick<PageMessages, AccountMessageKey>;

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
  | 'account-unlinked'
  | 'account-linked'
  | 'two-factor-added'
  | 'two-factor-renamed'
  | 'two-factor-removed'
  | 'backup-codes-regenerated'
  | 'api-key-created'
  | 'api-key-rotated'
  | 'api-key-revoked';

/** The sentence for a `?notice=` or `?error=` value, if the page has one. */
export function sentenceOf(m: PageMessages, kind: 'notice' | 'error', value: string): string | undefined {
  const key = `account.${kind}.${value}`;
  return Object.hasOwn(m, key) ? m[key as AccountMessageKey] : undefined;
}
