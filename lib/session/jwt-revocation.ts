import { Inject, Injectable } from '@nestjs/common';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { MemoryRateLimitStore } from '../rate-limit/memory-rate-limit.store.js';
import { RateLimitStore } from '../rate-limit/rate-limit.store.js';
import type { JWT } from '../types/common.types.js';
import { numericDateMs } from '../util/instant.js';
import { ExpiringMap } from '../util/expiring-map.js';
import { RevocationBroadcast } from './revocation-broadcast.js';

/** Revoked JWT ids kept in memory (each until its token's expiry); the oldest goes when full. */
export const JWT_REVOKED_MAX = 100_000;
/** Keyed hashes of JWT ids remembered (with a revocation bus); all are forgotten when full. */
const JWT_HASHES_MAX = 10_000;

/**
 * The revoked JWT sessions of `session.jwtRevocation`: kept in this process (bounded) and, when
 * `rateLimitStore` is shared (Redis), in that store too, so every instance refuses them. With a
 * revocation bus, every other instance also adds them to its own list at once (by keyed hash: the
 * list is then keyed by that hash).
 */
@Injectable()
export class JwtRevocation {
  /** Revoked ids (`sid:` or `jti:`) and when their tokens expire. */
  private readonly revoked = new ExpiringMap<string, true>(JWT_REVOKED_MAX);
  /** With a revocation bus: the keyed hashes of recently checked ids. */
  private readonly hashes = new Map<string, string>();
  /** The shared store revocations go to and every JWT read asks, or null (in-memory store). */
  private readonly store: RateLimitStore | null;
  /** Whether anything is revoked by id: JWT sessions with `jwtRevocation`, native apps' access tokens. */
  private readonly enabled: boolean;

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    @Inject(RateLimitStore) store: RateLimitStore,
    private readonly broadcast: RevocationBroadcast,
  ) {
    // Native apps' access tokens are revoked by their family's id (`sid`) the same way.
    this.enabled = config.session.jwtRevocation || config.accessToken?.enabled === true;
    this.store = this.enabled && !(store instanceof MemoryRateLimitStore) ? store : null;
    if (broadcast.enabled && this.enabled) broadcast.on({ j: (hash, until) => this.revoked.set(hash, true, until) });
  }

  /**
   * The key of `id` in the local list: the id itself, or with a revocation bus its keyed hash
   * (remembered: an HMAC costs microseconds, and a cached JWT is checked on every request).
   */
  private local(id: string): string {
    if (!this.broadcast.enabled) return id;
    let hash = this.hashes.get(id);
    if (hash === undefined) {
      if (this.hashes.size >= JWT_HASHES_MAX) this.hashes.clear();
      hash = this.broadcast.keyOf('j', id);
      this.hashes.set(id, hash);
    }
    return hash;
  }

  /**
   * The id a JWT is revoked by: its `sid` (set at sign-in with `jwtRevocation`, kept when the
   * cookie is re-issued, so every copy of the session goes), else its `jti`.
   */
  idOf(token: JWT): string | undefined {
    if (typeof token.sid === 'string' && token.sid) return `sid:${token.sid}`;
    if (typeof token.jti === 'string' && token.jti) return `jti:${token.jti}`;
    return undefined;
  }

  /**
   * True when this process alone can tell that `id` is not revoked: no shared store to ask, and not
   * revoked here. The session cache answers synchronously only then.
   */
  clearedLocally(id: string | undefined, now: number): boolean {
    return !this.store && (id === undefined || this.revoked.get(this.local(id), now) === undefined);
  }

  /** Whether a token is revoked, here or (when shared) in the store. Throws when the store fails. */
  async isRevoked(token: JWT, now: number): Promise<boolean> {
    const id = this.idOf(token);
    if (id !== undefined && this.revoked.get(this.local(id), now) !== undefined) return true;
    if (!id || !this.store) return false;
    const record = await this.store.get(`jwt-revoked:${id}`);
    return record !== null && record.count > 0;
  }

  /**
   * Revokes a JWT session (every copy of it, by `sid`) for as long as any copy could still be valid:
   * the later of this token's expiry and now + `jwt.maxAge` (a copy re-issued a moment ago, held
   * elsewhere, lives that long).
   */
  async revoke(token: JWT): Promise<void> {
    const id = this.idOf(token);
    const now = Date.now();
    const until = Math.max(numericDateMs(token.exp) ?? 0, now + this.config.jwt.maxAge * 1000);
    if (!id) return;
    await this.revokeId(id, until);
  }

  /**
   * Revokes the access tokens of a sign-in by their `sid` (a native app's family, a session's public
   * id) for as long as one could live (`accessToken.maxAge`); nothing when access tokens are off.
   */
  async revokeAccessTokens(sid: string): Promise<void> {
    if (!this.config.accessToken?.enabled) return;
    await this.revokeId(`sid:${sid}`, Date.now() + this.config.accessToken.maxAge * 1000);
  }

  /**
   * Revokes a JWT session by its id (`sid:…` or `jti:…`, see {@link idOf}) until `until` (epoch ms):
   * here, in the shared store when there is one, and on every other instance through the revocation
   * bus when there is one. Every revocation of a JWT goes through here.
   */
  async revokeId(id: string, until: number): Promise<void> {
    const now = Date.now();
    if (until <= now) return;
    const local = this.local(id);
    this.revoked.set(local, true, until, now);
    // Sent before the caller answers (a sign-out's response), so other instances know about as soon.
    const published = this.enabled ? this.broadcast.publish('j', local, until) : undefined;
    await this.store?.increment(`jwt-revoked:${id}`, until - now);
    await published;
  }
}
