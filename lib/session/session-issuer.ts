import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { AdapterUser } from '../adapters/adapter.interface.js';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { AuthEvents } from '../core/auth-events.js';
import type { RequestContext } from '../core/request-context.js';
import { SessionTokenError, SignOutError } from '../errors/auth.errors.js';
import type { Account, JWT, Profile, User } from '../types/common.types.js';
import type { AuthResponse, ResponseCookie } from '../types/http.types.js';
import { JwtRevocation } from './jwt-revocation.js';
import { SIGNED_IN_AT_CLAIM } from './recent-sign-in.js';
import { ACR_CLAIM, AMR_CLAIM, acrOf, amrColumn, assuranceOf, cleanAmr } from './assurance.js';
import { SessionCache } from './session-cache.js';
import { SessionCodec } from './session-codec.js';
import { SessionDevices } from './session-devices.js';
import { clearSessionCookie, readSessionCookie, writeSessionCookie } from './session-cookie.js';
import { SessionReader } from './session-reader.js';
import { DatabaseSessionStore } from './session-store.js';
import { PROVIDER_TOKENS_CLAIM, sessionTokensOf } from './session-tokens.js';
import { PROVIDER_SID_CLAIM, providerSidOf } from './provider-sid.js';

/** What a sign-in tells the new session. */
export interface SignInDetails {
  account?: Account | null;
  profile?: Profile;
  isNewUser?: boolean;
  /** The OpenID Provider's session id (`sid` of the ID token), kept with the session for back-channel logout. */
  providerSid?: string | null;
  /** What the sign-in proved (RFC 8176 method references): the session's assurance. */
  amr?: readonly string[];
}

/**
 * Starts, rolls and ends sessions, and writes their cookies: a new session on every sign-in, the
 * `/session` route (cookie rolled, `update` trigger), sign-out, and ending a session by token
 * (a database row deleted, or a JWT revoked with `session.jwtRevocation`).
 */
