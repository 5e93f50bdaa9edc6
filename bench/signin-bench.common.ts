// What the sign-in bench (bench/signin.bench.ts) and its servers (bench/signin-bench.server.ts and
// the one module per library it loads) share: the config a server is started with, what it answers
// with, the password hash every library checks, and V8's profiler for the profiled run.
import { createHmac, randomBytes, scrypt } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector';

/** The libraries compared, each served by its own module of bench/. */
export type SigninLibrary = 'nestjs-auth' | 'authjs' | 'better-auth';

/** What the parent asks a sign-in bench server for (argv[2], JSON). */
export interface SigninServerConfig {
  library: SigninLibrary;
  /** Session kind after sign-in (better-auth has database sessions only; Auth.js's credentials, JWT only). */
  session: 'jwt' | 'database';
  /** The SQLite file (better-sqlite3, WAL) the library stores its users, sessions and tokens in. */
  file: string;
  secret: string;
  /** Users to store: `signin-<i>@bench.example`, all with {@link BENCH_PASSWORD}. */
  users: number;
  /**
   * The stored password hash of every user (scrypt at {@link SCRYPT_COST}, a PHC string), for the
   * apps that check it with `verifyPassword`; better-auth stores its own hash of the same password.
   */
  passwordHash: string;
  /** Magic-link tokens to store through the library's own storage (see {@link magicToken}). */
  magicLinks: number;
  /** Random per run: the magic-link tokens are this prefix and their number. */
  tokenPrefix: string;
  /** Writes a V8 CPU profile of the server from SIGUSR2 to SIGTERM to this path. */
  cpuProfile?: string;
  /** Port to listen on (the OAuth flow registers the callback URL at the provider before the server starts). */
  port?: number;
  /** The bench's OpenID Provider (bench/signin-bench.oidc.ts), as provider `idp`. */
  oidc?: { issuer: string; clientId: string; clientSecret: string };
  /**
   * Passkey flow: the library's passkey sign-in, relying party `localhost` at `origin` (the server's
   * port is chosen by the parent, which registers the passkeys over HTTP with its software authenticator).
   */
  passkey?: { origin: string };
  /**
   * Two-factor flow: the library's TOTP second factor on, and `users` more users
   * ({@link twoFactorEmail}), each with password hash `passwordHash` (cheap: the password step is
   * done before timing) and a confirmed authenticator app of key {@link totpKey}`(seed, i)`.
   */
  twoFactor?: { users: number; seed: string; passwordHash: string };
}

/** What a sign-in bench server prints after `READY `. */
export interface SigninServerReady {
  port: number;
  /** Name of the session cookie a successful sign-in sets. */
  sessionCookie: string;
  /** Credentials sign-in: how the form is sent. */
  credentials: {
    path: string;
    /** `form`: urlencoded with `csrfToken` (from `csrfPath`, its cookie sent back); `json`: a JSON body. */
    body: 'form' | 'json';
    csrfPath?: string;
  };
  /** OAuth/OIDC sign-in start (provider `idp`): answered with the provider's authorization URL. */
  oauthStart: {
    path: string;
    /** `form`: urlencoded with `csrfToken` (from `csrfPath`) and `callbackUrl`; `json`: better-auth's body. */
    body: 'form' | 'json';
    csrfPath?: string;
  };
  /** Magic-link confirmation: the emailed link's path, `{token}` and `{email}` to fill in. */
  magicLinkPath: string;
  /** Passkey sign-in (when asked for): the options route (`{action}`, `{email}` to fill in) and the verify route. */
  passkey?: { optionsPath: string; verifyPath: string };
  /**
   * Two-factor step (when asked for): the route the code is POSTed to, as a form with the CSRF token
   * (`form`) or as JSON (`json`), with the pending cookie the password step set.
   */
  twoFactor?: { path: string; body: 'form' | 'json' };
  /** Where a session cookie reads as its user (`{ user: { email } }`): the bench's proof that a sign-in worked. */
  sessionPath: string;
  /** Resident set size after start-up and seeding, bytes. */
  rss: number;
}

/** The password of every bench user. */
export const BENCH_PASSWORD = 'correct horse battery staple';

