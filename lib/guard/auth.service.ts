import { Inject, Injectable } from '@nestjs/common';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { Adapter, AdapterAccount, SessionsByUserAdapter } from '../adapters/adapter.interface.js';
import {
  InvalidRequest,
  MissingAdapterMethods,
  SecondFactorRequired,
  SessionRequired,
  SignOutError,
} from '../errors/auth.errors.js';
import { AdapterService } from '../core/adapter.service.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { sessionLookupOf, type HttpRequestLike } from '../http/auth-request.factory.js';
import type { Session } from '../types/common.types.js';
import { SessionCache } from '../session/session-cache.js';
import type { SessionInfo } from '../session/session-devices.js';
import { SessionIssuer } from '../session/session-issuer.js';
import { SessionList } from '../session/session-list.js';
import { SessionReader } from '../session/session-reader.js';
import type { AuthUser } from '../session/session.types.js';
import type { PasskeyInfo } from '../methods/webauthn/index.js';
import { TwoFactors } from '../methods/two-factor/index.js';
import { Passkeys } from '../account/passkeys.js';
import { EmailChangeService } from '../account/email-change.service.js';
import { PasswordChangeService } from '../account/password-change.service.js';
import { publicOrigin } from '../core/public-origin.js';
import { graphqlWsAuth, type GraphqlWsAuthOptions } from './graphql-ws.js';
import { AccountManagementService, type LinkedAccountInfo } from '../sign-in/account-management.service.js';
import { assertSensitiveAction, type SensitiveActionProof } from './sensitive-action.js';
import { assertRecentSignIn } from '../session/recent-sign-in.js';
import type { Assurance } from '../session/assurance.js';
import { AccessTokenService } from './access-token.service.js';
import { SigningKeys, type PublicSigningJwk } from '../session/signing-keys.js';
import { ApiKeys, type ApiKeyInfo, type ApiKeyInput, type CreatedApiKey } from '../tokens/api-keys.service.js';
import { UserAccessTokens, type IssuedAccessToken } from '../tokens/user-access-tokens.js';

/**
 * Session and account operations for application code (controllers, services).
 */