@Injectable()
export class SessionIssuer {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly codec: SessionCodec,
    private readonly cache: SessionCache,
    private readonly reader: SessionReader,
    private readonly store: DatabaseSessionStore,
    private readonly revocation: JwtRevocation,
    private readonly devices: SessionDevices,
    private readonly events: AuthEvents,
  ) {}

  /**
   * Starts a new session for `user` after a successful sign-in (a new token every time) and returns
   * the cookies to set: clearing ones when the `jwt` callback ended the session.
   */
  async create(ctx: RequestContext, user: User & { id?: string }, details: SignInDetails): Promise<ResponseCookie[]> {
    const cookie = ctx.cookies.sessionToken;
    const now = Date.now();
    const expires = new Date(now + this.config.session.maxAge * 1000);
    // The OP session it came from (back-channel logout by `sid`): recorded with the session's details.
    const providerSid = details.providerSid ?? providerSidOf(this.config, details.account);
    const device = this.devices.recording ? this.devices.detailsOf(ctx.request, now, providerSid) : undefined;
    const amr = cleanAmr(details.amr);
    if (device) device.amr = amrColumn(amr);
    if (this.config.session.strategy === 'jwt') {
      const defaults: JWT = {
        name: user.name ?? null,
        email: user.email ?? null,
        picture: user.image ?? null,
        sub: user.id,
        // When the user signed in (OpenID Connect's claim name), kept when the cookie is re-issued:
        // what a recent sign-in check reads.
        [SIGNED_IN_AT_CLAIM]: Math.floor(Date.now() / 1000),
      };
      // A session id that survives re-issued cookies, so revoking it revokes every copy.
      if (this.config.session.jwtRevocation) defaults.sid = randomUUID();
      // The OP session it came from (back-channel logout by `sid`), kept when the cookie is re-issued.
      if (providerSid) defaults[PROVIDER_SID_CLAIM] = providerSid;
      // What the user proved, kept when the cookie is re-issued: what `@RequireAal()` reads.
      if (amr.length) {
        defaults[AMR_CLAIM] = amr;
        defaults[ACR_CLAIM] = acrOf(assuranceOf(amr).aal);
      }
      // `session.tokens`: the provider's tokens ride in the (encrypted) session, for getAccessToken.
      const tokens = this.config.session.tokens ? sessionTokensOf(details.account) : undefined;
      if (tokens && details.account) defaults[PROVIDER_TOKENS_CLAIM] = { [details.account.provider]: tokens };
      const token = await this.config.callbacks.jwt({
        token: defaults,
        user,
        account: details.account ?? null,
        profile: details.profile,
        isNewUser: details.isNewUser,
        trigger: details.isNewUser ? 'signUp' : 'signIn',
      });
      if (!token) return clearSessionCookie(ctx.request.cookies, cookie.name, cookie.options);
      const value = await this.codec.encode(ctx.secure, token);
      // With jwtRevocation, the session's row in the index that lists and ends JWT sessions.
      if (device && this.config.session.jwtRevocation && user.id)
        await this.devices.indexJwt(token, user.id, expires, device);
      return writeSessionCookie(ctx.request.cookies, cookie.name, value, { ...cookie.options, expires });
    }
    if (!user.id)
      throw new SessionTokenError('A database session needs a stored user; the sign-in returned no user id.');
    const created = await this.store.create(user.id, expires, device);
    return writeSessionCookie(ctx.request.cookies, cookie.name, created.value, {
      ...cookie.options,
      expires: created.expires,
    });
  }

  /** `GET /session` and `POST /session` (update): the session as JSON, with the cookie rolled. */
  async sessionRoute(ctx: RequestContext, update?: { data: unknown }): Promise<AuthResponse> {
    const cookie = ctx.cookies.sessionToken;
    const state = await this.reader.read({
      cookies: ctx.request.cookies,
      authorization: ctx.request.headers.authorization,
      secure: ctx.secure,
    });
    if (state.status !== 'active') {
      return { json: null, cookies: state.status === 'none' ? [] : state.clearCookies };
    }
    const expires = new Date(Date.now() + this.config.session.maxAge * 1000);
    if (state.strategy === 'jwt') {
      // A bearer JWT is not re-issued (no cookie carries a new one): the session ends when it does.
      const until = state.bearer ? await this.jwtExpiry(state.sessionToken, ctx.secure) : expires;
      const token = await this.config.callbacks.jwt({
        token: state.token!,
        user: undefined as unknown as User,
        ...(update ? { trigger: 'update' as const, session: update.data } : {}),
      });
      if (!token) return { json: null, cookies: clearSessionCookie(ctx.request.cookies, cookie.name, cookie.options) };
      // What the sign-in proved and when is the library's to say: an update (whose data the client
      // sends) that a `jwt` callback merged into the token cannot raise it.
      if (update) keepSignInClaims(state.token!, token);
      const session = await this.config.callbacks.session({
        session: {
          user: { name: token.name, email: token.email, image: token.picture as string | null | undefined },
          expires: until.toISOString(),
        } as never,
        token,
        user: undefined as unknown as AdapterUser,
      });
      const cookies = state.bearer
        ? []
        : writeSessionCookie(ctx.request.cookies, cookie.name, await this.codec.encode(ctx.secure, token), {
            ...cookie.options,
            expires,
          });
      this.events.emit('session', { session, token });
      return { json: session, cookies };
    }
    // An access token or an API key: the session it stands for, as it is (nothing to roll or update).
    if (state.strategy === 'access-token' || state.strategy === 'api-key') return { json: state.session };
    let session = state.session;
    if (update) {
      const stored = state.stored!;
      session = await this.config.callbacks.session({
        session: { ...stored, user: state.user, expires: stored.expires.toISOString() } as never,
        user: state.user as unknown as AdapterUser,
        token: undefined as unknown as JWT,
        newSession: update.data,
        trigger: 'update',
      });
    }
    const cookies = state.bearer
      ? []
      : writeSessionCookie(ctx.request.cookies, cookie.name, state.sessionToken, { ...cookie.options, expires });
    this.events.emit('session', { session });
    return { json: session, cookies };
  }

  /**
   * When a session JWT expires: its `exp`, as the reader decoded it (cached) or decoded again; now
   * if it expired since it was read.
   */
  private async jwtExpiry(raw: string, secure: boolean): Promise<Date> {
    const cached = this.cache.jwt(raw)?.expMs;
    if (cached !== undefined) return new Date(cached);
    const now = Date.now();
    const decoded = await this.codec.decode(raw, secure, now);
    return new Date(decoded.status === 'valid' ? decoded.expMs : now);
  }

  /**
   * The cookies of a JWT session re-issued with new claims (`session.tokens` after a refresh): the
   * same session, a new expiry (as the `/session` route rolls it), chunked like every session cookie.
   */
  async reissueJwt(
    lookup: { cookies: Record<string, string>; secure: boolean },
    token: JWT,
  ): Promise<ResponseCookie[]> {
    const cookie = this.codec.cookiesFor(lookup.secure).sessionToken;
    const expires = new Date(Date.now() + this.config.session.maxAge * 1000);
    const value = await this.codec.encode(lookup.secure, token);
    return writeSessionCookie(lookup.cookies, cookie.name, value, { ...cookie.options, expires });
  }

  /** Ends the request's session: deletes the database row (if any) and returns the clearing cookies. */
  async signOut(ctx: RequestContext): Promise<ResponseCookie[]> {
    const cookie = ctx.cookies.sessionToken;
    const raw = readSessionCookie(ctx.request.cookies, cookie.name);
    try {
      if (raw && this.config.session.strategy === 'database') {
        this.cache.forgetDb(raw);
        const deleted = await this.store.delete(raw);
        await this.revocation.revokeAccessTokens(this.devices.publicId(this.store.storedToken(raw)));
        this.events.emit('signOut', { session: deleted ?? null });
      } else if (raw) {
        this.cache.forgetJwt(raw);
        // Decoded for the signOut event's `token` (and revocation); the cookies to clear are built below.
        const state = await this.reader.readJwt(raw, { cookies: {}, secure: ctx.secure }, true);
        const decoded = this.cache.jwt(raw)?.token;
        this.cache.forgetJwt(raw);
        if (state.status === 'active' && decoded && this.config.session.jwtRevocation) {
          await this.revocation.revoke(decoded);
          await this.devices.forgetJwt(decoded);
        }
        this.events.emit('signOut', { token: state.status === 'active' ? (state.token ?? null) : null });
      }
    } catch (error) {
      this.config.logger.error(
        new SignOutError('Signing out on the server failed; the cookie was cleared anyway.', { cause: error }),
      );
    }
    return clearSessionCookie(ctx.request.cookies, cookie.name, cookie.options);
  }

  /**
   * Ends a session by token (used by AuthService and a new sign-in): deletes a database session;
   * with `session.jwtRevocation`, revokes a JWT read by `read` just before.
   */
  async revoke(sessionToken: string): Promise<void> {
    this.cache.forgetDb(sessionToken);
    // A JWT read just before (the caller's `read`) is in the cache, decoded: its id is what goes.
    const decoded = this.cache.jwt(sessionToken)?.token;
    this.cache.forgetJwt(sessionToken);
    if (this.config.session.strategy === 'database') {
      await this.store.delete(sessionToken);
      await this.revocation.revokeAccessTokens(this.devices.publicId(this.store.storedToken(sessionToken)));
    } else if (decoded && this.config.session.jwtRevocation) {
      await this.revocation.revoke(decoded);
      await this.devices.forgetJwt(decoded);
    }
  }
}

/** The claims only a sign-in sets: when it was, and what it proved. */
const SIGN_IN_CLAIMS = [SIGNED_IN_AT_CLAIM, AMR_CLAIM, ACR_CLAIM] as const;

/** Puts the sign-in claims of `before` back on `after` (and removes any `before` did not have). */
function keepSignInClaims(before: JWT, after: JWT): void {
  for (const claim of SIGN_IN_CLAIMS) {
    if (claim in before) after[claim] = before[claim];
    else delete after[claim];
  }
}
