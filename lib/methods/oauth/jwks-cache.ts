import type { createLocalJWKSet, JSONWebKeySet, JWSHeaderParameters } from 'jose';
import { loadJose, type Jose } from '../../util/jose.js';

/** How long a fetched JWKS is used before it is fetched again (oauth4webapi's cache lived as long). */
export const JWKS_TTL_MS = 5 * 60 * 1000;
/** How long a `kid` still missing after a refetch is refused without asking the provider again. */
export const JWKS_UNKNOWN_KID_TTL_MS = 60 * 1000;
/**
 * Most refetches for unknown keys per key set in a minute. A rotation brings one new `kid`, so a
 * legitimate provider never comes near it; it bounds what a stream of ever-new bogus `kid`s (which
 * the per-kid negative cache alone cannot stop) can make us send to the provider.
 */
export const JWKS_MAX_UNKNOWN_KEY_REFETCHES_PER_MINUTE = 10;
/** Negative-cache entries kept per key set (oldest dropped first), so memory stays bounded. */
const MAX_UNKNOWN_KIDS = 1000;
/** A longer `kid` is refused outright: no real key set uses one, and the negative cache stores it. */
const MAX_KID_LENGTH = 1024;

/** Why no verification key could be chosen for a JWS. */
export type JwksKeySelectionReason =
  /** No key in the provider's key set has this `kid` (or, without `kid`, this key type), even after a refetch. */
  | 'unknown_kid'
  /** The `kid` is there, but no key with it fits the header's `alg` (key type, curve, `use`, `key_ops`). */
  | 'no_usable_key'
  /** Several keys fit and the header names no `kid` to choose one. */
  | 'ambiguous_key'
  /** A key fits but cannot be imported (not a public key, RSA below 2048 bits, algorithm the runtime lacks). */
  | 'invalid_key';

/**
 * No verification key could be chosen. Internal: the OAuth flow turns it into an
 * `OAuthCallbackError` naming the provider.
 */
export class JwksKeySelectionError extends Error {
  constructor(
    readonly reason: JwksKeySelectionReason,
    /** The header's `kid` (not secret: it names a public key), cut to 64 characters. */
    readonly kid: string | undefined,
    /** True when the key set was fetched for this very token and still lacks the key. */
    readonly refetched: boolean,
    options?: { cause?: unknown },
  ) {
    super(`no verification key (${reason})`, options);
    this.name = 'JwksKeySelectionError';
  }
}

/** Options of {@link JwksCache}; every duration is in milliseconds. */
export interface JwksCacheOptions {
  /** The clock (tests inject one). @default Date.now */
  now?: () => number;
  /** @default {@link JWKS_TTL_MS} */
  ttlMs?: number;
  /** @default {@link JWKS_UNKNOWN_KID_TTL_MS} */
  unknownKidTtlMs?: number;
  /** @default {@link JWKS_MAX_UNKNOWN_KEY_REFETCHES_PER_MINUTE} */
  maxUnknownKeyRefetchesPerMinute?: number;
}

/** The part of a JWS header that chooses the key. */
export type JwksKeyQuery = Pick<JWSHeaderParameters, 'alg' | 'kid'> & { alg: string };

/** One fetched key set. */
interface Snapshot {
  /** Number of the fetch that brought it (see {@link Entry.started}). */
  seq: number;
  fetchedAt: number;
  /** `kid:<kid>` and `kty:<kty>` of every key, to tell at once whether a header's key is there at all. */
  ids: Set<string>;
  select: ReturnType<typeof createLocalJWKSet>;
}

/** The fetch under way for a key set (at most one: concurrent callers share it). */
interface Refresh {
  seq: number;
  promise: Promise<Snapshot>;
  /** Key ids of callers that saw them missing before this fetch started: still missing after it, they are unknown. */
  wanted: Set<string>;
}

interface Entry {
  current?: Snapshot;
  refresh?: Refresh;
  /** Fetches started so far; a caller compares it with a snapshot's `seq` to know whether that fetch came after it looked. */
  started: number;
  /** Negative cache: key id → time until which it is refused without a fetch. */
  unknown: Map<string, number>;
  /** Start times of the refetches for unknown keys in the last minute. */
  refetches: number[];
}

