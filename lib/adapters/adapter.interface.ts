import { Inject } from '@nestjs/common';
import type { Account, Awaitable, User } from '../types/common.types.js';
import type { AdapterAccountType } from '../providers/provider.types.js';

/** A stored user (SPEC 2.8). */
export interface AdapterUser extends User {
  /** Unique user identifier. */
  id: string;
  /** The user's email address. */
  email: string;
  /** Null until the user signs in with an email provider; then the date of the first success. */
  emailVerified: Date | null;
  name?: string | null;
  image?: string | null;
}

/** A stored account: links a user to one provider (SPEC 2.9). */
export interface AdapterAccount extends Account {
  userId: string;
  type: AdapterAccountType;
  provider: string;
  providerAccountId: string;
}

/** A stored session of the `database` strategy (SPEC 2.10). */
export interface AdapterSession {
  /** The random value kept in the session cookie. */
  sessionToken: string;
  userId: string;
  /** Absolute expiry. */
  expires: Date;
}

/** A single-use token of an email sign-in (SPEC 2.11). */
export interface VerificationToken {
  /** The user's email address. */
  identifier: string;
  /** The token, hashed with the configured secret. */
  token: string;
  expires: Date;
}

/** A WebAuthn authenticator (SPEC 2.12). */
export interface Authenticator {
  /** Base64-encoded credential id. */
  credentialID: string;
  /** Base64-encoded public key. */
  credentialPublicKey: string;
  userId?: string;
  /** The provider account id connected to the authenticator. */
  providerAccountId: string;
  /** How many times the authenticator has been used. */
  counter: number;
  /** `singleDevice` or `multiDevice`. */
  credentialDeviceType: string;
  /** Whether the authenticator backed the credential up. */
  credentialBackedUp: boolean;
  /** Comma-separated transports (`usb,nfc,internal`...). */
  transports?: string | null;
  /**
   * Beyond SPEC: the name the user gave the passkey. Adapters without the column leave it out;
   * `TypeOrmAdapter` and `MemoryAdapter` store it (`PasskeyNamesAdapter.updateAuthenticatorName`).
   */
  name?: string | null;
  /**
   * Beyond SPEC: when the passkey last signed in, set by `updateAuthenticatorCounter` (the same write)
   * in adapters that have the column (`TypeOrmAdapter`, `MemoryAdapter`).
   */
  lastUsedAt?: Date | null;
}

/** A stored authenticator, assigned to a user (SPEC 2.12). */
export interface AdapterAuthenticator extends Authenticator {
  userId: string;
}

/**
 * Beyond SPEC's contract: passkey management (`AuthService.renamePasskey`, `deletePasskey`).
 * `TypeOrmAdapter` and `MemoryAdapter` implement it.
 */
export interface PasskeyNamesAdapter {
  /** Sets (or clears, with `null`) the authenticator's name; `null` when the credential is unknown. */
  updateAuthenticatorName(credentialID: string, name: string | null): Awaitable<AdapterAuthenticator | null>;
  /** Deletes the authenticator row; `true` when one went. */
  deleteAuthenticator(credentialID: string): Awaitable<boolean>;
}

/**
 * Beyond SPEC's contract: what `AuthService.signOutEverywhere` needs. `TypeOrmAdapter` and
 * `MemoryAdapter` implement it; implement it in your adapter to offer "sign out everywhere".
 */
export interface SessionsByUserAdapter {
  /** Deletes every session of the user; returns how many went. */
  deleteSessionsByUserId(userId: string): Awaitable<number>;
}

/**
 * What a session row may record beyond SPEC's three fields, for the user's list of devices: all
 * optional and nullable, so an adapter (or an Auth.js table) without these columns still conforms.
 * `getSessionAndUser` never returns them; {@link SessionListingAdapter.listSessionsByUserId} does.
 */
export interface AdapterSessionDetails {
  /** When the session was created: the user's sign-in (the recent sign-in check reads it). */
  createdAt?: Date | null;
  /** When the session was last used, written at most once per `session.updateAge`. */
  lastSeenAt?: Date | null;
  /** A label of the browser and system, e.g. "Chrome on macOS" (never the raw User-Agent header). */
  userAgent?: string | null;
  /** The client's address, coarse by default (IPv4 /24, IPv6 /48; `session.storeIp`). */
  ip?: string | null;
  /** The OpenID Provider's session id (`sid` claim) of the sign-in, for back-channel logout. */
  providerSid?: string | null;
}

