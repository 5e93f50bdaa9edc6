// Beyond SPEC's adapter contract: the optional capabilities the library uses when an adapter has
// them (sign out everywhere, the device list, back-channel logout, token refresh, passkey names,
// account deletion, two-factor, refresh-token, API key and signing-key storage). `TypeOrmAdapter` and
// `MemoryAdapter` implement them all. Re-exported from `adapter.interface.ts`, so either import path works.
import type { Awaitable } from '../types/common.types.js';
import type { AdapterAccount, AdapterAuthenticator, AdapterSession, AdapterUser } from './adapter.interface.js';

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
  /**
   * How the user proved who they are at sign-in: RFC 8176 method references, space-separated
   * (`pwd otp mfa`), what `@RequireAal()` reads. Unknown (`null`, or no column) counts as one factor.
   */
  amr?: string | null;
}

/** The properties of {@link AdapterSessionDetails}: the optional columns of the sessions table. */
export const SESSION_DETAIL_FIELDS = Object.freeze([
  'createdAt',
  'lastSeenAt',
  'userAgent',
  'ip',
  'providerSid',
  'amr',
] as const satisfies readonly (keyof AdapterSessionDetails)[]);

/** A stored session as the device list reads it: SPEC's fields plus {@link AdapterSessionDetails}. */
export type AdapterSessionInfo = AdapterSession & AdapterSessionDetails;

/**
 * Beyond SPEC's contract: the sessions signed in from one OpenID Provider session, for a
 * back-channel logout token that names only its `sid`. `TypeOrmAdapter` and `MemoryAdapter`
 * implement it; without it such a token is refused (one with `sub` and `sid` needs only
 * `listSessionsByUserId`).
 */
export interface SessionsByProviderSidAdapter {
  /** Every session (database sessions and JWT index rows) whose `providerSid` is this one. */
  listSessionsByProviderSid(providerSid: string): Awaitable<AdapterSessionInfo[]>;
}

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
 * An adapter that says whether its accounts' token columns are read by this library alone (its own
 * default tables) or possibly by others (an Auth.js app sharing the tables, a third-party schema).
 * `encryptAccountTokens` defaults to on when it is `true`. `TypeOrmAdapter` says `true` without a
 * `schema` preset, `false` with one.
 */
export interface PrivateAccountTokensAdapter {
  readonly privateAccountTokens: boolean;
}

/**
 * A second factor of a user, beyond SPEC (two-factor authentication): a TOTP authenticator app, or
 * one backup code (one row per code, so a code is used by deleting its row: of concurrent uses,
 * exactly one deletes it). The library makes every value; an adapter stores and returns them as
 * given. Stored in their own table (`two_factors` in the TypeORM adapter), never in Auth.js's.
 */
export interface AdapterTwoFactor {
  /** A random id the library makes (a UUID). */
  id: string;
  userId: string;
  /** `totp` or `backup-code` (other values are kept as given). */
  type: string;
  /** The name the user gave it (TOTP), else `null`. */
  name: string | null;
  /**
   * TOTP: the shared secret, sealed (encrypted with the auth secret) by the library; a backup code:
   * its keyed hash. Never a secret or a code in clear.
   */
  secret: string;
  /** When the user confirmed it with a first code; `null` while an enrolment waits for that code. */
  confirmedAt: Date | null;
  createdAt: Date;
  /** When it last proved a sign-in. */
  lastUsedAt: Date | null;
  /** TOTP: the last time step accepted; a code of that step or an earlier one is refused (replay). */
  lastUsedStep: number | null;
}

/**
 * Beyond SPEC's contract: what two-factor authentication (`twoFactor` option) stores. `TypeOrmAdapter`
 * and `MemoryAdapter` implement it; the conformance suite checks it. Every method that names a factor
 * also takes its user, so one user can never reach another's factor by its id.
 */
export interface TwoFactorAdapter {
  /** Stores a new factor (as given) and returns it. */
  createTwoFactor(factor: AdapterTwoFactor): Awaitable<AdapterTwoFactor>;
  /** Every factor of the user (unconfirmed ones included), oldest first. */
  listTwoFactorsByUserId(userId: string): Awaitable<AdapterTwoFactor[]>;
  /** Sets the factor's `name` and/or `confirmedAt`; `null` when the user has no factor with this id. */
  updateTwoFactor(
    id: string,
    userId: string,
    patch: Partial<Pick<AdapterTwoFactor, 'name' | 'confirmedAt'>>,
  ): Awaitable<AdapterTwoFactor | null>;
  /**
   * Records a use of a TOTP factor at time step `step`, atomically: only when its stored
   * `lastUsedStep` is `null` or below `step` (then `lastUsedStep = step`, `lastUsedAt = at`) and it
   * belongs to the user. True when this call wrote; of concurrent calls with one step, exactly one.
   */
  useTwoFactorStep(id: string, userId: string, step: number, at: Date): Awaitable<boolean>;
  /** Deletes the user's factor; true when a row went (of concurrent calls, exactly one). */
  deleteTwoFactor(id: string, userId: string): Awaitable<boolean>;
  /** Deletes every factor of the user (of `type` only, when given); returns how many went. */
  deleteTwoFactorsByUserId(userId: string, type?: string): Awaitable<number>;
  /**
   * Replaces every factor of `type` of the user with `factors` (all of that type and user), in one
   * transaction: regenerated backup codes make the old ones stop working at the same instant.
   */
  replaceTwoFactors(userId: string, type: string, factors: AdapterTwoFactor[]): Awaitable<void>;
}

