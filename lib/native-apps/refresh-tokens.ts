import { createHash, createHmac } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { AdapterRefreshFamily, RefreshTokenAdapter } from '../adapters/adapter-extensions.js';
import type { AdapterUser } from '../adapters/adapter.interface.js';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedNativeClient } from '../config/native-apps.options.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { AdapterService } from '../core/adapter.service.js';
import { SessionTokenError } from '../errors/auth.errors.js';
import { AccessTokens } from '../session/access-tokens.js';
import { cleanAmr } from '../session/assurance.js';
import { SessionDevices } from '../session/session-devices.js';
import { SessionList } from '../session/session-list.js';
import type { AuthRequest } from '../types/http.types.js';
import { constantTimeEqual } from '../util/constant-time.js';
import { dateMs, isExpiredDate } from '../util/instant.js';
import { NativeAppError } from './native-app.error.js';

/** What the token route answers (RFC 6749 section 5.1). */
export interface TokenPair {
  access_token: string;
  token_type: 'Bearer';
  /** Seconds the access token has left. */
  expires_in: number;
  refresh_token: string;
}

/** A refresh token: `<family id>.<generation>.<MAC>` (the MAC under the secret, so a guess is refused unread). */
const REFRESH_TOKEN = /^([A-Za-z0-9_-]{43})\.(0|[1-9][0-9]{0,8})\.([A-Za-z0-9_-]{43})$/;
const MAX_GENERATION = 999_999_999;

type ParsedToken = { familyId: string; generation: number; raw: string };

/**
 * The refresh tokens of native apps (RFC 9700 section 4.14): one family per sign-in, each token
 * usable once. A refresh rotates the family atomically (`rotateRefreshFamily`, a compare-and-set on
 * its generation), so of concurrent refreshes with one token exactly one mints the next pair; the
 * others, and any retry within `nativeApps.reuseWindow` of it (a response lost on the way), get that
 * same pair again: the next token is a MAC of the family and generation, and the access token is
 * signed deterministically from what the family stores. A spent token presented after the window
 * ends the whole family (RFC 9700: an attacker and the app hold the same token, and which is which
 * cannot be told), revoking its access tokens on every instance.
 *
 * Storage holds only SHA-256 hashes of the tokens. Each family is also a row of the sessions table
 * (`app:<client>:<family>`), so it is listed, and ended, as one of the user's sessions (and goes with
 * the user); a refresh checks that row, so ending the session by any path ends the family.
 */