/** The properties of {@link AdapterSessionDetails}: the optional columns of the sessions table. */
export const SESSION_DETAIL_FIELDS = Object.freeze([
  'createdAt',
  'lastSeenAt',
  'userAgent',
  'ip',
  'providerSid',
] as const satisfies readonly (keyof AdapterSessionDetails)[]);

/** A stored session as the device list reads it: SPEC's fields plus {@link AdapterSessionDetails}. */
export type AdapterSessionInfo = AdapterSession & AdapterSessionDetails;

/**
 * Beyond SPEC's contract: what `AuthService.listSessions` / `endSession` / `endOtherSessions` and
 * the recent sign-in check of database sessions need. `TypeOrmAdapter` and `MemoryAdapter`
 * implement it; the conformance suite checks it. `createSession` and `updateSession` of such an
 * adapter store the {@link AdapterSessionDetails} they are given.
 */
export interface SessionListingAdapter {
  /** Every session of the user (expired ones may be included), with their details where stored. */
  listSessionsByUserId(userId: string): Awaitable<AdapterSessionInfo[]>;
}

/** The token columns of an account that a token refresh rewrites (`null` clears a column). */
export interface AccountTokens {
  access_token?: string | null;
  refresh_token?: string | null;
  id_token?: string | null;
  /** Seconds since the epoch. */
  expires_at?: number | null;
  token_type?: string | null;
  scope?: string | null;
}

/**
 * Beyond SPEC's contract: what `AuthService.getAccessToken` needs to refresh a provider's tokens.
 * `TypeOrmAdapter` and `MemoryAdapter` implement it; the conformance suite checks it.
 */
export interface AccountTokensAdapter {
  /** Every account linked to the user (any provider), oldest first where the store knows the order. */
  listAccountsByUserId(userId: string): Awaitable<AdapterAccount[]>;
  /**
   * A compare-and-swap of the account's tokens: writes `next` only when the stored `refresh_token`
   * and `expires_at` still equal those of `match` (`null` matches an empty column), atomically, and
   * returns the updated account; returns `null` (writing nothing) when the account is gone or either
   * value changed since it was read. Of concurrent calls with the same `match`, at most one succeeds.
   */
  updateAccountTokens(
    match: Pick<AdapterAccount, 'provider' | 'providerAccountId'> & {
      refresh_token: string | null;
      expires_at: number | null;
    },
    next: AccountTokens,
  ): Awaitable<AdapterAccount | null>;
}

/**
 * Beyond SPEC's contract: lets a new magic link replace the older ones of the same address (only
 * the latest link works). `TypeOrmAdapter` and `MemoryAdapter` implement it; without it, older
 * links stay valid until they expire, as in Auth.js.
 */
export interface VerificationTokensByIdentifierAdapter {
  /** Deletes every verification token of the identifier (an email address); returns how many went. */
  deleteVerificationTokensByIdentifier(identifier: string): Awaitable<number>;
}

/**
 * Beyond SPEC's contract: what `AuthService.deleteAccount` uses to delete a user and everything
 * that points at it as one unit. `TypeOrmAdapter` (one transaction) and `MemoryAdapter` (one
 * synchronous step) implement it; without it, `deleteAccount` deletes the sessions, the user (the
 * adapter's `deleteUser`, which cascades in Auth.js adapters) and the verification tokens one after
 * the other.
 */
export interface UserDeletionAdapter {
  /**
   * Deletes the user, its sessions, accounts and authenticators, and the verification tokens of its
   * address, all or nothing. Returns the user as it was, or `null` (writing nothing) when there was none.
   */
  deleteUserCascade(userId: string): Awaitable<AdapterUser | null>;
}

/**
 * The storage contract (SPEC section 4). Every method is optional: the library checks at bootstrap
 * that the configured features have what they call, and fails with `MissingAdapterMethods` otherwise.
 *
 * This interface is also the DI token: inject the configured adapter with `@InjectAuthAdapter()`.
 */