/** {@link TwoFactorAdapter}'s methods: an adapter offers two-factor storage when each is a function. */
export const TWO_FACTOR_ADAPTER_METHODS = Object.freeze([
  'createTwoFactor',
  'listTwoFactorsByUserId',
  'updateTwoFactor',
  'useTwoFactorStep',
  'deleteTwoFactor',
  'deleteTwoFactorsByUserId',
  'replaceTwoFactors',
] as const satisfies readonly (keyof TwoFactorAdapter)[]);

/**
 * One native-app sign-in, beyond SPEC: the refresh tokens it has had, of which only the newest is
 * usable (RFC 9700 rotation). The library makes every value; an adapter stores and returns them as
 * given. Stored in their own table (`refresh_token_families` in the TypeORM adapter), never in
 * Auth.js's. A stored family whose fields are not of their types (a date that is no date, a
 * generation that is no whole number) reads as missing: the sign-in ends rather than go on with it.
 */
export interface AdapterRefreshFamily {
  /** Random id (43 base64url chars); the access tokens' `sid`. */
  id: string;
  userId: string;
  /** The registered native client it was issued to. */
  clientId: string;
  /** Generation of the current refresh token: 0 at sign-in, +1 per rotation. */
  generation: number;
  /** SHA-256 (base64url) of the current refresh token: never the token. */
  tokenHash: string;
  /** When the current token was minted (the sign-in, then each rotation). */
  rotatedAt: Date;
  /** When the family ends: no refresh after it. */
  expires: Date;
  /** When the user signed in (the access tokens' `auth_time`). */
  authTime: Date;
  /** What the sign-in proved (`amr` values, e.g. ['pwd','otp']); empty when unknown. */
  amr: string[];
}

/**
 * Beyond SPEC's contract: what native-app sign-ins (refresh-token rotation) store. `TypeOrmAdapter`
 * and `MemoryAdapter` implement it; the conformance suite checks it. Deleting the user deletes its
 * families.
 */
export interface RefreshTokenAdapter {
  /** Stores a new family (as given) and returns it. */
  createRefreshFamily(family: AdapterRefreshFamily): Awaitable<AdapterRefreshFamily>;
  /** The family, or `null` when there is none (or the stored one is not a valid family). */
  getRefreshFamily(id: string): Awaitable<AdapterRefreshFamily | null>;
  /**
   * Rotates atomically: only when the stored generation is `from` (then generation = from + 1 and
   * tokenHash/rotatedAt/expires as given). True when this call wrote; of concurrent calls with one
   * `from`, exactly one.
   */
  rotateRefreshFamily(
    id: string,
    from: number,
    next: Pick<AdapterRefreshFamily, 'tokenHash' | 'rotatedAt' | 'expires'>,
  ): Awaitable<boolean>;
  /** Deletes the family; true when a row went. */
  deleteRefreshFamily(id: string): Awaitable<boolean>;
  /** Deletes every family of the user; returns how many went. */
  deleteRefreshFamiliesByUserId(userId: string): Awaitable<number>;
}

/** {@link RefreshTokenAdapter}'s methods: an adapter offers refresh-token storage when each is a function. */
export const REFRESH_TOKEN_ADAPTER_METHODS = Object.freeze([
  'createRefreshFamily',
  'getRefreshFamily',
  'rotateRefreshFamily',
  'deleteRefreshFamily',
  'deleteRefreshFamiliesByUserId',
] as const satisfies readonly (keyof RefreshTokenAdapter)[]);

/**
 * An API key as stored, beyond SPEC: never the key, only its hash. The library makes every value; an
 * adapter stores and returns them as given. Stored in their own table (`api_keys` in the TypeORM
 * adapter), never in Auth.js's. A stored key whose fields are not of their types (a date that is no
 * date, an empty id or hash, scopes that are no list of words) reads as missing: the key stops
 * working rather than work with fields nobody wrote.
 */
