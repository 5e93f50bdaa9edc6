import { createHash, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import type {
  AdapterAccount,
  AdapterApiKey,
  AdapterAuthenticator,
  AdapterRefreshFamily,
  AdapterSigningKey,
  AdapterTwoFactor,
  AdapterUser,
} from '../adapter.interface.js';

// Fresh records for the conformance suite: unique ids and emails, so tests can share one database.

/** A date in the future with a non-zero millisecond part: storage must keep milliseconds. */
export function futureDate(days: number): Date {
  const d = new Date(Date.now() + days * 86_400_000);
  d.setUTCMilliseconds(123 + days);
  return d;
}

export function newUser(overrides: Partial<AdapterUser> = {}): AdapterUser {
  return {
    id: randomUUID(),
    email: `conformance-${randomUUID()}@example.com`,
    name: 'Ada Lovelace',
    image: 'https://example.com/ada.png',
    emailVerified: futureDate(-3),
    ...overrides,
  };
}

export function newAccount(userId: string, overrides: Partial<AdapterAccount> = {}): AdapterAccount {
  return {
    userId,
    type: 'oidc',
    provider: 'conformance-oidc',
    providerAccountId: randomUUID(),
    access_token: randomBytes(24).toString('base64url'),
    refresh_token: randomBytes(24).toString('base64url'),
    // Real id_tokens (RS256, many claims) run to several kilobytes: the column must hold them.
    id_token: `eyJ.${randomBytes(3000).toString('base64url')}.sig`,
    expires_at: Math.floor(Date.now() / 1000) + 3600,
    token_type: 'bearer',
    scope: 'openid email profile',
    session_state: randomUUID(),
    ...overrides,
  };
}

export function newAuthenticator(userId: string, overrides: Partial<AdapterAuthenticator> = {}): AdapterAuthenticator {
  const credentialID = randomBytes(32).toString('base64url');
  return {
    credentialID,
    userId,
    providerAccountId: credentialID,
    credentialPublicKey: randomBytes(77).toString('base64'),
    counter: 7,
    credentialDeviceType: 'multiDevice',
    credentialBackedUp: true,
    transports: 'internal,hybrid',
    ...overrides,
  };
}

/** A confirmed TOTP factor with every field set (dates with milliseconds, a step beyond 32 bits). */
export function newTwoFactor(userId: string, overrides: Partial<AdapterTwoFactor> = {}): AdapterTwoFactor {
  return {
    id: randomUUID(),
    userId,
    type: 'totp',
    name: 'Phone ✓',
    secret: `sealed.${randomBytes(48).toString('base64url')}`,
    confirmedAt: futureDate(-2),
    createdAt: futureDate(-3),
    lastUsedAt: futureDate(-1),
    lastUsedStep: 2 ** 33 + 7,
    ...overrides,
  };
}

/** A family at generation 0 as a sign-in makes it (dates with milliseconds, two `amr` values). */
export function newRefreshFamily(userId: string, overrides: Partial<AdapterRefreshFamily> = {}): AdapterRefreshFamily {
  return {
    id: randomBytes(32).toString('base64url'),
    userId,
    clientId: 'conformance-native-app',
    generation: 0,
    tokenHash: randomBytes(32).toString('base64url'),
    rotatedAt: futureDate(-1),
    expires: futureDate(30),
    authTime: futureDate(-1),
    amr: ['pwd', 'otp'],
    ...overrides,
  };
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` random base62 characters (an API key's public id is 12). */
function base62(length: number): string {
  return [...randomBytes(length)].map((b) => BASE62[b % 62]).join('');
}

/** A key as the library makes one: a base62 id, a SHA-256 hash, two scopes, never used, no expiry. */
export function newApiKey(userId: string, overrides: Partial<AdapterApiKey> = {}): AdapterApiKey {
  const secret = `nak_${base62(12)}_${base62(32)}`;
  return {
    id: base62(12),
    userId,
    name: 'CI deploys',
    keyHash: createHash('sha256').update(secret).digest('base64url'),
    hint: secret.slice(-4),
    scopes: ['read:reports', 'write:deploys'],
    createdAt: futureDate(-2),
    expires: null,
    lastUsedAt: null,
    ...overrides,
  };
}

/** A rotation slot no other key of this run has: random, far apart, whole and from 0. */
let lastSlot = Math.floor(Math.random() * 2 ** 40);
export function newSlot(): number {
  lastSlot += 1 + Math.floor(Math.random() * 1000);
  return lastSlot;
}

/** A public Ed25519 key as a JWK (one pair per run: the suite checks storage, not keys). */
let publicJwk: string | undefined;
function edPublicJwk(): string {
  publicJwk ??= JSON.stringify(generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }));
  return publicJwk;
}

/** A signing key as the library makes one: a 43-character id, sealed private key text, a fresh slot. */
export function newSigningKey(overrides: Partial<AdapterSigningKey> = {}): AdapterSigningKey {
  return {
    id: randomBytes(32).toString('base64url'),
    alg: 'EdDSA',
    publicJwk: edPublicJwk(),
    privateKey: `sealed.${randomBytes(48).toString('base64url')}`,
    slot: newSlot(),
    createdAt: futureDate(-1),
    activatesAt: futureDate(0),
    removesAt: null,
    ...overrides,
  };
}

export function hashedToken(): string {
  return randomBytes(32).toString('hex');
}

/** The object without `undefined` properties, for `toMatchObject`. */
export function defined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
