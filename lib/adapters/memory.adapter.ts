import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type {
  AccountTokens,
  AccountTokensAdapter,
  Adapter,
  AdapterAccount,
  AdapterApiKey,
  AdapterAuthenticator,
  AdapterRefreshFamily,
  AdapterSession,
  AdapterSessionDetails,
  AdapterSessionInfo,
  AdapterSigningKey,
  AdapterTwoFactor,
  AdapterUser,
  ApiKeyAdapter,
  RefreshTokenAdapter,
  SigningKeyAdapter,
  TwoFactorAdapter,
  UserDeletionAdapter,
  PasskeyNamesAdapter,
  SessionListingAdapter,
  SessionsByProviderSidAdapter,
  VerificationToken,
} from './adapter.interface.js';
import { AdapterConflictError, AdapterNotFoundError } from '../errors/auth.errors.js';
import {
  accountKey,
  apiKeyPatch,
  copy,
  copyOrNull,
  definedOnly,
  deleteWhere,
  hasEmail,
  newApiKey,
  newRefreshFamily,
  newSigningKey,
  refreshRotation,
  sessionDetailsOf,
  signingKeyPatch,
  specSession,
  storedApiKey,
  storedAuthenticator,
  storedRefreshFamily,
  storedSigningKey,
  storedTwoFactor,
  swappedTokens,
  tokenKey,
  type AccountKey,
} from './memory-store.helpers.js';

/**
 * A complete adapter that keeps everything in process memory: for tests, demos and single-process
 * prototypes. Data is lost on restart and not shared between processes.
 *
 * It enforces what a database schema would: unique `users.email`, unique
 * `(provider, providerAccountId)`, unique session tokens and credential ids, records that point
 * to a user require that user, and `deleteUser` cascades to sessions, accounts, authenticators,
 * second factors, refresh-token families and API keys.
 * Every method works on copies, so callers can never change the store by mutating a result.
 * Every method runs without awaiting before it writes, so each call is atomic in Node's event loop
 * (`useVerificationToken` hands a token out once even under concurrent calls).
 *
 * @example
 * AuthModule.forRoot({ secret, providers, adapter: MemoryAdapter })
 */