export interface AdapterApiKey {
  /** The key's public id (12 base62 characters, part of the key itself): how a presented key is found. */
  id: string;
  userId: string;
  /** What the user called it. */
  name: string;
  /** SHA-256 (base64url, 43 characters) of the whole key. */
  keyHash: string;
  /** The key's last four characters (of its checksum), to tell keys apart in a list. */
  hint: string;
  /** What the key may do; empty: nothing a route restricts by scope. */
  scopes: string[];
  createdAt: Date;
  /** When it stops working; null: never. */
  expires: Date | null;
  /** When it was last used (written at most once a minute); null: never. */
  lastUsedAt: Date | null;
}

/**
 * Beyond SPEC's contract: what API keys store. `TypeOrmAdapter` and `MemoryAdapter` implement it;
 * the conformance suite checks it. Every method that changes a key also takes its user, so one user
 * can never reach another's key by its id. Deleting the user deletes its keys.
 */
export interface ApiKeyAdapter {
  /** Stores a new key (as given) and returns it. */
  createApiKey(key: AdapterApiKey): Awaitable<AdapterApiKey>;
  /** The key, or `null` when there is none (or the stored one is not a valid key). */
  getApiKey(id: string): Awaitable<AdapterApiKey | null>;
  /** The user's keys, oldest first. */
  listApiKeysByUserId(userId: string): Awaitable<AdapterApiKey[]>;
  /** Sets `name` and/or `lastUsedAt` of the user's key; null when the user has no key with this id. */
  updateApiKey(
    id: string,
    userId: string,
    patch: Partial<Pick<AdapterApiKey, 'name' | 'lastUsedAt'>>,
  ): Awaitable<AdapterApiKey | null>;
  /** Deletes the user's key; true when a row went (of concurrent calls, exactly one). */
  deleteApiKey(id: string, userId: string): Awaitable<boolean>;
  /** Deletes every key of the user; how many went. */
  deleteApiKeysByUserId(userId: string): Awaitable<number>;
}

/** {@link ApiKeyAdapter}'s methods: an adapter offers API key storage when each is a function. */
export const API_KEY_ADAPTER_METHODS = Object.freeze([
  'createApiKey',
  'getApiKey',
  'listApiKeysByUserId',
  'updateApiKey',
  'deleteApiKey',
  'deleteApiKeysByUserId',
] as const satisfies readonly (keyof ApiKeyAdapter)[]);

/**
 * A key that signs access tokens, as stored, beyond SPEC: its private half sealed under the secret.
 * Keys belong to no user: every instance of the app reads the same ones. The library makes every
 * value; an adapter stores and returns them as given (`signing_keys` in the TypeORM adapter). A
 * stored key whose fields are not of their types (a date that is no date, a slot that is no whole
 * number, a public key that is no JSON) reads as missing: it neither signs nor is published.
 */
export interface AdapterSigningKey {
  /** The key id (`kid`): the RFC 7638 thumbprint of its public key (43 base64url characters). */
  id: string;
  /** `EdDSA` (Ed25519) or `RS256` (RSA, `accessToken.algorithm`); `ES256` only for given keys, never stored. */
  alg: string;
  /** The public key, a JWK as JSON text. */
  publicJwk: string;
  /** The private key, encrypted by the caller (the adapter stores the text as given). */
  privateKey: string;
  /** The rotation slot it was made for: unique, so instances rotating at once make one key per slot. */
  slot: number;
  createdAt: Date;
  /** When it starts signing; published from `createdAt` on. */
  activatesAt: Date;
  /** When it stops being published (no token it signed is still valid); null: not scheduled. */
  removesAt: Date | null;
}

/**
 * Beyond SPEC's contract: what rotated signing keys store. `TypeOrmAdapter` and `MemoryAdapter`
 * implement it; the conformance suite checks it.
 */
export interface SigningKeyAdapter {
  /** Stores a new key; `AdapterConflictError` when a key with its id or slot exists (nothing written). */
  createSigningKey(key: AdapterSigningKey): Awaitable<AdapterSigningKey>;
  /** Every stored key, oldest slot first. */
  listSigningKeys(): Awaitable<AdapterSigningKey[]>;
  /** Sets `activatesAt` and/or `removesAt`; null when there is no such key. */
  updateSigningKey(
    id: string,
    patch: Partial<Pick<AdapterSigningKey, 'activatesAt' | 'removesAt'>>,
  ): Awaitable<AdapterSigningKey | null>;
  /** Deletes a key; true when a row went. */
  deleteSigningKey(id: string): Awaitable<boolean>;
}

/** {@link SigningKeyAdapter}'s methods: an adapter offers signing-key storage when each is a function. */
export const SIGNING_KEY_ADAPTER_METHODS = Object.freeze([
  'createSigningKey',
  'listSigningKeys',
  'updateSigningKey',
  'deleteSigningKey',
] as const satisfies readonly (keyof SigningKeyAdapter)[]);
