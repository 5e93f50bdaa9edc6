import { createHash, createPrivateKey, createPublicKey, generateKeyPair, hkdfSync, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { AdapterSigningKey, SigningKeyAdapter } from '../adapters/adapter-extensions.js';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import { RSA_MODULUS_BITS, type SigningAlgorithm } from '../config/access-token.options.js';
import type { AccessTokenAlgorithm } from '../config/auth-options.interface.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { AdapterService } from '../core/adapter.service.js';
import { AdapterConflictError, SessionTokenError } from '../errors/auth.errors.js';
import { dateMs } from '../util/instant.js';
import { TokenCipher } from '../util/token-cipher.js';

/**
 * A published verification key (a JWK of RFC 7517, with `kid`, `alg` and `use`): an Ed25519 (`OKP`)
 * or P-256 (`EC`) key, or an RSA one (`n`, `e`).
 */
export type PublicSigningJwk =
  | { kty: 'OKP' | 'EC'; crv: string; x: string; y?: string; kid: string; alg: 'EdDSA' | 'ES256'; use: 'sig' }
  | { kty: 'RSA'; n: string; e: string; kid: string; alg: 'RS256'; use: 'sig' };

/** A key as the module holds it in memory. */
export interface SigningKey {
  kid: string;
  alg: SigningAlgorithm;
  /** The private half; absent for a stored key whose private half no secret opens (it only verifies). */
  privateKey?: KeyObject;
  publicKey: KeyObject;
  jwk: PublicSigningJwk;
  /** Rotation order (stored keys; the list order otherwise). */
  slot: number;
  /** When it starts signing, epoch ms. */
  activatesAt: number;
  /** When it stops being published, epoch ms; `Infinity`: not while it is the newest active key. */
  removesAt: number;
}

/** DER prefix of an Ed25519 private key in PKCS #8 (RFC 8410), before the 32-byte seed. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
/** The stored keys are read again this often (ms), and sooner for an unknown `kid`. */
const REFRESH_MS = 60_000;
/** An unknown `kid` asks storage at most this often (ms): a flood of forged ids costs one read. */
const UNKNOWN_KID_MS = 5_000;
/** The stored keys' algorithms, and the key type each needs (`KeyObject.asymmetricKeyType`). */
const STORED_KEY_TYPES: Readonly<Record<string, string>> = { EdDSA: 'ed25519', RS256: 'rsa' };
/** The RSA keys made for RS256: 2048-bit, exponent 65537. */
const RSA_KEY = { modulusLength: 2048, publicExponent: 0x10001 } as const;
const generate = promisify(generateKeyPair);

/**
 * The keys that sign access tokens, and the ones published to verify them (`{basePath}/jwks`):
 * - `stored` (the default with an adapter that stores them): keys generated here (Ed25519, or RSA
 *   2048-bit with `accessToken.algorithm: 'RS256'`), their
 *   private halves encrypted under the secret (AES-256-GCM, as provider tokens are) and kept through
 *   the adapter, so every instance signs with the same key. A new key is written `publishAhead`
 *   before it signs (verifiers' JWKS caches see it first); after `rotation.every` the next one takes
 *   over; an old key stays published until every token it signed has expired, plus `grace`, then
 *   goes. Instances rotating at once make one key: each key has a slot, and a slot is unique.
 *   Every instance reads the keys again each minute (a new key is published an hour ahead by
 *   default), and at once (rate-limited) when a token names a `kid` it does not know.
 * - `derived`: one Ed25519 key per secret (HKDF-SHA256), the first signing, nothing stored.
 * - keys given in the options: the first signs, all are published; rotation is the app's.
 * Verification and signing never wait: the keys are in memory (stored ones loaded at bootstrap).
 */
@Injectable()
export class SigningKeys implements OnApplicationBootstrap, OnApplicationShutdown {
  private keys: SigningKey[] = [];
  private loadedAt = 0;
  private lastUnknownKid = 0;
  private loading?: Promise<void>;
  private timer?: ReturnType<typeof setInterval>;
  private cipher?: TokenCipher;

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly adapters: AdapterService,
  ) {
    const { keys, enabled } = config.accessToken ?? { enabled: false, keys: 'derived' };
    if (!enabled) return;
    if (keys === 'derived') this.keys = config.secrets.map((secret, i) => derivedKey(secret, i));
    else if (Array.isArray(keys))
      // The first signs: it gets the highest slot.
      this.keys = keys.map((k, i) => keyOf(k.alg, k.privateKey, k.publicKey, -i, 0, Number.POSITIVE_INFINITY));
  }

  private get stored(): boolean {
    return this.config.accessToken?.enabled === true && this.config.accessToken.keys === 'stored';
  }

  private get store(): SigningKeyAdapter {
    return this.adapters.raw as unknown as SigningKeyAdapter;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.stored) return;
    try {
      await this.refresh();
    } catch (error) {
      // Fail fast, saying what to do: no token could be signed or verified without the keys.
      throw new SessionTokenError(
        "The access tokens' signing keys could not be read or created through the adapter: check that the signing_keys table exists (run the AuthSigningKeys… migration: `npx nestjs-auth migrations`), or set accessToken.keys to 'derived'.",
        { cause: error },
      );
    }
    const every = Math.min(REFRESH_MS, Math.max(1000, (this.config.accessToken.rotation.publishAhead * 1000) / 4));
    this.timer = setInterval(() => {
      this.refresh().catch((error: unknown) =>
        this.config.logger.error(new SessionTokenError('Refreshing the signing keys failed.', { cause: error })),
      );
    }, every);
    this.timer.unref?.();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** The key that signs now: the newest active one with a private half. */
  signingKey(now: number = Date.now()): SigningKey {
    let found: SigningKey | undefined;
    for (const key of this.keys)
      if (key.privateKey && key.activatesAt <= now && (!found || key.slot > found.slot)) found = key;
    if (!found)
      throw new SessionTokenError(
        'No access-token signing key is available yet (the stored keys could not be read): see the error logged at start-up.',
      );
    return found;
  }

  /** The published key with id `kid`, if any. */
  byKid(kid: unknown, now: number = Date.now()): SigningKey | undefined {
    if (typeof kid !== 'string') return undefined;
    return this.keys.find((k) => k.kid === kid && k.removesAt > now);
  }

  /** The published keys, as a JWK Set. */
  jwks(now: number = Date.now()): { keys: PublicSigningJwk[] } {
    return { keys: this.keys.filter((k) => k.removesAt > now).map((k) => k.jwk) };
  }

  /**
   * Reads the stored keys again when `kid` is unknown here (another instance rotated at once), at
   * most every few seconds; true when this made the key known (false for a key known already).
   */
  async learn(kid: unknown): Promise<boolean> {
    if (!this.stored || typeof kid !== 'string' || this.byKid(kid)) return false;
    const now = Date.now();
    if (now - this.lastUnknownKid < UNKNOWN_KID_MS) return false;
    this.lastUnknownKid = now;
    await this.load();
    return this.byKid(kid) !== undefined;
  }

  /**
   * Rotates now (on demand): a new key, published at once and signing after `publishAhead`, or at
   * once with `immediately` (the old key still verifies what it signed until its tokens expire;
   * `remove` it too when it leaked). Returns the new key's id.
   */
  async rotate(options: { immediately?: boolean } = {}): Promise<string> {
    if (!this.stored) throw new SessionTokenError("Rotating signing keys needs accessToken.keys 'stored'.");
    await this.load();
    const now = Date.now();
    const lead = options.immediately ? 0 : this.config.accessToken.rotation.publishAhead * 1000;
    const key = await this.create(this.nextSlot(), now, now + lead);
    await this.load();
    return key;
  }

  /** Deletes a stored key now (a leaked one): every token it signed is refused from then on. */
  async remove(kid: string): Promise<boolean> {
    if (!this.stored) throw new SessionTokenError("Removing signing keys needs accessToken.keys 'stored'.");
    const removed = await this.store.deleteSigningKey(kid);
    await this.load();
    return removed;
  }

  /** Loads the stored keys, creates the first one or the next one when due, and deletes expired ones. */
  async refresh(now: number = Date.now()): Promise<void> {
    await this.load();
    const { every, publishAhead } = this.config.accessToken.rotation;
    const newest = this.keys.at(-1);
    if (!newest) {
      // The first key signs at once: nothing can have cached a JWKS without it.
      await this.createOrLearn(0, now, now);
    } else if (every > 0 && newest.activatesAt + every * 1000 - publishAhead * 1000 <= now) {
      const activatesAt = Math.max(newest.activatesAt + every * 1000, now + publishAhead * 1000);
      await this.createOrLearn(newest.slot + 1, now, activatesAt);
    } else if (this.algorithmChanged(now)) {
      // `accessToken.algorithm` changed: the next key, of the new algorithm, at once (published
      // ahead, as any); the old ones sign until it does, then verify until rotation removes them.
      this.config.logger.warn('signing_key_algorithm_changed');
      await this.createOrLearn(newest.slot + 1, now, now + publishAhead * 1000);
    }
    for (const key of this.keys)
      if (key.removesAt <= now)
        await Promise.resolve(this.store.deleteSigningKey(key.kid)).catch((error: unknown) =>
          this.config.logger.error(new SessionTokenError('Deleting an expired signing key failed.', { cause: error })),
        );
    if (this.keys.some((k) => k.removesAt <= now)) await this.load();
  }

  /**
   * Whether neither the key that signs now nor one waiting to sign is of `accessToken.algorithm`
   * (the option changed since they were made). Keys of another algorithm are never used for it:
   * each key signs and verifies with its own, so a set of both is sound while the switch goes on.
   */
  private algorithmChanged(now: number): boolean {
    const algorithm = this.algorithm;
    let current: SigningKey | undefined;
    for (const key of this.keys)
      if (key.privateKey && key.activatesAt <= now && (!current || key.slot > current.slot)) current = key;
    return !this.keys.some((k) => (!current || k.slot >= current.slot) && k.alg === algorithm);
  }

  /** The algorithm of the keys made from now on. */
  private get algorithm(): AccessTokenAlgorithm {
    return this.config.accessToken.algorithm ?? 'EdDSA';
  }

  private nextSlot(): number {
    return (this.keys.at(-1)?.slot ?? -1) + 1;
  }

  /** Creates the key of `slot`; another instance that made it first wins (its key is read back). */
  private async createOrLearn(slot: number, now: number, activatesAt: number): Promise<void> {
    try {
      await this.create(slot, now, activatesAt);
    } catch (error) {
      if (!(error instanceof AdapterConflictError)) throw error;
    }
    await this.load();
  }

  private async create(slot: number, now: number, activatesAt: number): Promise<string> {
    const alg = this.algorithm;
    // Off the event loop: an RSA key takes about a tenth of a second to make.
    const { privateKey, publicKey } = alg === 'RS256' ? await generate('rsa', RSA_KEY) : await generate('ed25519');
    const jwk = publicJwk(alg, publicKey);
    this.cipher ??= new TokenCipher(this.config.secrets);
    const sealed = this.cipher.encrypt(privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64url'));
    await this.store.createSigningKey({
      id: jwk.kid,
      alg,
      publicJwk: JSON.stringify(
        jwk.kty === 'RSA' ? { kty: jwk.kty, n: jwk.n, e: jwk.e } : { kty: jwk.kty, crv: jwk.crv, x: jwk.x },
      ),
      privateKey: sealed,
      slot,
      createdAt: new Date(now),
      activatesAt: new Date(activatesAt),
      removesAt: null,
    } satisfies AdapterSigningKey);
    return jwk.kid;
  }

  /** Reads the stored keys (one read at a time), and when each stops being published. */
  private load(): Promise<void> {
    this.loading ??= this.read().finally(() => (this.loading = undefined));
    return this.loading;
  }

  private async read(): Promise<void> {
    const rows = (await this.store.listSigningKeys()) as unknown;
    this.cipher ??= new TokenCipher(this.config.secrets);
    const keys: SigningKey[] = [];
    for (const row of Array.isArray(rows) ? (rows as AdapterSigningKey[]) : []) {
      const key = this.parse(row);
      if (key) keys.push(key);
    }
    keys.sort((a, b) => a.slot - b.slot);
    // A key is published until the next active one has signed for as long as a token lives, plus grace.
    const { maxAge } = this.config.accessToken;
    const { grace } = this.config.accessToken.rotation;
    for (let i = 0; i < keys.length; i++) {
      const next = keys[i + 1];
      const stored = keys[i]!.removesAt;
      const computed = next ? next.activatesAt + (maxAge + grace) * 1000 : Number.POSITIVE_INFINITY;
      keys[i]!.removesAt = Math.min(stored, computed);
    }
    this.keys = keys;
    this.loadedAt = Date.now();
  }

  /** A stored key, checked: anything malformed is left out (fail closed). */
  private parse(row: AdapterSigningKey): SigningKey | undefined {
    try {
      const alg = row?.alg;
      if (!row || typeof row.id !== 'string' || (alg !== 'EdDSA' && alg !== 'RS256') || !Number.isSafeInteger(row.slot))
        return undefined;
      const activatesAt = dateMs(row.activatesAt);
      if (activatesAt === undefined) return undefined;
      const removesAt = row.removesAt === null ? Number.POSITIVE_INFINITY : dateMs(row.removesAt);
      if (removesAt === undefined) return undefined;
      const publicKey = createPublicKey({ key: JSON.parse(row.publicJwk) as never, format: 'jwk' });
      // The row's alg must be its key's: an RSA key under `EdDSA` (or the reverse) is left out.
      if (!fits(alg, publicKey)) return undefined;
      const key = keyOf(alg, undefined, publicKey, row.slot, activatesAt, removesAt);
      if (key.kid !== row.id) return undefined;
      const opened = TokenCipher.isEncrypted(row.privateKey) ? this.cipher!.decrypt(row.privateKey) : undefined;
      if (opened) {
        const privateKey = createPrivateKey({ key: Buffer.from(opened, 'base64url'), format: 'der', type: 'pkcs8' });
        if (publicJwk(alg, createPublicKey(privateKey)).kid === key.kid) key.privateKey = privateKey;
      }
      return key;
    } catch {
      return undefined;
    }
  }

  /** When the stored keys were last read (epoch ms; 0: never). */
  get readAt(): number {
    return this.loadedAt;
  }
}

/** The Ed25519 key of a secret: HKDF-SHA256 of it, as the seed. */
function derivedKey(secret: string, slot: number): SigningKey {
  const seed = Buffer.from(hkdfSync('sha256', secret, '', 'nestjs-auth access-token signing key (Ed25519)', 32));
  const privateKey = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  // The first secret signs: its key gets the highest slot.
  return keyOf('EdDSA', privateKey, createPublicKey(privateKey), -slot, 0, Number.POSITIVE_INFINITY);
}

/** Whether a stored key's public half is of the type its `alg` needs (RSA: 2048 to 4096 bits). */
function fits(alg: 'EdDSA' | 'RS256', publicKey: KeyObject): boolean {
  if (publicKey.asymmetricKeyType !== STORED_KEY_TYPES[alg]) return false;
  if (alg !== 'RS256') return true;
  const bits = publicKey.asymmetricKeyDetails?.modulusLength ?? 0;
  return bits >= RSA_MODULUS_BITS.min && bits <= RSA_MODULUS_BITS.max;
}

function keyOf(
  alg: SigningAlgorithm,
  privateKey: KeyObject | undefined,
  publicKey: KeyObject,
  slot: number,
  activatesAt: number,
  removesAt: number,
): SigningKey {
  return {
    kid: publicJwk(alg, publicKey).kid,
    alg,
    privateKey,
    publicKey,
    jwk: publicJwk(alg, publicKey),
    slot,
    activatesAt,
    removesAt,
  };
}

/** The published JWK of a public key, its `kid` the RFC 7638 thumbprint. */
function publicJwk(alg: SigningAlgorithm, publicKey: KeyObject): PublicSigningJwk {
  const j = publicKey.export({ format: 'jwk' }) as {
    kty: string;
    crv: string;
    x: string;
    y?: string;
    n: string;
    e: string;
  };
  // RFC 7638: the required members, in lexicographic order, no whitespace.
  const members =
    j.kty === 'RSA'
      ? { e: j.e, kty: j.kty, n: j.n }
      : j.kty === 'EC'
        ? { crv: j.crv, kty: j.kty, x: j.x, y: j.y }
        : { crv: j.crv, kty: j.kty, x: j.x };
  const kid = createHash('sha256').update(JSON.stringify(members)).digest('base64url');
  if (j.kty === 'RSA') return { kty: 'RSA', n: j.n, e: j.e, kid, alg: 'RS256', use: 'sig' };
  return { ...members, kid, alg, use: 'sig' } as PublicSigningJwk;
}