@Injectable()
export class MemoryAdapter
  implements
    Adapter,
    AccountTokensAdapter,
    UserDeletionAdapter,
    PasskeyNamesAdapter,
    SessionListingAdapter,
    SessionsByProviderSidAdapter,
    TwoFactorAdapter,
    RefreshTokenAdapter,
    ApiKeyAdapter,
    SigningKeyAdapter
{
  private readonly users = new Map<string, AdapterUser>();
  /** email → user id, the unique index on `users.email`. */
  private readonly usersByEmail = new Map<string, string>();
  private readonly accounts = new Map<string, AdapterAccount>();
  /** Sessions with their optional details (device list); lookups return SPEC's fields only. */
  private readonly sessions = new Map<string, AdapterSessionInfo>();
  private readonly verificationTokens = new Map<string, VerificationToken>();
  private readonly authenticators = new Map<string, AdapterAuthenticator>();
  /** Second factors by id, in the order they were stored. */
  private readonly twoFactors = new Map<string, AdapterTwoFactor>();
  /** Refresh-token families (native-app sign-ins) by id. */
  private readonly refreshFamilies = new Map<string, AdapterRefreshFamily>();
  /** API keys by id, in the order they were stored. */
  private readonly apiKeys = new Map<string, AdapterApiKey>();
  /** Signing keys by id (few: a handful per rotation period). */
  private readonly signingKeys = new Map<string, AdapterSigningKey>();

  async createUser(user: AdapterUser): Promise<AdapterUser> {
    const id = user.id || randomUUID();
    if (this.users.has(id))
      throw new AdapterConflictError('user', 'Storage refused the write: a user with this id exists.');
    if (hasEmail(user) && this.usersByEmail.has(user.email)) throw new AdapterConflictError('user.email');
    const stored: AdapterUser = copy({ ...definedOnly(user), id, emailVerified: user.emailVerified ?? null });
    this.users.set(id, stored);
    if (hasEmail(stored)) this.usersByEmail.set(stored.email, id);
    return copy(stored);
  }

  async getUser(id: string): Promise<AdapterUser | null> {
    return copyOrNull(this.users.get(id));
  }

  async getUserByEmail(email: string): Promise<AdapterUser | null> {
    const id = this.usersByEmail.get(email);
    return id === undefined ? null : copyOrNull(this.users.get(id));
  }

  async getUserByAccount(key: AccountKey): Promise<AdapterUser | null> {
    const account = this.accounts.get(accountKey(key));
    return account ? copyOrNull(this.users.get(account.userId)) : null;
  }

  async updateUser(user: Partial<AdapterUser> & Pick<AdapterUser, 'id'>): Promise<AdapterUser> {
    const current = this.users.get(user.id);
    if (!current) throw new AdapterNotFoundError('user');
    const changes = definedOnly(user);
    if (hasEmail(changes) && changes.email !== current.email && this.usersByEmail.has(changes.email)) {
      throw new AdapterConflictError('user.email');
    }
    const next: AdapterUser = { ...current, ...copy(changes), id: current.id };
    if (next.email !== current.email) {
      if (hasEmail(current)) this.usersByEmail.delete(current.email);
      if (hasEmail(next)) this.usersByEmail.set(next.email, next.id);
    }
    this.users.set(next.id, next);
    return copy(next);
  }

  async deleteUser(userId: string): Promise<AdapterUser | null> {
    const user = this.users.get(userId);
    if (!user) return null;
    // The cascade a database does with ON DELETE CASCADE.
    deleteWhere(this.sessions, (session) => session.userId === userId);
    deleteWhere(this.accounts, (account) => account.userId === userId);
    deleteWhere(this.authenticators, (authenticator) => authenticator.userId === userId);
    deleteWhere(this.twoFactors, (factor) => factor.userId === userId);
    deleteWhere(this.refreshFamilies, (family) => family.userId === userId);
    deleteWhere(this.apiKeys, (key) => key.userId === userId);
    this.users.delete(userId);
    if (hasEmail(user)) this.usersByEmail.delete(user.email);
    return copy(user);
  }

  /** `deleteUser` plus the address's verification tokens, in one synchronous step (`UserDeletionAdapter`). */
  async deleteUserCascade(userId: string): Promise<AdapterUser | null> {
    const user = this.users.get(userId);
    if (user && hasEmail(user)) deleteWhere(this.verificationTokens, (t) => t.identifier === user.email);
    return this.deleteUser(userId);
  }

  async linkAccount(account: AdapterAccount): Promise<AdapterAccount> {
    const key = accountKey(account);
    if (!this.users.has(account.userId))
      throw new AdapterNotFoundError('user', 'Cannot link an account to a user that does not exist.');
    if (this.accounts.has(key))
      throw new AdapterConflictError('account', 'This provider account is already linked to a user.');
    const stored = copy(definedOnly(account)) as AdapterAccount;
    this.accounts.set(key, stored);
    return copy(stored);
  }

  async unlinkAccount(key: AccountKey): Promise<AdapterAccount | undefined> {
    const k = accountKey(key);
    const account = this.accounts.get(k);
    if (!account) return undefined;
    this.accounts.delete(k);
    return copy(account);
  }

  async getAccount(providerAccountId: string, provider: string): Promise<AdapterAccount | null> {
    return copyOrNull(this.accounts.get(accountKey({ provider, providerAccountId })));
  }

  async createSession(
    session: { sessionToken: string; userId: string; expires: Date } & AdapterSessionDetails,
  ): Promise<AdapterSession> {
    if (!this.users.has(session.userId))
      throw new AdapterNotFoundError('user', 'Cannot create a session for a user that does not exist.');
    if (this.sessions.has(session.sessionToken)) throw new AdapterConflictError('session');
    const stored = specSession(session);
    this.sessions.set(stored.sessionToken, { ...stored, ...sessionDetailsOf(session) });
    return copy(stored);
  }

  /** The user's sessions with their details (beyond SPEC: `SessionListingAdapter`). */
  async listSessionsByUserId(userId: string): Promise<AdapterSessionInfo[]> {
    return [...this.sessions.values()].filter((s) => s.userId === userId).map(copy);
  }

  /** The sessions of one OP session (beyond SPEC: `SessionsByProviderSidAdapter`). */
  async listSessionsByProviderSid(providerSid: string): Promise<AdapterSessionInfo[]> {
    return [...this.sessions.values()].filter((s) => providerSid && s.providerSid === providerSid).map(copy);
  }

  async getSessionAndUser(sessionToken: string): Promise<{ session: AdapterSession; user: AdapterUser } | null> {
    const session = this.sessions.get(sessionToken);
    const user = session && this.users.get(session.userId);
    return session && user ? { session: specSession(session), user: copy(user) } : null;
  }

  async updateSession(
    session: Partial<AdapterSession> & Pick<AdapterSession, 'sessionToken'> & AdapterSessionDetails,
  ): Promise<AdapterSession | null> {
    const current = this.sessions.get(session.sessionToken);
    if (!current) return null;
    if (session.userId !== undefined && !this.users.has(session.userId)) throw new AdapterNotFoundError('user');
    const next: AdapterSession = {
      sessionToken: current.sessionToken,
      userId: session.userId ?? current.userId,
      expires: session.expires ? new Date(session.expires) : current.expires,
    };
    this.sessions.set(next.sessionToken, { ...current, ...sessionDetailsOf(session), ...next });
    return copy(next);
  }

  /** The user's accounts, in the order they were linked (beyond SPEC: `AccountTokensAdapter`). */
  async listAccountsByUserId(userId: string): Promise<AdapterAccount[]> {
    return [...this.accounts.values()].filter((a) => a.userId === userId).map(copy);
  }

  /** Compare-and-swap of the account's tokens (beyond SPEC: `AccountTokensAdapter`). */
  async updateAccountTokens(
    match: AccountKey & { refresh_token: string | null; expires_at: number | null },
    next: AccountTokens,
  ): Promise<AdapterAccount | null> {
    const key = accountKey(match);
    const updated = swappedTokens(this.accounts.get(key), match, next);
    if (!updated) return null;
    this.accounts.set(key, updated);
    return copy(updated);
  }

  /** Deletes every verification token of an identifier (beyond SPEC: `VerificationTokensByIdentifierAdapter`). */
  async deleteVerificationTokensByIdentifier(identifier: string): Promise<number> {
    return deleteWhere(this.verificationTokens, (token) => token.identifier === identifier);
  }

  /** Deletes every session of a user (beyond SPEC: `SessionsByUserAdapter`). */
  async deleteSessionsByUserId(userId: string): Promise<number> {
    return deleteWhere(this.sessions, (session) => session.userId === userId);
  }

  async deleteSession(sessionToken: string): Promise<AdapterSession | null> {
    const session = this.sessions.get(sessionToken);
    if (!session) return null;
    this.sessions.delete(sessionToken);
    return specSession(session);
  }

  async createVerificationToken(token: VerificationToken): Promise<VerificationToken> {
    const key = tokenKey(token);
    if (this.verificationTokens.has(key)) throw new AdapterConflictError('verificationToken');
    const stored: VerificationToken = {
      identifier: token.identifier,
      token: token.token,
      expires: new Date(token.expires),
    };
    this.verificationTokens.set(key, stored);
    return copy(stored);
  }

  async useVerificationToken(params: { identifier: string; token: string }): Promise<VerificationToken | null> {
    // Read and delete with no await in between: the event loop makes it one atomic step.
    const key = tokenKey(params);
    const token = this.verificationTokens.get(key);
    if (!token) return null;
    this.verificationTokens.delete(key);
    return copy(token);
  }

  async createAuthenticator(authenticator: AdapterAuthenticator): Promise<AdapterAuthenticator> {
    if (!this.users.has(authenticator.userId))
      throw new AdapterNotFoundError('user', 'Cannot create an authenticator for a user that does not exist.');
    if (this.authenticators.has(authenticator.credentialID)) throw new AdapterConflictError('authenticator');
    const stored = storedAuthenticator(authenticator);
    this.authenticators.set(stored.credentialID, stored);
    return copy(stored);
  }

  async getAuthenticator(credentialID: string): Promise<AdapterAuthenticator | null> {
    return copyOrNull(this.authenticators.get(credentialID));
  }

  async listAuthenticatorsByUserId(userId: string): Promise<AdapterAuthenticator[]> {
    return [...this.authenticators.values()].filter((a) => a.userId === userId).map(copy);
  }

  async updateAuthenticatorCounter(
    credentialID: string,
    newCounter: number,
    expectedCounter?: number,
  ): Promise<AdapterAuthenticator> {
    const current = this.authenticators.get(credentialID);
    if (!current) throw new AdapterNotFoundError('authenticator');
    if (expectedCounter !== undefined && current.counter !== expectedCounter) {
      throw new AdapterConflictError(
        'authenticator.counter',
        'The authenticator was used concurrently: its counter changed since it was read.',
      );
    }
    // The same write records when the passkey was last used (beyond SPEC).
    const next: AdapterAuthenticator = { ...current, counter: newCounter, lastUsedAt: new Date() };
    this.authenticators.set(credentialID, next);
    return copy(next);
  }

  /** Sets or clears the authenticator's name (beyond SPEC: `PasskeyNamesAdapter`). */
  async updateAuthenticatorName(credentialID: string, name: string | null): Promise<AdapterAuthenticator | null> {
    const current = this.authenticators.get(credentialID);
    if (!current) return null;
    const next: AdapterAuthenticator = { ...current, name };
    this.authenticators.set(credentialID, next);
    return copy(next);
  }

  /** Deletes the authenticator (beyond SPEC: `PasskeyNamesAdapter`). */
  async deleteAuthenticator(credentialID: string): Promise<boolean> {
    return this.authenticators.delete(credentialID);
  }

  // ---- two-factor authentication (beyond SPEC: `TwoFactorAdapter`) ------------------------------

  /** Stores a new factor of an existing user. */
  async createTwoFactor(factor: AdapterTwoFactor): Promise<AdapterTwoFactor> {
    if (!this.users.has(factor.userId))
      throw new AdapterNotFoundError('user', 'Cannot create a second factor for a user that does not exist.');
    if (this.twoFactors.has(factor.id)) throw new AdapterConflictError('twoFactor');
    const stored = storedTwoFactor(factor);
    this.twoFactors.set(stored.id, stored);
    return copy(stored);
  }

  /** The user's factors, oldest first (those created at the same instant in the order they were stored). */
  async listTwoFactorsByUserId(userId: string): Promise<AdapterTwoFactor[]> {
    return [...this.twoFactors.values()]
      .filter((f) => f.userId === userId)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
      .map(copy);
  }

  /** Sets the factor's `name` and/or `confirmedAt`; `null` when the user has no factor with this id. */
  async updateTwoFactor(
    id: string,
    userId: string,
    patch: Partial<Pick<AdapterTwoFactor, 'name' | 'confirmedAt'>>,
  ): Promise<AdapterTwoFactor | null> {
    const current = this.twoFactors.get(id);
    if (!current || current.userId !== userId) return null;
    const next: AdapterTwoFactor = { ...current };
    if (patch.name !== undefined) next.name = patch.name;
    if (patch.confirmedAt !== undefined) next.confirmedAt = copy(patch.confirmedAt);
    this.twoFactors.set(id, next);
    return copy(next);
  }

  /** Records a use at a time step above the last one, in one synchronous step (a compare-and-set). */
  async useTwoFactorStep(id: string, userId: string, step: number, at: Date): Promise<boolean> {
    const current = this.twoFactors.get(id);
    if (!current || current.userId !== userId) return false;
    if (current.lastUsedStep !== null && current.lastUsedStep >= step) return false;
    this.twoFactors.set(id, { ...current, lastUsedStep: step, lastUsedAt: new Date(at) });
    return true;
  }

  /** Deletes the user's factor; `true` when it went. */
  async deleteTwoFactor(id: string, userId: string): Promise<boolean> {
    const current = this.twoFactors.get(id);
    if (!current || current.userId !== userId) return false;
    return this.twoFactors.delete(id);
  }

  /** Deletes the user's factors (of `type` only, when given); returns how many went. */
  async deleteTwoFactorsByUserId(userId: string, type?: string): Promise<number> {
    return deleteWhere(this.twoFactors, (f) => f.userId === userId && (type === undefined || f.type === type));
  }

  /** Replaces the user's factors of `type` with `factors`, all or nothing, in one synchronous step. */
  async replaceTwoFactors(userId: string, type: string, factors: AdapterTwoFactor[]): Promise<void> {
    if (factors.some((f) => f.userId !== userId || f.type !== type))
      throw new TypeError('replaceTwoFactors: every factor must be of the user and type it replaces.');
    if (factors.length && !this.users.has(userId))
      throw new AdapterNotFoundError('user', 'Cannot create a second factor for a user that does not exist.');
    const replaced = (f: AdapterTwoFactor) => f.userId === userId && f.type === type;
    const ids = new Set<string>();
    for (const factor of factors) {
      const existing = this.twoFactors.get(factor.id);
      if (ids.has(factor.id) || (existing && !replaced(existing))) throw new AdapterConflictError('twoFactor');
      ids.add(factor.id);
    }
    deleteWhere(this.twoFactors, replaced);
    for (const factor of factors) this.twoFactors.set(factor.id, storedTwoFactor(factor));
  }

  // ---- refresh-token families (beyond SPEC: `RefreshTokenAdapter`) --------------------------------

  /** Stores a new family of an existing user (`TypeError` for one whose fields are not of their types). */
  async createRefreshFamily(family: AdapterRefreshFamily): Promise<AdapterRefreshFamily> {
    const stored = newRefreshFamily(family);
    if (!this.users.has(stored.userId))
      throw new AdapterNotFoundError('user', 'Cannot create a refresh-token family for a user that does not exist.');
    if (this.refreshFamilies.has(stored.id))
      throw new AdapterConflictError(
        'session',
        'Storage refused the write: a refresh-token family with this id exists.',
      );
    this.refreshFamilies.set(stored.id, stored);
    return copy(stored);
  }

  /** The family, checked as it is read (one whose fields are not of their types is `null`). */
  async getRefreshFamily(id: string): Promise<AdapterRefreshFamily | null> {
    const stored = this.refreshFamilies.get(id);
    return stored ? storedRefreshFamily(stored) : null;
  }

  /** Rotates only when the stored generation is `from`, in one synchronous step (a compare-and-set). */
  async rotateRefreshFamily(
    id: string,
    from: number,
    next: Pick<AdapterRefreshFamily, 'tokenHash' | 'rotatedAt' | 'expires'>,
  ): Promise<boolean> {
    const rotation = refreshRotation(from, next);
    const current = this.refreshFamilies.get(id);
    if (!rotation || !current || current.generation !== from) return false;
    this.refreshFamilies.set(id, { ...current, ...rotation });
    return true;
  }

  /** Deletes the family; `true` when it went. */
  async deleteRefreshFamily(id: string): Promise<boolean> {
    return this.refreshFamilies.delete(id);
  }

  /** Deletes every family of the user; returns how many went. */
  async deleteRefreshFamiliesByUserId(userId: string): Promise<number> {
    return deleteWhere(this.refreshFamilies, (family) => family.userId === userId);
  }

  // ---- API keys (beyond SPEC: `ApiKeyAdapter`) ----------------------------------------------------

  /** Stores a new key of an existing user (`TypeError` for one whose fields are not of their types). */
  async createApiKey(key: AdapterApiKey): Promise<AdapterApiKey> {
    const stored = newApiKey(key);
    if (!this.users.has(stored.userId))
      throw new AdapterNotFoundError('user', 'Cannot create an API key for a user that does not exist.');
    if (this.apiKeys.has(stored.id))
      throw new AdapterConflictError('apiKey', 'Storage refused the write: an API key with this id exists.');
    this.apiKeys.set(stored.id, stored);
    return copy(stored);
  }

  /** The key, checked as it is read (one whose fields are not of their types is `null`). */
  async getApiKey(id: string): Promise<AdapterApiKey | null> {
    const stored = this.apiKeys.get(id);
    return stored ? storedApiKey(stored) : null;
  }

  /** The user's keys, oldest first (by `createdAt`, then in the order they were stored); invalid ones left out. */
  async listApiKeysByUserId(userId: string): Promise<AdapterApiKey[]> {
    const keys: AdapterApiKey[] = [];
    for (const stored of this.apiKeys.values()) {
      const key = stored.userId === userId ? storedApiKey(stored) : null;
      if (key) keys.push(key);
    }
    return keys.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  }

  /** Sets the key's `name` and/or `lastUsedAt`; `null` when the user has no key with this id. */
  async updateApiKey(
    id: string,
    userId: string,
    patch: Partial<Pick<AdapterApiKey, 'name' | 'lastUsedAt'>>,
  ): Promise<AdapterApiKey | null> {
    const changes = apiKeyPatch(patch);
    const current = this.apiKeys.get(id);
    if (!current || current.userId !== userId) return null;
    const next = { ...current, ...changes };
    this.apiKeys.set(id, next);
    return storedApiKey(next);
  }

  /** Deletes the user's key; `true` when it went. */
  async deleteApiKey(id: string, userId: string): Promise<boolean> {
    return this.apiKeys.get(id)?.userId === userId && this.apiKeys.delete(id);
  }

  /** Deletes every key of the user; returns how many went. */
  async deleteApiKeysByUserId(userId: string): Promise<number> {
    return deleteWhere(this.apiKeys, (key) => key.userId === userId);
  }

  // ---- signing keys (beyond SPEC: `SigningKeyAdapter`) --------------------------------------------

  /** Stores a new key (`TypeError` for one whose fields are not of their types); its id and slot are unique. */
  async createSigningKey(key: AdapterSigningKey): Promise<AdapterSigningKey> {
    const stored = newSigningKey(key);
    // Every stored key counts, a corrupted one too: a database's unique index would.
    if (this.signingKeys.has(stored.id) || [...this.signingKeys.values()].some((k) => k.slot === stored.slot))
      throw new AdapterConflictError(
        'signingKey',
        'Storage refused the write: a signing key with this id or slot exists.',
      );
    this.signingKeys.set(stored.id, stored);
    return copy(stored);
  }

  /** Every key, oldest slot first, checked as it is read (one whose fields are not of their types is left out). */
  async listSigningKeys(): Promise<AdapterSigningKey[]> {
    const keys: AdapterSigningKey[] = [];
    for (const stored of this.signingKeys.values()) {
      const key = storedSigningKey(stored);
      if (key) keys.push(key);
    }
    return keys.sort((a, b) => a.slot - b.slot);
  }

  /** Sets the key's `activatesAt` and/or `removesAt`; `null` when there is no such key. */
  async updateSigningKey(
    id: string,
    patch: Partial<Pick<AdapterSigningKey, 'activatesAt' | 'removesAt'>>,
  ): Promise<AdapterSigningKey | null> {
    const changes = signingKeyPatch(patch);
    const current = this.signingKeys.get(id);
    if (!current) return null;
    const next = { ...current, ...changes };
    this.signingKeys.set(id, next);
    return storedSigningKey(next);
  }

  /** Deletes the key; `true` when it went. */
  async deleteSigningKey(id: string): Promise<boolean> {
    return this.signingKeys.delete(id);
  }
}