/**
 * The one password-hash cost of every library: scrypt with better-auth's own defaults (N = 2^14,
 * r = 16, p = 1, 64-byte key), node:crypto's implementation on libuv's thread pool in all three.
 */
export const SCRYPT_COST = { ln: 14, r: 16, p: 1, keyLength: 64 } as const;

/** Email of bench user `i`. */
export const benchEmail = (i: number) => `signin-${i}@bench.example`;

/**
 * Magic-link token `i` of a server: deterministic, so the parent can build every link without the
 * server listing them; `prefix` is random per run. Link `i` belongs to user `i mod users`.
 */
export const magicToken = (prefix: string, i: number) => `${prefix}${i.toString(36).padStart(6, '0')}`;

/**
 * A PHC string (`$scrypt$ln=14,r=16,p=1$salt$key`) of {@link BENCH_PASSWORD} at {@link SCRYPT_COST},
 * what nestjs-auth's `verifyPassword` reads (its `hashPassword` refuses costs under OWASP's minimum,
 * so the bench derives this one itself). Auth.js's `authorize` calls the same `verifyPassword`.
 */
export async function phcHash(
  password = BENCH_PASSWORD,
  cost: { ln: number; r: number; p: number; keyLength: number } = SCRYPT_COST,
): Promise<string> {
  const salt = randomBytes(16);
  const { ln, r, p, keyLength } = cost;
  const key = await new Promise<Buffer>((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, keyLength, { N: 2 ** ln, r, p, maxmem: 64 * 1024 * 1024 }, (e, k) =>
      e ? reject(e) : resolve(k),
    ),
  );
  const b64 = (b: Buffer) => b.toString('base64').replace(/=+$/, '');
  return `$scrypt$ln=${ln},r=${r},p=${p}$${b64(salt)}$${b64(key)}`;
}

/**
 * The password hash of the two-factor flow's users: scrypt at a token cost (N = 2^4, r = 8), since
 * that flow times the second step only and its password steps are done before timing.
 */
export const CHEAP_SCRYPT_COST = { ln: 4, r: 8, p: 1, keyLength: 32 } as const;

/** Email of the two-factor flow's user `i` (other addresses than the password users'). */
export const twoFactorEmail = (i: number) => `two-factor-${i}@bench.example`;

/** Email of the passkey flow's user `i`, who registers a passkey over HTTP before timing. */
export const passkeyEmail = (i: number) => `passkey-${i}@bench.example`;

/**
 * The TOTP key of the two-factor flow's user `i`: 32 ASCII characters, deterministic per run
 * (`seed` is random), so the parent computes the codes without asking the server. Both libraries
 * get the same key bytes: better-auth stores the string as it is (its HMAC key is the string's UTF-8
 * bytes), nestjs-auth stores {@link base32} of those bytes (what an authenticator app is given).
 */
export const totpKey = (seed: string, i: number) =>
  createHmac('sha256', seed).update(String(i)).digest('hex').slice(0, 32);

/** RFC 4648 base32, upper case, unpadded. */
export function base32(bytes: Uint8Array): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

/** Starts V8's CPU profiler (start-up and seeding left out); the returned function writes the profile. */
export async function startProfile(file: string): Promise<() => Promise<void>> {
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
    );
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 500 });
  await post('Profiler.start');
  return async () => {
    const { profile } = (await post('Profiler.stop')) as { profile: object };
    await writeFile(file, JSON.stringify(profile));
    session.disconnect();
  };
}

/** What each library's module of the server exports. */
export interface SigninApp {
  port: number;
  ready: Omit<SigninServerReady, 'port' | 'rss'>;
  close: () => Promise<void>;
}

/** What the sign-in bench's OpenID Provider (bench/signin-bench.oidc.ts) is started with (argv[2], JSON). */
export interface OidcBenchConfig {
  port: number;
  clients: { client_id: string; client_secret: string; redirect_uris: string[] }[];
}

/** Email of the provider's account `sub` (`oidc-<i>`: other addresses than the password users'). */
export const oidcEmail = (sub: string) => `${sub}@bench.example`;