export interface Adapter {
  createUser?(user: AdapterUser): Awaitable<AdapterUser>;
  getUser?(id: string): Awaitable<AdapterUser | null>;
  getUserByEmail?(email: string): Awaitable<AdapterUser | null>;
  getUserByAccount?(
    providerAccountId: Pick<AdapterAccount, 'provider' | 'providerAccountId'>,
  ): Awaitable<AdapterUser | null>;
  updateUser?(user: Partial<AdapterUser> & Pick<AdapterUser, 'id'>): Awaitable<AdapterUser>;
  deleteUser?(userId: string): Promise<void> | Awaitable<AdapterUser | null | undefined>;
  linkAccount?(account: AdapterAccount): Promise<void> | Awaitable<AdapterAccount | null | undefined>;
  unlinkAccount?(
    providerAccountId: Pick<AdapterAccount, 'provider' | 'providerAccountId'>,
  ): Promise<void> | Awaitable<AdapterAccount | undefined>;
  getAccount?(
    providerAccountId: AdapterAccount['providerAccountId'],
    provider: AdapterAccount['provider'],
  ): Awaitable<AdapterAccount | null>;
  createSession?(session: { sessionToken: string; userId: string; expires: Date }): Awaitable<AdapterSession>;
  getSessionAndUser?(sessionToken: string): Awaitable<{ session: AdapterSession; user: AdapterUser } | null>;
  updateSession?(
    session: Partial<AdapterSession> & Pick<AdapterSession, 'sessionToken'>,
  ): Awaitable<AdapterSession | null | undefined>;
  deleteSession?(sessionToken: string): Promise<void> | Awaitable<AdapterSession | null | undefined>;
  createVerificationToken?(verificationToken: VerificationToken): Awaitable<VerificationToken | null | undefined>;
  useVerificationToken?(params: { identifier: string; token: string }): Awaitable<VerificationToken | null>;
  createAuthenticator?(authenticator: AdapterAuthenticator): Awaitable<AdapterAuthenticator>;
  getAuthenticator?(credentialID: AdapterAuthenticator['credentialID']): Awaitable<AdapterAuthenticator | null>;
  listAuthenticatorsByUserId?(userId: AdapterAuthenticator['userId']): Awaitable<AdapterAuthenticator[]>;
  /**
   * Sets the authenticator's signature counter and returns the updated authenticator. Throws when
   * the credential is unknown.
   *
   * @param expectedCounter When given, a compare-and-set: the update happens only if the stored
   *   counter still equals `expectedCounter`, otherwise the method throws and changes nothing. Two
   *   concurrent assertions that read the same counter thus cannot both succeed (a cloned
   *   authenticator replaying a signature loses). Adapters written before this parameter existed
   *   ignore it; `TypeOrmAdapter` and `MemoryAdapter` honour it, and the conformance suite checks it.
   */
  updateAuthenticatorCounter?(
    credentialID: AdapterAuthenticator['credentialID'],
    newCounter: AdapterAuthenticator['counter'],
    expectedCounter?: AdapterAuthenticator['counter'],
  ): Awaitable<AdapterAuthenticator>;
}

/** The names of every adapter method. */
export type AdapterMethod = keyof Adapter;

/** Every method of the adapter contract (SPEC section 4). */
export const ADAPTER_METHODS: readonly AdapterMethod[] = [
  'createUser',
  'getUser',
  'getUserByEmail',
  'getUserByAccount',
  'updateUser',
  'deleteUser',
  'linkAccount',
  'unlinkAccount',
  'getAccount',
  'createSession',
  'getSessionAndUser',
  'updateSession',
  'deleteSession',
  'createVerificationToken',
  'useVerificationToken',
  'createAuthenticator',
  'getAuthenticator',
  'listAuthenticatorsByUserId',
  'updateAuthenticatorCounter',
];

/** DI token of the configured adapter (same name as the interface, as `@nestjs/throttler` does). */
export const Adapter: unique symbol = Symbol('nestjs-auth:Adapter');

/** Injects the configured adapter (`null` when the module runs without storage). */
export const InjectAuthAdapter = (): PropertyDecorator & ParameterDecorator => Inject(Adapter);

/** True when `value` is a string or number that parses as a valid date (used when reviving JSON dates). */
export function isDate(value: any): any {
  if (value instanceof Date) return !Number.isNaN(value.getTime());
  if (typeof value !== 'string' || value.length < 10) return false;
  const parsed = new Date(value);
  return !Number.isNaN(parsed.getTime()) && /^\d{4}-\d{2}-\d{2}/.test(value);
}