/**
 * The verification keys of providers' `jwks_uri`s, per key set: fetched on first use and after
 * {@link JWKS_TTL_MS}; a `kid` missing from the cached set makes one refetch, which callers that
 * need it at the same time share (one fetch, however many callbacks arrive together after a
 * rotation); a `kid` still missing afterwards is refused for {@link JWKS_UNKNOWN_KID_TTL_MS}
 * without another fetch, and refetches for unknown keys are capped per minute.
 *
 * Fetching is the caller's (`load`), so transport limits (https, timeout, size cap, custom fetch)
 * stay with the OAuth flow; this class only decides when to fetch and which key fits.
 */
export class JwksCache {
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;
  private readonly ttlMs: number;
  private readonly unknownKidTtlMs: number;
  private readonly maxRefetches: number;

  constructor(options: JwksCacheOptions = {}) {
    this.now = options.now ?? Date.now;
    this.ttlMs = options.ttlMs ?? JWKS_TTL_MS;
    this.unknownKidTtlMs = options.unknownKidTtlMs ?? JWKS_UNKNOWN_KID_TTL_MS;
    this.maxRefetches = options.maxUnknownKeyRefetchesPerMinute ?? JWKS_MAX_UNKNOWN_KEY_REFETCHES_PER_MINUTE;
  }

  /**
   * The public key that verifies a JWS with this header, from the key set `id` (e.g. provider and
   * `jwks_uri`). `load` fetches and returns the key set's JSON; its errors reach the caller as they
   * are and are not cached. Throws {@link JwksKeySelectionError} when no single key fits.
   */
  async getKey(id: string, header: JwksKeyQuery, load: () => Promise<unknown>): Promise<CryptoKey> {
    const kid = header.kid;
    if (kid !== undefined && (typeof kid !== 'string' || kid.length > MAX_KID_LENGTH)) {
      throw new JwksKeySelectionError('no_usable_key', typeof kid === 'string' ? kid.slice(0, 64) : undefined, false);
    }
    const entry = this.entry(id);
    // Fetches started from here on were sent after this token arrived: they show the provider's
    // keys as of now, so a key they lack is really unknown. Earlier ones may predate a rotation.
    const noticed = entry.started;
    const wanted = keyId(header);

    let snapshot = entry.current;
    if (!snapshot || this.now() - snapshot.fetchedAt >= this.ttlMs) {
      snapshot = await this.refreshed(entry, load, noticed, wanted);
    }
    if (!snapshot.ids.has(wanted)) snapshot = await this.refetchFor(entry, load, noticed, wanted, kid);
    return this.select(snapshot, header);
  }

  /** Waits for a fetch of the key set (joining the one under way, if any). */
  private refreshed(entry: Entry, load: () => Promise<unknown>, noticed: number, wanted: string): Promise<Snapshot> {
    const refresh = entry.refresh ?? this.startRefresh(entry, load);
    if (refresh.seq > noticed) refresh.wanted.add(wanted);
    return refresh.promise;
  }

  /**
   * The key set once it has `wanted`, after at most one fetch that started after this caller saw
   * the key missing (shared with every caller that needs one at the same time). Throws
   * `unknown_kid` when that fetch still lacks it, or at once while the key is in the negative
   * cache or the refetch cap is reached.
   */
  private async refetchFor(
    entry: Entry,
    load: () => Promise<unknown>,
    noticed: number,
    wanted: string,
    kid: string | undefined,
  ): Promise<Snapshot> {
    const shownKid = kid?.slice(0, 64);
    for (;;) {
      const snapshot = entry.current;
      if (snapshot?.ids.has(wanted)) return snapshot;
      if (snapshot && snapshot.seq > noticed) {
        this.markUnknown(entry, wanted);
        throw new JwksKeySelectionError('unknown_kid', shownKid, true);
      }
      const until = entry.unknown.get(wanted);
      if (until !== undefined && until > this.now()) throw new JwksKeySelectionError('unknown_kid', shownKid, false);
      if (!entry.refresh) {
        const now = this.now();
        entry.refetches = entry.refetches.filter((at) => now - at < 60_000);
        if (entry.refetches.length >= this.maxRefetches)
          throw new JwksKeySelectionError('unknown_kid', shownKid, false);
        entry.refetches.push(now);
        this.startRefresh(entry, load);
      }
      // A fetch that started after we looked decides for us (we join it). One that started before
      // may still bring the key; if it does not, the next turn starts (or joins) a fetch of our own.
      await this.refreshed(entry, load, noticed, wanted);
    }
  }