@Injectable()
export class AuthService {
  /**
   * Nest injects this service; an app does not construct it.
   *
   * @internal
   */
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly reader: SessionReader,
    private readonly issuer: SessionIssuer,
    private readonly cache: SessionCache,
    private readonly sessionList: SessionList,
    private readonly adapters: AdapterService,
    private readonly accessTokens: AccessTokenService,
    private readonly passkeys: Passkeys,
    private readonly emailChange: EmailChangeService,
    private readonly passwords: PasswordChangeService,
    private readonly accounts: AccountManagementService,
    private readonly twoFactors: TwoFactors,
    private readonly userTokens: UserAccessTokens,
    private readonly apiKeys: ApiKeys,
    private readonly signingKeys: SigningKeys,
  ) {}

  /**
   * An access token for the request's signed-in user (a session: the cookie, or a session token as
   * `Authorization: Bearer`), to call this API or another service with: a JWT (`typ: at+jwt`) that
   * services verify from `{basePath}/jwks` (or with `nestjs-auth/verify`). `audience`: this API's
   * (`accessToken.audience`) by default, or one of `accessToken.audiences`; `scope`: the scopes it
   * is limited to (each one of `accessToken.scopes` when set). Ending the session revokes it here
   * (by its `sid`); elsewhere it lives `accessToken.maxAge`.
   *
   * @throws SessionRequired without a session (an access token or API key cannot mint one);
   *   InvalidRequest for an audience or scope not allowed, or without the `accessToken` option
   */
  async issueAccessToken(
    request: HttpRequestLike,
    options: { audience?: string; scope?: string | string[] } = {},
  ): Promise<IssuedAccessToken> {
    const state = await this.reader.read(sessionLookupOf(request, this.config));
    if (state.status !== 'active') throw new SessionRequired('Sign in first.');
    return this.userTokens.issue(state, options);
  }

  /**
   * The access tokens' public keys as a JWK Set (what `GET {basePath}/jwks` answers), e.g. to serve
   * at `/.well-known/jwks.json` too. Empty without access tokens.
   */
  jwks(): { keys: PublicSigningJwk[] } {
    return this.config.accessToken?.enabled ? this.signingKeys.jwks() : { keys: [] };
  }

  /**
   * Rotates the access tokens' signing key now (`accessToken.keys: 'stored'`): a new key is published
   * at once and signs after `rotation.publishAhead` (with `immediately`, at once). The old key still
   * verifies what it signed until those tokens expire. Returns the new key's id (`kid`).
   */
  rotateSigningKey(options: { immediately?: boolean } = {}): Promise<string> {
    return this.signingKeys.rotate(options);
  }

  /** Removes a signing key now (one that leaked): every token it signed is refused from then on. */
  removeSigningKey(kid: string): Promise<boolean> {
    return this.signingKeys.remove(kid);
  }

  /** The user's API keys (`apiKeys`): `{ id, name, hint, scopes, createdAt, expires, lastUsedAt }`, never a key. */
  listApiKeys(userId: string): Promise<ApiKeyInfo[]> {
    return this.apiKeys.list(userId);
  }

  /**
   * A new API key for the user: `{ key, apiKey }`, the key shown this once (only its hash is kept).
   * Ask for a recent sign-in first (the account API does): a key is a new way in.
   */
  createApiKey(userId: string, input: ApiKeyInput): Promise<CreatedApiKey> {
    return this.apiKeys.create(userId, input);
  }

  /** Replaces one of the user's API keys with a new one (same name, scopes, expiry); the old one stops at once. */
  rotateApiKey(userId: string, id: string): Promise<CreatedApiKey> {
    return this.apiKeys.rotate(userId, id);
  }

  /** Revokes one of the user's API keys: refused at once on every instance (with a revocation bus). */
  revokeApiKey(userId: string, id: string): Promise<void> {
    return this.apiKeys.revoke(userId, id);
  }

  /**
   * Recovery for a user who lost every second factor (`twoFactor`): removes all their authenticator
   * apps and backup codes and ends their sessions (database sessions, native app sign-ins, and JWT
   * sessions with `session.jwtRevocation`). Their next sign-in asks for no second factor, or,
   * when the policy requires one, enrols a new app before it completes; never a silent downgrade of
   * a session. Call it from trusted server code only (an administrator who checked who is asking).
   * Returns how many factors went.
   */
  async resetTwoFactor(userId: string): Promise<number> {
    if (!this.config.twoFactor)
      throw new InvalidRequest('Two-factor authentication is not turned on (`twoFactor` option).');
    const removed = await this.twoFactors.reset(userId);
    // JWT sessions live in the cookie: with their index (`jwtRevocation`) each is revoked by `sid`.
    if (this.sessionList.endsJwtSessions) {
      await this.sessionList.endAll(userId);
      return removed;
    }
    await this.sessionList.endApps(userId);
    const adapter = this.adapters.raw as Partial<SessionsByUserAdapter> | null;
    if (typeof adapter?.deleteSessionsByUserId === 'function') {
      await adapter.deleteSessionsByUserId(userId);
      this.cache.forgetUser(userId);
    }
    return removed;
  }

  /**
   * A valid access token of the user's account at an OAuth/OIDC provider, to call its API. A token
   * that expires within a minute is refreshed first with the stored refresh token (the `refresh_token`
   * grant); a rotated refresh token replaces the old one atomically. Concurrent calls share one
   * refresh in this process, and instances sharing a database make one refresh between them.
   * Needs an adapter with `listAccountsByUserId` and `updateAccountTokens` (TypeOrmAdapter,
   * MemoryAdapter).
   *
   * @throws RefreshTokenError with `reason` `NoAccount`, `NoRefreshToken`, `InvalidGrant` (the
   *   provider refused the refresh token: it was cleared, `events.refreshTokenError` fired; the user
   *   must sign in again), `ProviderUnavailable` (after retries; nothing stored changed) or `Conflict`
   */
  getAccessToken(userId: string, provider: string): Promise<string>;
  /**
   * The same from a request's session (Express or Fastify request): with the JWT strategy and
   * `session.tokens`, the tokens the session JWT holds, refreshed when needed; the rewritten session
   * cookie goes on `response` (default: the response of the request `AuthGuard` let in, or Express's
   * `req.res`). Otherwise the signed-in user's stored account, as with a user id.
   *
   * @throws RefreshTokenError as above, and `NoSession` when the request has no valid session
   */
  getAccessToken(request: HttpRequestLike, provider: string, response?: object): Promise<string>;
  getAccessToken(user: string | HttpRequestLike, provider: string, response?: object): Promise<string> {
    return this.accessTokens.getAccessToken(user, provider, response);
  }

  /**
   * The session of an Express or Fastify request (cookie or bearer), or `null`. With `fresh: true` a database
   * session is looked up even within `session.cacheTtl` (as `@SkipSessionCache()` does for a route).
   */
  async getSession(
    request: HttpRequestLike,
    options: { fresh?: boolean } = {},
  ): Promise<{ user: AuthUser; session: Session } | null> {
    const state = await this.reader.read(sessionLookupOf(request, this.config), options);
    return state.status === 'active' ? { user: state.user, session: state.session } : null;
  }

  /**
   * Throws `ReauthenticationRequired` unless the request's user signed in within `seconds` (default
   * `account.recentSignInMaxAge`, 600): call it before a sensitive change. A request without a
   * session, or whose sign-in time is unknown (an old JWT, a sessions table without `createdAt`),
   * is refused the same way: the answer is always "sign in again". The route decorator
   * `@RequireRecentSignIn()` does the same in the guard.
   */
  async requireRecentSignIn(request: HttpRequestLike, seconds?: number): Promise<void> {
    const maxAge = seconds ?? this.config.account.recentSignInMaxAge;
    const state = await this.reader.read(sessionLookupOf(request, this.config));
    const signedInAt = state.status === 'active' ? await this.reader.signedInAt(state) : null;
    assertRecentSignIn(signedInAt, maxAge);
  }

  /**
   * What the request's session proved at sign-in: `{ amr, aal }` (see "Two-factor authentication" in the docs),
   * or `null` without a session. `aal` is 2 when two factors were proved (a second factor, or a
   * passkey that verified the user), else 1; a session that records nothing counts as 1.
   */
  async assurance(request: HttpRequestLike): Promise<Assurance | null> {
    const state = await this.reader.read(sessionLookupOf(request, this.config));
    return state.status === 'active' ? await this.reader.assurance(state) : null;
  }

  /**
   * Throws `SecondFactorRequired` unless the request's session proved two factors at sign-in
   * (`SessionRequired` without a session). The route decorator `@RequireAal(2)` does the same in
   * the guard.
   */
  async requireAal(request: HttpRequestLike, level: 1 | 2 = 2): Promise<void> {
    const assurance = await this.assurance(request);
    if (!assurance) throw new SessionRequired('Sign in first.');
    if (assurance.aal < level) throw new SecondFactorRequired();
  }

  /**
   * The `graphql-ws` options that authenticate GraphQL subscriptions on `connection_init`: spread
   * them into `subscriptions: { 'graphql-ws': { ...auth.graphqlWsOptions() } }` and give the module
   * `context: graphqlContext`. The session comes from the upgrade request's cookie (same origin
   * only) or `connectionParams.authorization` (`Bearer <session token>`); a connection without a
   * valid one is closed with 4401 and the reason (`SessionRequired`, `SessionExpired`,
   * `InvalidSession`). `AuthGuard` checks the session again when each subscription starts.
   */
  graphqlWsOptions(): GraphqlWsAuthOptions {
    return graphqlWsAuth(this.reader, this.config);
  }

  /**
   * Ends the request's session on the server: a database session's row is deleted, so the cookie is
   * refused at once; a JWT session is revoked when `session.jwtRevocation` is on (without it a JWT
   * stays valid until it expires). The cookie itself is cleared by the sign-out route.
   */
  async signOut(request: HttpRequestLike): Promise<void> {
    const state = await this.reader.read(sessionLookupOf(request, this.config));
    if (state.status !== 'active') return;
    if (state.strategy === 'access-token') await this.sessionList.endApp(state);
    // An API key is no session: it ends with `revokeApiKey`.
    else if (state.strategy !== 'api-key') await this.issuer.revoke(state.sessionToken);
  }

  /**
   * Ends every database session of a user at once (after a password change, on "sign out of all
   * devices", when an account is disabled): deletes their rows and this instance's cached copies.
   * Other instances with `session.cacheTtl` may serve a cached copy for up to that long. Needs an
   * adapter with `deleteSessionsByUserId` (TypeOrmAdapter, MemoryAdapter). JWT sessions are ended
   * with `session.jwtRevocation` (each one's `sid` revoked, through the index it keeps); without it
   * nothing lists them, and this throws `SignOutError` with the JWT strategy.
   *
   * @returns how many sessions were deleted
   */
  async signOutEverywhere(userId: string): Promise<number> {
    // Native apps' sign-ins first: their access tokens are revoked by id before their rows go.
    // JWT sessions live in the cookie: with their index (`jwtRevocation`) each is revoked by `sid`.
    if (this.sessionList.endsJwtSessions) return this.sessionList.endAll(userId);
    const apps = await this.sessionList.endApps(userId);
    if (this.config.session.strategy === 'jwt') {
      if (this.config.nativeApps) return apps;
      throw new SignOutError(
        'JWT sessions cannot be ended by user without `session.jwtRevocation` (and an adapter that lists sessions): nothing lists them. Turn it on, use database sessions, or rotate the secret to end every session.',
      );
    }
    const adapter = this.adapters.raw as (Adapter & Partial<SessionsByUserAdapter>) | null;
    if (typeof adapter?.deleteSessionsByUserId !== 'function') {
      throw new MissingAdapterMethods(
        ['deleteSessionsByUserId'],
        'signOutEverywhere needs an adapter with deleteSessionsByUserId (TypeOrmAdapter and MemoryAdapter have it).',
      );
    }
    const count = await adapter.deleteSessionsByUserId(userId);
    this.cache.forgetUser(userId);
    return count + apps;
  }

  /**
   * The user's linked accounts (OAuth/OIDC, and the `credentials` and `webauthn` rows storage
   * keeps), with the provider's display name; never a token. Needs an adapter with
   * `listAccountsByUserId` (TypeOrmAdapter, MemoryAdapter).
   */
  listAccounts(userId: string): Promise<LinkedAccountInfo[]> {
    return this.accounts.listAccounts(userId);
  }

  /**
   * Removes one of the user's linked accounts, unless it is their last way to sign in (another
   * linked account, a passkey, a verified address with an email provider, or a password must
   * remain). `proof` is the acting request, which must be signed in as `userId` recently
   * (`account.recentSignInMaxAge`), or `{ recentSignIn: false }` from trusted server code. Fires
   * `events.unlinkAccount`.
   *
   * @throws ReauthenticationRequired when the request's sign-in is not recent (or it has none);
   *   LastSignInMethod when it is the last way in; InvalidRequest when the user has no such account
   *   (also when it belongs to another user), it is a passkey (use `deletePasskey`), or the request
   *   is signed in as someone else. Nothing is changed on any of them.
   */
  unlinkAccount(
    userId: string,
    account: Pick<AdapterAccount, 'provider' | 'providerAccountId'>,
    proof: SensitiveActionProof,
  ): Promise<void>;
  /**
   * @deprecated Removes the account whoever owns it, with no "last sign-in method" or recent
   * sign-in check: use `unlinkAccount(userId, account, { request })`.
   */
  unlinkAccount(account: Pick<AdapterAccount, 'provider' | 'providerAccountId'>): Promise<void>;
  async unlinkAccount(
    first: string | Pick<AdapterAccount, 'provider' | 'providerAccountId'>,
    account?: Pick<AdapterAccount, 'provider' | 'providerAccountId'>,
    proof?: SensitiveActionProof,
  ): Promise<void> {
    if (typeof first !== 'string') {
      await this.adapters.require('unlinkAccount').unlinkAccount(first);
      return;
    }
    await assertSensitiveAction(this.reader, this.config, first, proof);
    return this.accounts.unlinkAccount(first, account!);
  }

  /**
   * Deletes the user and everything that lets them in: sessions, accounts, passkeys and the
   * verification tokens of their address, in one transaction when the adapter has
   * `deleteUserCascade` (TypeOrmAdapter, MemoryAdapter). Forgets their cached sessions and fires
   * `events.deleteUser`. `proof` as for `unlinkAccount` (a recent sign-in as `userId`). With JWT
   * sessions and `session.jwtRevocation` the user's JWTs are revoked first; without it a JWT stays
   * valid until it expires. Clear the caller's session cookie afterwards (e.g. redirect to sign-out).
   *
   * @throws ReauthenticationRequired when the request's sign-in is not recent; InvalidRequest when
   *   there is no such user or the request is signed in as someone else
   */
  async deleteAccount(userId: string, proof: SensitiveActionProof): Promise<void> {
    await assertSensitiveAction(this.reader, this.config, userId, proof);
    return this.accounts.deleteAccount(userId);
  }

  /**
   * The user's sessions as devices: `{ id, current, createdAt, lastSeenAt, expires, userAgent, ip }`
   * each, the request's own session (when it is this user's) first and marked `current`, then the
   * most recently used. `id` is a public id derived from the token, never the token. Database
   * sessions, or JWT sessions with `session.jwtRevocation` (else `AuthConfigurationError`); needs an
   * adapter with `listSessionsByUserId` (TypeOrmAdapter, MemoryAdapter).
   */
  async listSessions(userId: string, request?: HttpRequestLike): Promise<SessionInfo[]> {
    const state = request ? await this.reader.read(sessionLookupOf(request, this.config)) : undefined;
    return this.sessionList.list(userId, state?.status === 'active' ? state : undefined);
  }

  /**
   * Ends one of the user's sessions by its `id` (from `listSessions`): a database session's row is
   * deleted, a JWT session's `sid` revoked; the next request with it is refused. Only the user's
   * own sessions are considered (`InvalidRequest` otherwise). Ask for a recent sign-in before
   * ending a session other than the current one.
   */
  async endSession(userId: string, id: string): Promise<void> {
    await this.sessionList.end(userId, id);
  }

  /**
   * Ends every session of the request's user except the request's own ("sign out of all other
   * devices"); returns how many ended. Requires a recent sign-in (`account.recentSignInMaxAge`):
   * throws `ReauthenticationRequired` otherwise, and without a session.
   */
  async endOtherSessions(request: HttpRequestLike): Promise<number> {
    const state = await this.reader.read(sessionLookupOf(request, this.config));
    const signedInAt = state.status === 'active' ? await this.reader.signedInAt(state) : null;
    assertRecentSignIn(signedInAt, this.config.account.recentSignInMaxAge);
    return this.sessionList.endOthers(state as Extract<typeof state, { status: 'active' }>);
  }

  /** The user's passkeys (WebAuthn credentials linked through a configured WebAuthn provider). */
  async listPasskeys(userId: string): Promise<PasskeyInfo[]> {
    return this.passkeys.list(userId);
  }

  /**
   * Removes one of the user's passkeys by `credentialID` (from `listPasskeys`). Throws
   * `LastSignInMethod` when it is the user's only way to sign in, `InvalidRequest` when the user
   * has no such passkey. Ask for a recent sign-in before calling it.
   */
  async deletePasskey(userId: string, credentialID: string): Promise<void> {
    await this.passkeys.delete(userId, credentialID);
  }

  /**
   * Names one of the user's passkeys (`null` or blank clears it): trimmed, at most 64 characters, no
   * control characters (`InvalidRequest` otherwise, and for a passkey of another user). Needs an
   * adapter with `updateAuthenticatorName` (TypeOrmAdapter, MemoryAdapter). Fires
   * `events.accountChange`. Ask for a recent sign-in before calling it.
   */
  async renamePasskey(userId: string, credentialID: string, name: string | null): Promise<PasskeyInfo> {
    return this.passkeys.rename(userId, credentialID, name);
  }

  /**
   * Starts changing the user's email address: sends a single-use link to `newEmail` (normalised as
   * the email sign-in does) through the email provider's sender; following it while signed in as
   * that user confirms the change (refused with `EmailInUse` if another user has the address by
   * then), and the old address gets a notice. The link's origin is the `url` option, else the
   * `request`'s public origin. Ask for a recent sign-in before calling it.
   */
  async changeEmail(
    userId: string,
    newEmail: string,
    options: { request?: HttpRequestLike } = {},
  ): Promise<{ email: string; expires: Date }> {
    const origin = this.config.url?.origin ?? (options.request ? this.originOf(options.request) : undefined);
    if (!origin)
      throw new InvalidRequest('changeEmail needs the `url` option (AUTH_URL) or the request, to build the link.');
    return this.emailChange.request(userId, newEmail, { authUrl: `${origin}${this.config.basePath}` });
  }

  /**
   * Sets or changes the password of a credentials user through `hashPassword`, stored by the
   * credentials provider's `passwordStore` (the library keeps no hashes). With `currentPassword`,
   * it must match the stored hash (`WrongPassword`); without it the password is replaced: the app
   * has checked the user another way (a magic link: see "Passkeys, email and password" in the docs).
   */
  async setPassword(userId: string, newPassword: string, currentPassword?: string): Promise<void> {
    await this.passwords.set(userId, newPassword, currentPassword, { requireCurrent: false });
  }

  private originOf(request: HttpRequestLike): string {
    const encrypted = Boolean((request.socket as { encrypted?: boolean } | undefined)?.encrypted);
    return publicOrigin({ headers: request.headers, encrypted }, this.config);
  }
}
