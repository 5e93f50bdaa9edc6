import { createHash, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { Inject, Injectable, Optional } from '@nestjs/common';
import type { AdapterApiKey, ApiKeyAdapter } from '../adapters/adapter-extensions.js';
import type { AdapterUser } from '../adapters/adapter.interface.js';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { AdapterService } from '../core/adapter.service.js';
import { equalBytes, equalStrings } from '../util/constant-time.js';
import { ExpiringMap } from '../util/expiring-map.js';
import { dateMs, isoStringOfMs } from '../util/instant.js';
import { RateLimited, SessionTokenError } from '../errors/auth.errors.js';
import { RateLimiterService } from '../rate-limit/rate-limiter.service.js';
import { RevocationBroadcast } from './revocation-broadcast.js';
import { CREDENTIAL, ownBearerState, type AuthUser, type CredentialInfo, type SessionState } from './session.types.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Characters of a key's public id, its secret and its checksum. */
const ID_LENGTH = 12;
const SECRET_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
/** Characters after `<prefix>_`. */
const KEY_BODY_LENGTH = ID_LENGTH + SECRET_LENGTH + CHECKSUM_LENGTH;
const BODY = new RegExp(`^[0-9A-Za-z]{${KEY_BODY_LENGTH}}$`);
/** Keys looked up and kept (each `apiKeys.cacheTtl`); the oldest goes first. */
const CACHE_MAX = 10_000;
/** `lastUsedAt` is written at most this often per key. */
const LAST_USED_MS = 60_000;
/** An expiry far enough to read as "never" in a session's `expires`. */
const NEVER_MS = Date.UTC(9999, 11, 31);

type ActiveState = Extract<SessionState, { status: 'active' }>;

/** A key looked up, with its user. */
interface CachedKey {
  row: AdapterApiKey;
  user: AuthUser;
  /** `row.expires` in epoch ms; null: never; undefined: unreadable (the key is refused). */
  expiresMs: number | null | undefined;
  /** The rate-limit key of this API key. */
  limitKey: string;
  /** Before this (epoch ms) the key's `lastUsedAt` is not written again from this entry. */
  touchAt: number;
  /**
   * Once a presented key matched the stored hash: the key and the state it gives, so the next
   * request with it is one constant-time comparison and a copy (no hash, no checksum).
   */
  verified?: { raw: string; state: ActiveState };
}

/** `n` random base62 characters. */
function base62(n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) out += BASE62[randomInt(62)];
  return out;
}