  private startRefresh(entry: Entry, load: () => Promise<unknown>): Refresh {
    const seq = ++entry.started;
    const refresh = { seq, wanted: new Set<string>() } as Refresh;
    entry.refresh = refresh;
    // jose (which reads the key set) loads beside the first fetch rather than at start-up.
    refresh.promise = Promise.resolve()
      .then(() => Promise.all([load(), loadJose()]))
      .then(([json, jose]) => {
        const snapshot = toSnapshot(jose, json, seq, this.now());
        // Fetches run one at a time, so this one is the newest. The keys callers were waiting for
        // that it lacks are recorded before any of them resumes, so none of them fetches again.
        entry.current = snapshot;
        for (const wanted of refresh.wanted) if (!snapshot.ids.has(wanted)) this.markUnknown(entry, wanted);
        return snapshot;
      })
      .finally(() => {
        if (entry.refresh === refresh) entry.refresh = undefined;
      });
    return refresh;
  }

  private markUnknown(entry: Entry, wanted: string): void {
    const now = this.now();
    if (entry.unknown.size >= MAX_UNKNOWN_KIDS) {
      for (const [key, until] of entry.unknown) if (until <= now) entry.unknown.delete(key);
      // Still full: drop the oldest (Map keeps insertion order).
      while (entry.unknown.size >= MAX_UNKNOWN_KIDS) entry.unknown.delete(entry.unknown.keys().next().value!);
    }
    entry.unknown.delete(wanted);
    entry.unknown.set(wanted, now + this.unknownKidTtlMs);
  }

  private async select(snapshot: Snapshot, header: JwksKeyQuery): Promise<CryptoKey> {
    const kid = header.kid?.slice(0, 64);
    try {
      return await snapshot.select({ alg: header.alg, ...(header.kid !== undefined ? { kid: header.kid } : {}) });
    } catch (error) {
      // Loaded already: the snapshot was made with it.
      const { errors: joseErrors } = await loadJose();
      if (error instanceof joseErrors.JWKSNoMatchingKey)
        throw new JwksKeySelectionError('no_usable_key', kid, false, { cause: error });
      if (error instanceof joseErrors.JWKSMultipleMatchingKeys)
        throw new JwksKeySelectionError('ambiguous_key', kid, false, { cause: error });
      throw new JwksKeySelectionError('invalid_key', kid, false, { cause: error });
    }
  }

  private entry(id: string): Entry {
    let entry = this.entries.get(id);
    if (!entry) {
      entry = { started: 0, unknown: new Map(), refetches: [] };
      this.entries.set(id, entry);
    }
    return entry;
  }
}

/** What identifies the key a header asks for: its `kid`, or without one the key type its `alg` needs. */
function keyId(header: JwksKeyQuery): string {
  return header.kid !== undefined ? `kid:${header.kid}` : `kty:${ktyFor(header.alg)}`;
}

function ktyFor(alg: string): string {
  if (/^(RS|PS)\d{3}$/.test(alg)) return 'RSA';
  if (/^ES\d{3}$/.test(alg)) return 'EC';
  if (alg === 'EdDSA' || alg === 'Ed25519') return 'OKP';
  if (alg.startsWith('ML-DSA-')) return 'AKP';
  return '?';
}

function toSnapshot(jose: Jose, json: unknown, seq: number, fetchedAt: number): Snapshot {
  // createLocalJWKSet checks the shape ({ keys: [objects] }) and throws JWKSInvalid otherwise.
  const select = jose.createLocalJWKSet(json as JSONWebKeySet);
  const ids = new Set<string>();
  for (const jwk of (json as JSONWebKeySet).keys) {
    if (typeof jwk.kid === 'string') ids.add(`kid:${jwk.kid}`);
    if (typeof jwk.kty === 'string') ids.add(`kty:${jwk.kty}`);
  }
  return { seq, fetchedAt, ids, select };
}