@Injectable()
export class RefreshTokens {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly adapters: AdapterService,
    private readonly devices: SessionDevices,
    private readonly sessions: SessionList,
    private readonly accessTokens: AccessTokens,
  ) {}

  private get store(): RefreshTokenAdapter {
    return this.adapters.raw as unknown as RefreshTokenAdapter;
  }

  /**
   * Starts a family for a user's sign-in on an app (the code exchange): the sessions-table row, the
   * family, and its first pair. Nothing stays behind when a write fails.
   */
  async start(input: {
    familyId: string;
    user: AdapterUser;
    client: ResolvedNativeClient;
    amr: string[];
    authTime: Date;
    request: AuthRequest;
  }): Promise<TokenPair> {
    const { familyId, user, client } = input;
    const now = Date.now();
    const rotatedAt = wholeSeconds(now);
    const expires = new Date(now + this.config.nativeApps!.refreshMaxAge * 1000);
    const key = this.devices.appKey(client.clientId, familyId);
    const amr = cleanAmr(input.amr);
    const details = this.devices.detailsOf(input.request, now);
    await this.adapters.require('createSession').createSession({
      sessionToken: key,
      userId: user.id,
      expires,
      ...details,
      // The device is the app: its name, not the browser it signed in through.
      userAgent: client.name.slice(0, 100),
      amr: amr.join(' ') || null,
    } as never);
    const family: AdapterRefreshFamily = {
      id: familyId,
      userId: user.id,
      clientId: client.clientId,
      generation: 0,
      tokenHash: digest(this.tokenOf(familyId, 0)),
      rotatedAt,
      expires,
      authTime: input.authTime,
      amr,
    };
    try {
      await this.store.createRefreshFamily(family);
    } catch (error) {
      await this.devices.deleteStored(key).catch(() => undefined);
      throw error;
    }
    return this.pair(family, user, 0, rotatedAt);
  }

  /**
   * The `refresh_token` grant: the next pair of the token's family.
   *
   * @throws NativeAppError `invalid_grant` for a token that is malformed, forged, another client's,
   *   of a family that ended, or spent (which ends its family, after the reuse window)
   */
  async refresh(raw: unknown, clientId: string): Promise<TokenPair> {
    const parsed = this.parse(raw);
    if (!parsed) throw new NativeAppError('invalid_grant', 'The refresh token is not valid: sign in again.');
    let family = await this.family(parsed.familyId);
    if (!family) throw ended();
    if (!constantTimeEqual(family.clientId, clientId))
      throw new NativeAppError('invalid_grant', 'The refresh token was issued to another client.');
    const key = this.devices.appKey(family.clientId, family.id);
    const found = await this.adapters.require('getSessionAndUser').getSessionAndUser(key);
    const now = Date.now();
    if (!found || String(found.user?.id) !== family.userId || isExpiredDate(family.expires, now)) {
      // Ended by another path (signed out, the user deleted) or expired: nothing of it may remain.
      await this.sessions.endKeys(family.userId, [key]);
      throw ended();
    }
    if (parsed.generation === family.generation) {
      if (!constantTimeEqual(digest(parsed.raw), family.tokenHash)) throw ended();
      const rotatedAt = wholeSeconds(now);
      const expires = new Date(now + this.config.nativeApps!.refreshMaxAge * 1000);
      const next = this.tokenOf(family.id, family.generation + 1);
      if (
        await this.store.rotateRefreshFamily(family.id, family.generation, {
          tokenHash: digest(next),
          rotatedAt,
          expires,
        })
      ) {
        await this.touch(key, expires, now);
        return this.pair({ ...family, rotatedAt, expires }, found.user, family.generation + 1, rotatedAt);
      }
      // Another refresh with this token won: its pair is the answer (below), inside the window.
      family = await this.family(parsed.familyId);
      if (!family) throw ended();
    }
    // `rotatedAt` is stored rounded down to its second (wholeSeconds), up to 999 ms before the
    // rotation: the window counts from the rotation itself, so a retry gets at least `reuseWindow`.
    const windowMs = this.config.nativeApps!.reuseWindow * 1000;
    if (
      parsed.generation === family.generation - 1 &&
      windowMs > 0 &&
      now - dateMs(family.rotatedAt)! < windowMs + 1000
    )
      return this.pair(family, found.user, family.generation, family.rotatedAt);
    // A spent token after its window: the family ends, whoever holds its newest token.
    await this.sessions.endKeys(family.userId, [key]);
    this.config.logger.warn('refresh_token_reuse');
    throw new NativeAppError(
      'invalid_grant',
      'The refresh token was already used, so the sign-in it belongs to has been ended on every device holding it: sign in again.',
    );
  }

  /**
   * Ends the family of a refresh token (RFC 7009 revocation, the app signing out). A token that is
   * not valid, or another client's, changes nothing (the route answers 200 either way).
   */
  async revoke(raw: unknown, clientId: string): Promise<void> {
    const parsed = this.parse(raw);
    if (!parsed) return;
    const family = await this.family(parsed.familyId);
    if (!family || !constantTimeEqual(family.clientId, clientId)) return;
    await this.sessions.endKeys(family.userId, [this.devices.appKey(family.clientId, family.id)]);
  }

  /** A pair of generation `generation`: its refresh token, and the access token signed at `rotatedAt`. */
  private pair(family: AdapterRefreshFamily, user: AdapterUser, generation: number, rotatedAt: Date): TokenPair {
    const iat = Math.floor(dateMs(rotatedAt)! / 1000);
    const { token, expiresIn } = this.accessTokens.sign({
      user,
      sid: family.id,
      clientId: family.clientId,
      authTime: family.authTime,
      amr: family.amr,
      iat,
      jti: this.mac(0, 'access-token-id', `${family.id}.${generation}`).slice(0, 22),
    });
    return {
      access_token: token,
      token_type: 'Bearer',
      expires_in: Math.max(0, iat + expiresIn - Math.floor(Date.now() / 1000)),
      refresh_token: this.tokenOf(family.id, generation),
    };
  }

  /** The refresh token of a family's generation (a MAC under the first secret). */
  private tokenOf(familyId: string, generation: number): string {
    return `${familyId}.${generation}.${this.mac(0, 'refresh-token', `${familyId}.${generation}`)}`;
  }

  private mac(secret: number, purpose: string, value: string): string {
    return createHmac('sha256', this.config.secrets[secret]!)
      .update(`nestjs-auth ${purpose}\u0000${value}`)
      .digest('base64url');
  }

  /** A refresh token's parts when its MAC is right under one of the secrets; else null. */
  private parse(raw: unknown): ParsedToken | null {
    if (typeof raw !== 'string') return null;
    const m = REFRESH_TOKEN.exec(raw);
    if (!m) return null;
    const generation = Number(m[2]);
    if (!Number.isSafeInteger(generation) || generation > MAX_GENERATION) return null;
    const value = `${m[1]}.${generation}`;
    for (let i = 0; i < this.config.secrets.length; i++)
      if (constantTimeEqual(this.mac(i, 'refresh-token', value), m[3]!)) return { familyId: m[1]!, generation, raw };
    return null;
  }

  /** A stored family, checked (a row that is not one fails closed as none). */
  private async family(id: string): Promise<AdapterRefreshFamily | null> {
    const row = (await this.store.getRefreshFamily(id)) as Partial<AdapterRefreshFamily> | null;
    if (!row || row.id !== id) return null;
    const rotatedAt = dateMs(row.rotatedAt);
    const expires = dateMs(row.expires);
    const authTime = dateMs(row.authTime);
    if (
      typeof row.userId !== 'string' ||
      typeof row.clientId !== 'string' ||
      typeof row.tokenHash !== 'string' ||
      !Number.isSafeInteger(row.generation) ||
      (row.generation as number) < 0 ||
      rotatedAt === undefined ||
      expires === undefined ||
      authTime === undefined
    )
      return null;
    return {
      id,
      userId: row.userId,
      clientId: row.clientId,
      generation: row.generation as number,
      tokenHash: row.tokenHash,
      rotatedAt: new Date(rotatedAt),
      expires: new Date(expires),
      authTime: new Date(authTime),
      amr: cleanAmr(row.amr),
    };
  }

  /** The session row follows the family: its expiry, and when the app was last seen. */
  private async touch(key: string, expires: Date, now: number): Promise<void> {
    try {
      await this.adapters
        .require('updateSession')
        .updateSession({ sessionToken: key, expires, lastSeenAt: new Date(now) } as never);
    } catch (error) {
      // The family is rotated; a stale row only shows an older "last seen" (and expiry) in the list.
      this.config.logger.error(new SessionTokenError('Updating an app session row failed.', { cause: error }));
    }
  }
}

function ended(): NativeAppError {
  return new NativeAppError('invalid_grant', 'The sign-in this refresh token belongs to has ended: sign in again.');
}

function digest(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

/** An instant rounded down to the second: what every database stores exactly, so a re-read gives the same token. */
function wholeSeconds(ms: number): Date {
  return new Date(Math.floor(ms / 1000) * 1000);
}