/** The 6-character base62 CRC-32 of `text`: what a secret scanner checks to tell a key from noise. */
function checksumOf(text: string): string {
  let value = crc32(text);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

/** A new key: `<prefix>_<id><secret><checksum>`, all base62 after the prefix (190 bits of secret). */
export function newApiKey(prefix: string): { key: string; id: string; hint: string } {
  const id = base62(ID_LENGTH);
  const head = `${prefix}_${id}${base62(SECRET_LENGTH)}`;
  const key = head + checksumOf(head);
  return { key, id, hint: key.slice(-4) };
}

/** The stored hash of a key (SHA-256, base64url): a key has 190 random bits, so no slow hash is needed. */
export function apiKeyHash(key: string): string {
  return createHash('sha256').update(key).digest('base64url');
}

/** The id of a well-formed key of `prefix` whose checksum is right, else null (nothing looked up). */
export function apiKeyId(raw: string, prefix: string): string | null {
  if (!raw.startsWith(`${prefix}_`)) return null;
  const body = raw.slice(prefix.length + 1);
  if (!BODY.test(body)) return null;
  const head = raw.slice(0, -CHECKSUM_LENGTH);
  return checksumOf(head) === raw.slice(-CHECKSUM_LENGTH) ? body.slice(0, ID_LENGTH) : null;
}

/**
 * Reads API keys (`apiKeys`) presented as `Authorization: Bearer <key>`: the format and checksum
 * first (a guess costs no lookup), then the stored key by its id, compared by hash in constant time,
 * its expiry, and its user. A key looked up is kept `apiKeys.cacheTtl` seconds; revoking or changing
 * one forgets it here and, through the revocation bus, on every instance. `lastUsedAt` is written at
 * most once a minute per key, never waited for.
 */
@Injectable()
export class ApiKeyReader {
  private readonly cache = new ExpiringMap<string, CachedKey>(CACHE_MAX);
  private readonly touched = new ExpiringMap<string, true>(CACHE_MAX);
  /** With a revocation bus: each cached id's keyed hash, to find it from a message. */
  private readonly byHash = new Map<string, string>();
  /** How this app's keys begin (`<prefix>_`); undefined without `apiKeys`. */
  private readonly keyStart: string | undefined;

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly adapters: AdapterService,
    private readonly broadcast: RevocationBroadcast,
    // Optional for the session parts' own test beds; the module always provides it.
    @Optional() private readonly limiter?: RateLimiterService,
  ) {
    this.keyStart = config.apiKeys ? `${config.apiKeys.prefix}_` : undefined;
    if (config.apiKeys?.rateLimit && !limiter)
      throw new TypeError('ApiKeyReader needs RateLimiterService for apiKeys.rateLimit.');
    if (config.apiKeys && broadcast.enabled)
      broadcast.on({
        k: (hash) => {
          const id = this.byHash.get(hash);
          if (id !== undefined) this.cache.delete(id);
        },
        reset: () => this.cache.clear(),
      });
  }

  /** Whether a bearer token is an API key of this app (its prefix). */
  accepts(raw: string): boolean {
    return this.keyStart !== undefined && raw.startsWith(this.keyStart);
  }

  private get store(): ApiKeyAdapter {
    return this.adapters.raw as unknown as ApiKeyAdapter;
  }

  /**
   * The state of a key known here, without waiting: checked against its cached entry and counted
   * against `apiKeys.rateLimit` in this turn when the store counts in memory (`incrementSync`);
   * `undefined` (nothing counted): call {@link read}.
   */
  readSync(raw: string, now: number = Date.now()): SessionState | undefined {
    const { prefix, rateLimit } = this.config.apiKeys!;
    const known = this.knownKey(raw, prefix, now);
    let entry: CachedKey | undefined;
    let state: SessionState;
    if (known) ({ entry, state } = known);
    else {
      const id = apiKeyId(raw, prefix);
      if (id === null) return { status: 'invalid', clearCookies: [] };
      entry = this.cache.get(id, now);
      if (!entry) return undefined;
      state = this.stateOf(raw, entry, now);
    }
    if (state.status !== 'active' || !rateLimit) return state;
    // A store that counts in this process answers now; a shared one is awaited (read).
    const refusal = this.limiter!.hitSync(entry.limitKey, rateLimit);
    if (refusal === undefined) return undefined;
    return refusal ? { status: 'limited', retryAfter: refusal.retryAfter, clearCookies: [] } : state;
  }

  /** The state of a presented key: looked up (or cached), checked, with its user. */
  async read(raw: string, now: number = Date.now()): Promise<SessionState> {
    const { prefix } = this.config.apiKeys!;
    const known = this.knownKey(raw, prefix, now);
    if (known) return this.limit(known.entry, known.state);
    const id = apiKeyId(raw, prefix);
    if (id === null) return { status: 'invalid', clearCookies: [] };
    let entry = this.cache.get(id, now);
    if (!entry) {
      const found = await this.lookUp(id);
      if (!found) return { status: 'invalid', clearCookies: [] };
      entry = found;
      const ttl = this.config.apiKeys!.cacheTtl * 1000;
      if (ttl > 0) {
        this.cache.set(id, entry, now + ttl, now);
        if (this.broadcast.enabled) this.byHash.set(this.broadcast.keyOf('k', id), id);
        if (this.byHash.size > CACHE_MAX) this.byHash.clear();
      }
    }
    return this.limit(entry, this.stateOf(raw, entry, now));
  }

  /** Counts an accepted key's request against `apiKeys.rateLimit`. */
  private async limit(entry: CachedKey, state: SessionState): Promise<SessionState> {
    const rule = this.config.apiKeys!.rateLimit;
    if (state.status !== 'active' || !rule) return state;
    try {
      // Per key, on the shared store when there is one: every instance counts together.
      await this.limiter!.hit(entry.limitKey, rule);
    } catch (error) {
      if (error instanceof RateLimited) return { status: 'limited', retryAfter: error.retryAfter, clearCookies: [] };
      throw error;
    }
    return state;
  }

  /**
   * A presented key that matched its stored hash before and is still cached: its entry and the
   * request's state (a copy), else undefined (check it in full). The id is cut out unchecked: only
   * the whole key, compared in constant time with the one verified, decides.
   */
  private knownKey(raw: string, prefix: string, now: number): { entry: CachedKey; state: SessionState } | undefined {
    if (raw.length !== prefix.length + 1 + KEY_BODY_LENGTH) return undefined;
    const entry = this.cache.get(raw.slice(prefix.length + 1, prefix.length + 1 + ID_LENGTH), now);
    const verified = entry?.verified;
    // Every character compared (lengths are equal here, a key's): no copy into bytes, no early exit.
    if (!verified || !equalStrings(raw, verified.raw)) return undefined;
    const { expiresMs } = entry;
    if (expiresMs !== null && expiresMs! <= now) return { entry, state: { status: 'expired', clearCookies: [] } };
    this.touch(entry, now);
    return { entry, state: ownBearerState(verified.state) };
  }

  /** Forgets a key here and on every instance (revoked, renamed, rotated). */
  forget(id: string): Promise<void> {
    this.cache.delete(id);
    return this.broadcast.publish('k', this.broadcast.keyOf('k', id));
  }

  private async lookUp(id: string): Promise<CachedKey | undefined> {
    const row = (await this.store.getApiKey(id)) as AdapterApiKey | null;
    if (!row || row.id !== id || typeof row.keyHash !== 'string' || typeof row.userId !== 'string') return undefined;
    const user = (await this.adapters.require('getUser').getUser(row.userId)) as AdapterUser | null;
    if (!user) return undefined;
    return {
      row,
      user: { id: String(user.id), name: user.name ?? null, email: user.email ?? null, image: user.image ?? null },
      expiresMs: row.expires === null ? null : dateMs(row.expires),
      limitKey: `api-key:${id}`,
      touchAt: 0,
    };
  }

  /** Checks a presented key against its entry's stored hash; a match is remembered with the entry. */
  private stateOf(raw: string, entry: CachedKey, now: number): SessionState {
    const { row, user, expiresMs: expires } = entry;
    if (!equalBytes(Buffer.from(apiKeyHash(raw)), Buffer.from(row.keyHash)))
      return { status: 'invalid', clearCookies: [] };
    if (expires === undefined) return { status: 'invalid', clearCookies: [] };
    if (expires !== null && expires <= now) return { status: 'expired', clearCookies: [] };
    this.touch(entry, now);
    const session = { user: { ...user }, expires: isoStringOfMs(expires ?? NEVER_MS) };
    const credential: CredentialInfo = { kind: 'apiKey', scopes: [...row.scopes], keyId: row.id };
    // Enumerable, so the copies a request gets keep it; JSON leaves a symbol out anyway.
    (session as Record<symbol, unknown>)[CREDENTIAL] = credential;
    const state: ActiveState = {
      status: 'active',
      strategy: 'api-key',
      user: { ...user },
      session: session as never,
      token: { sub: user.id, scope: row.scopes.join(' '), key_id: row.id },
      sessionToken: '',
      bearer: true,
      // An API key is no sign-in: a route that asks for a recent one refuses it.
      signedInAt: null,
    };
    entry.verified = { raw, state };
    return ownBearerState(state);
  }

  /** `lastUsedAt`, at most once a minute per key per process; never waited for, never throws. */
  private touch(entry: CachedKey, now: number): void {
    // The entry's own mark first: a cached key's requests in between cost one comparison.
    if (now < entry.touchAt) return;
    entry.touchAt = now + LAST_USED_MS;
    const { row } = entry;
    if (!this.touched.remember(row.id, true, now + LAST_USED_MS, now)) return;
    void Promise.resolve()
      .then(() => this.store.updateApiKey(row.id, row.userId, { lastUsedAt: new Date(now) }))
      .catch((error: unknown) =>
        this.config.logger.error(new SessionTokenError("Recording an API key's last use failed.", { cause: error })),
      );
  }
}
