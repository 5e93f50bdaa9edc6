import { Inject } from '@nestjs/common';
import type { Account, Awaitable, User } from '../types/common.types.js';
import type { AdapterAccountType } from '../providers/provider.types.js';

export { SESSION_DETAIL_FIELDS } from './adapter-extensions.js';
export type {
  AccountTokens,
  AccountTokensAdapter,
  AdapterApiKey,
  AdapterRefreshFamily,
  AdapterSessionDetails,
  AdapterSessionInfo,
  AdapterSigningKey,
  AdapterTwoFactor,
  ApiKeyAdapter,
  PasskeyNamesAdapter,
  PrivateAccountTokensAdapter,
  RefreshTokenAdapter,
  SessionListingAdapter,
  SessionsByProviderSidAdapter,
  SessionsByUserAdapter,
  SigningKeyAdapter,
  TwoFactorAdapter,
  UserDeletionAdapter,
  VerificationTokensByIdentifierAdapter,
} from './adapter-extensions.js';

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
 * The storage contract (SPEC section 4). Every method is optional: the library checks at bootstrap
 * that the configured features have what they call, and fails with `MissingAdapterMethods` otherwise.
 *
 * This interface is also the DI token: inject the configured adapter with `@InjectAuthAdapter()`.
 */
export interface Adapter {
  /**
   * Stores a new user and returns it. The library passes an id (a random UUID; for credentials the
   * id `authorize` returned, for a passkey the id the server generated); the store may return its
   * own instead (a `SERIAL`, a cuid). Refuses a second user with the same email.
   */
  createUser?(user: AdapterUser): Awaitable<AdapterUser>;
  /** The user with this id, or `null`. */
  getUser?(id: string): Awaitable<AdapterUser | null>;
  /** The user with this email address, or `null`. */
  getUserByEmail?(email: string): Awaitable<AdapterUser | null>;
  /** The user linked to the account `(provider, providerAccountId)`, or `null`. */
  getUserByAccount?(
    providerAccountId: Pick<AdapterAccount, 'provider' | 'providerAccountId'>,
  ): Awaitable<AdapterUser | null>;
  /** Changes the given fields of the user `id`, and only those; returns the whole user. */
  updateUser?(user: Partial<AdapterUser> & Pick<AdapterUser, 'id'>): Awaitable<AdapterUser>;
  /** Deletes the user with its sessions, accounts and authenticators (as `ON DELETE CASCADE` does). */
  deleteUser?(userId: string): Promise<void> | Awaitable<AdapterUser | null | undefined>;
  /** Links a provider account to a user. Refuses a second account with the same `(provider, providerAccountId)`. */
  linkAccount?(account: AdapterAccount): Promise<void> | Awaitable<AdapterAccount | null | undefined>;
  /** Removes the account `(provider, providerAccountId)`, and no other. */
  unlinkAccount?(
    providerAccountId: Pick<AdapterAccount, 'provider' | 'providerAccountId'>,
  ): Promise<void> | Awaitable<AdapterAccount | undefined>;
  /** The account of `provider` with this `providerAccountId`, or `null`. */
  getAccount?(
    providerAccountId: AdapterAccount['providerAccountId'],
    provider: AdapterAccount['provider'],
  ): Awaitable<AdapterAccount | null>;
  /** Stores a session of the `database` strategy. Refuses a duplicate `sessionToken`. */
  createSession?(session: { sessionToken: string; userId: string; expires: Date }): Awaitable<AdapterSession>;
  /** The session with this token and its user, or `null` for an unknown token. */
  getSessionAndUser?(sessionToken: string): Awaitable<{ session: AdapterSession; user: AdapterUser } | null>;
  /** Changes a session (its expiry, when the library extends it); an unknown token creates nothing. */
  updateSession?(
    session: Partial<AdapterSession> & Pick<AdapterSession, 'sessionToken'>,
  ): Awaitable<AdapterSession | null | undefined>;
  /** Deletes the session with this token; an unknown token is no error. */
  deleteSession?(sessionToken: string): Promise<void> | Awaitable<AdapterSession | null | undefined>;
  /** Stores the token of an email sign-in (hashed with the secret). */
  createVerificationToken?(verificationToken: VerificationToken): Awaitable<VerificationToken | null | undefined>;
  /**
   * Returns the token matching both `identifier` and `token` and deletes it: once only, even under
   * concurrent calls. `null` when none matches (a mismatch consumes nothing).
   */
  useVerificationToken?(params: { identifier: string; token: string }): Awaitable<VerificationToken | null>;
  /** Stores a WebAuthn authenticator (a passkey) of a user. Refuses a credential id that exists. */
  createAuthenticator?(authenticator: AdapterAuthenticator): Awaitable<AdapterAuthenticator>;
  /** The authenticator with this credential id, or `null`. */
  getAuthenticator?(credentialID: AdapterAuthenticator['credentialID']): Awaitable<AdapterAuthenticator | null>;
  /** The user's authenticators. */
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
