// The server side of the guard benchmark, started by guard.bench.ts in a child process (pinned to
// its own core). It serves one small route through AuthGuard and the same route without it, mints
// a session for the scenario, prints `READY <json>` and runs until SIGTERM.
import 'reflect-metadata';
import {
  type CanActivate,
  Controller,
  type DynamicModule,
  type ExecutionContext,
  Get,
  Injectable,
  type INestApplication,
  Module,
  UnauthorizedException,
  UseGuards,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector';
import type { AddressInfo } from 'node:net';
import type { DataSource } from 'typeorm';
import { Adapter } from '../lib/adapters/adapter.interface.js';
import { AuthModule } from '../lib/auth.module.js';
import type { AuthModuleExtras, AuthModuleOptions } from '../lib/config/auth-options.interface.js';
import { AccessTokens } from '../lib/session/access-tokens.js';
import { createJwtCodec } from '../lib/session/jwt.js';
import { SessionCache } from '../lib/session/session-cache.js';
import { SessionReader } from '../lib/session/session-reader.js';
import { BENCH_COOKIE_NAME, mintSessionCookies } from './mint-jwe.js';
import type { BenchOrm } from './orm-adapters.js';
import { AuthGuard } from '../lib/guard/auth.guard.js';
import { CurrentUser } from '../lib/guard/current-user.decorator.js';
import { AuthService } from '../lib/guard/auth.service.js';
import { Auth } from '../lib/core/public.decorator.js';

/** The request header a scenario's session travels in. */
export type SessionHeader = 'cookie' | 'authorization';

/** The issuer (and audience) of the access-token scenarios' tokens. */
export const BENCH_ISSUER = 'https://api.bench.example/auth';
/** The native app the access-token scenarios' tokens are issued to. */
export const BENCH_CLIENT_ID = 'bench-app';

/** What the parent asks for (argv[2], JSON). */
export interface BenchServerConfig {
  strategy: 'jwt' | 'database';
  /** TypeORM options of the database (database strategy). */
  database?: Record<string, unknown>;
  /** The adapter over `database` (PostgreSQL) other than the default TypeORM one. */
  orm?: BenchOrm;
  /** `session.cacheTtl` in seconds. */
  cacheTtl?: number;
  /** `session.jwtRevocation`. */
  jwtRevocation?: boolean;
  /** `session.cacheMaxEntries` and `session.cacheMaxBytes` (default: the library's). */
  cacheMaxEntries?: number;
  cacheMaxBytes?: number;
  secret: string;
  /**
   * Native apps' access tokens instead of session cookies: `nativeApps` (one client) and
   * `accessToken.issuer` configured, with the adapter they need (`database`, the default TypeORM
   * adapter; the guard never reads it for an access token), and the `tokens` the requests carry
   * signed by the library (`AccessTokens.sign`, from the app's container) and sent as
   * `Authorization: Bearer <token>`.
   */
  accessTokens?: boolean;
  /** With `accessTokens`: `accessToken.algorithm` (default EdDSA; RS256 takes the stored keys of the adapter). */
  accessTokenAlgorithm?: 'EdDSA' | 'RS256';
  /**
   * API keys instead of session cookies: `apiKeys` configured (the default `cacheTtl` of 60 s, and a
   * rate limit too high to be reached, so each request still counts against it), with the adapter
   * they need (`database`); `tokens` keys of as many users, created through `AuthService.createApiKey`
   * and sent as `Authorization: Bearer <key>` to `GET /guarded-api-key` (`@Auth({ accept: ['apiKey'] })`).
   */
  apiKeys?: boolean;
  /**
   * Distinct sessions to rotate through (default 1): the server mints them (JWT) or stores them
   * (database) and writes their Cookie headers to `tokensFile`, one a line.
   */
  tokens?: number;
  /** Database: session rows stored in all (>= tokens; the rest are other users' sessions). */
  rows?: number;
  tokensFile?: string;
  /**
   * JWT sessions: `tokensFile` already holds the `tokens` Cookie headers (the harness minted them
   * with `mintSessionCookies`); the server reads the first and mints none.
   */
  tokensGiven?: boolean;
  /** Writes a V8 CPU profile (`.cpuprofile`) of the server from READY to SIGTERM to this path. */
  cpuProfile?: string;
}

/** What the server prints after `READY `. */
export interface BenchServerReady {
  port: number;
  /** The header the session travels in (default `cookie`). */
  header?: SessionHeader;
  /** The value of that header for the first session: a Cookie header, or `Bearer <access token>`. */
  cookie: string;
  userId: string;
  /** Resident set size after start-up and seeding, bytes. */
  rss: number;
  /** V8 heap in use after start-up and seeding (after a GC), bytes. */
  heapUsed?: number;
  /** Database: the query plan of the session lookup for the first token, when the driver explains. */
  plan?: string;
  /**
   * JWT sessions with more than one token: what one session cache entry takes, measured (V8 heap
   * after a GC, over {@link ENTRY_SAMPLE} tokens read the way a request reads them, then forgotten)
   * and as the cache counts it against `session.cacheMaxBytes`, bytes.
   */
  entryBytes?: { measured: number; counted: number; entries: number };
}

/** What `GET /bench-memory` answers: the V8 heap after a GC, and what the session cache holds. */
export interface BenchServerMemory {
  heapUsed: number;
  cache: { jwts: number; jwtBytes: number; dbs: number; dbBytes: number };
}

/** The floor: a guard that lets everything through, to show what any Nest guard costs. */
@Injectable()
class AllowAllGuard implements CanActivate {
  canActivate(): boolean {
    return true;
  }
}

/**
 * What any guard that leaves its user on `req.user` (Passport's place, and ours) pays for that
 * alone: one property added to Express's request. The user is the shape AuthGuard leaves.
 */
@Injectable()
class SetsUserGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    context.getArgByIndex<{ user?: object }>(0).user = { id: 'reference-user', name: null, email: null, image: null };
    return true;
  }
}

/** The session cookie's name (http): the salt of its JWE key. */
const COOKIE_NAME = BENCH_COOKIE_NAME;

/**
 * What verifying a session JWE on every request costs by itself: the library's own decrypter
 * (`createJwtCodec(...).inspectSync`, what AuthGuard runs on a cache miss), nothing cached, no user
 * left. The cookie is cut out of the header by hand. Refuses what does not open.
 */
@Injectable()
class OpensJweGuard implements CanActivate {
  private readonly codec = createJwtCodec([benchSecret], COOKIE_NAME, 3600);
  canActivate(context: ExecutionContext): boolean {
    const cookie = context.getArgByIndex<{ headers: { cookie?: string } }>(0).headers.cookie ?? '';
    const opened = this.codec.inspectSync(cookie.slice(cookie.indexOf('=') + 1));
    if (opened.status !== 'valid') throw new UnauthorizedException();
    return true;
  }
}
/** The secret the server was started with (set before the module is built). */
let benchSecret = '';
/** The running app (for `GET /bench-memory`). */
let benchApp: INestApplication | undefined;
/** Tokens read to measure what a session cache entry takes. */
const ENTRY_SAMPLE = 2000;

/** Collects garbage twice (what survives the first may be freed by the second: weak references). */
const collect = () => {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
};

@Controller()
class BenchController {
  @Get('guarded')
  @UseGuards(AuthGuard)
  guarded(@CurrentUser('id') id: string) {
    return { ok: true, id };
  }

  @Get('guarded-api-key')
  @UseGuards(AuthGuard)
  @Auth({ accept: ['apiKey'] })
  guardedApiKey(@CurrentUser('id') id: string) {
    return { ok: true, id };
  }

  @Get('allow-all')
  @UseGuards(AllowAllGuard)
  allowAll(@CurrentUser('id') id: string | undefined) {
    return { ok: true, id: id ?? 'anonymous' };
  }

  @Get('sets-user')
  @UseGuards(SetsUserGuard)
  setsUser(@CurrentUser('id') id: string | undefined) {
    return { ok: true, id: id ?? 'anonymous' };
  }

  @Get('opens-jwe')
  @UseGuards(OpensJweGuard)
  opensJwe(@CurrentUser('id') id: string | undefined) {
    return { ok: true, id: id ?? 'anonymous' };
  }

  // Not loaded: asked once after the rounds, for what the session cache held.
  @Get('bench-memory')
  memory(): BenchServerMemory {
    collect();
    return { heapUsed: process.memoryUsage().heapUsed, cache: benchApp!.get(SessionCache, { strict: false }).usage() };
  }

  // The same handler, parameter decorator included, without the guard: the difference is the guard.
  @Get('open')
  open(@CurrentUser('id') id: string | undefined) {
    return { ok: true, id: id ?? 'anonymous' };
  }
}

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? '{}') as BenchServerConfig;
  benchSecret = config.secret;
  const imports: DynamicModule[] = [];
  // Drizzle or Prisma: the adapter over the app's own client, as the docs wire it; else TypeORM's.
  // Imported only by the rows that use them: code loaded stays on V8's heap, and under load the
  // heap grows in proportion to what it holds, so an unused ORM would count as the guard's memory.
  const orm = config.orm
    ? await (await import('./orm-adapters.js')).ormAdapter(config.orm, String(config.database?.url))
    : undefined;
  if (config.database && !orm) {
    const { TypeOrmModule } = await import('@nestjs/typeorm');
    imports.push(TypeOrmModule.forRoot({ ...config.database, autoLoadEntities: true, synchronize: true } as never));
  }
  const options: AuthModuleOptions & AuthModuleExtras = {
    secret: config.secret,
    providers: [],
    trustHost: true,
    // No database: `adapter: null`, as the docs tell JWT-only apps (TypeORM, installed here for the
    // other rows, is then never loaded; without it the default adapter would load it).
    adapter: orm ? orm.adapter : config.database ? undefined : null,
    session: {
      strategy: config.strategy,
      ...(config.cacheTtl ? { cacheTtl: config.cacheTtl } : {}),
      ...(config.jwtRevocation ? { jwtRevocation: true } : {}),
      ...(config.cacheMaxEntries !== undefined ? { cacheMaxEntries: config.cacheMaxEntries } : {}),
      ...(config.cacheMaxBytes !== undefined ? { cacheMaxBytes: config.cacheMaxBytes } : {}),
    },
    ...(config.apiKeys ? { apiKeys: { rateLimit: { limit: 1_000_000, window: 60 } } } : {}),
    ...(config.accessTokens
      ? {
          nativeApps: {
            clients: [{ clientId: BENCH_CLIENT_ID, name: 'Bench app', redirectUris: ['com.example.bench:/oauth'] }],
          },
          // The longest lifetime allowed (a day), so no token expires during a long run.
          accessToken: {
            issuer: BENCH_ISSUER,
            maxAge: 86_400,
            ...(config.accessTokenAlgorithm ? { algorithm: config.accessTokenAlgorithm } : {}),
          },
        }
      : {}),
  };

  @Module({ imports: [...imports, AuthModule.forRoot(options)], controllers: [BenchController] })
  class BenchModule {}

  const app = await NestFactory.create(BenchModule, { logger: false });
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;

  benchApp = app;
  // Seeding in its own function: its tokens (50,000 of them, tens of MB) are garbage once it
  // returns, so the GC below frees them and V8 does not size its heap by them.
  const seeded = await seed(app, config, orm);
  const entryBytes =
    config.strategy === 'jwt' && !config.accessTokens && (config.tokens ?? 1) > 1 && config.tokensFile
      ? await measureEntryBytes(app, config.tokensFile)
      : undefined;
  // Settle what seeding allocated, so the RSS reported is the app's, not the seeding's garbage.
  collect();

  const { rss, heapUsed } = process.memoryUsage();
  const ready: BenchServerReady = { port, ...seeded, rss, heapUsed, entryBytes };
  const stopProfile = config.cpuProfile ? await startProfile(config.cpuProfile) : undefined;
  process.stdout.write(`READY ${JSON.stringify(ready)}\n`);

  process.once('SIGTERM', () => {
    void (stopProfile?.() ?? Promise.resolve()).then(() => app.close()).finally(() => process.exit(0));
  });
}

/**
 * Mints (JWT, access tokens) or stores (database) the scenario's sessions, writes their Cookie (or
 * Authorization) headers to `tokensFile`, one a line, and returns the first one's.
 */
async function seed(
  app: INestApplication,
  config: BenchServerConfig,
  orm: { adapter: Adapter } | undefined,
): Promise<Pick<BenchServerReady, 'header' | 'cookie' | 'userId' | 'plan'>> {
  const cookieName = COOKIE_NAME;
  const count = Math.max(1, config.tokens ?? 1);
  const cookies: string[] = [];
  let userId: string;
  let plan: string | undefined;
  let header: SessionHeader = 'cookie';
  if (config.apiKeys) {
    header = 'authorization';
    // The library's own service, as the account API uses it: one key per user.
    const adapter = app.get(Adapter);
    const auth = app.get(AuthService);
    for (let i = 0; i < count; i++) {
      const user = await adapter.createUser!({
        email: `bench-key-${i}-${randomUUID()}@example.com`,
        name: `Bench User ${i}`,
        image: null,
        emailVerified: null,
      } as never);
      if (i === 0) userId = user.id;
      const { key } = await auth.createApiKey(user.id, { name: 'Bench key' });
      cookies.push(`Bearer ${key}`);
    }
    userId ??= '';
  } else if (config.accessTokens) {
    header = 'authorization';
    userId = 'bench-user-0';
    // The library's own signer, as the token route uses it: each token another user's sign-in (its
    // own family id as `sid`), with the claims a password sign-in gives (`amr`, hence `acr`).
    const signer = app.get(AccessTokens);
    const authTime = new Date();
    const iat = Math.floor(Date.now() / 1000);
    for (let i = 0; i < count; i++) {
      const { token } = signer.sign({
        user: { id: `bench-user-${i}`, name: `Bench User ${i}`, email: `bench-${i}@example.com`, image: null },
        sid: randomBytes(32).toString('base64url'),
        clientId: BENCH_CLIENT_ID,
        authTime,
        amr: ['pwd'],
        iat,
        jti: randomUUID(),
      });
      cookies.push(`Bearer ${token}`);
    }
  } else if (config.strategy === 'jwt') {
    userId = 'bench-user-0';
    if (config.tokensGiven && config.tokensFile) {
      // Minted by the harness (bench/mint-jwe.ts), so this process's memory is the app's, not the minting's.
      // Decoded from the bytes of the first line: a slice of the whole file's string would keep it alive.
      const file = await readFile(config.tokensFile);
      const first = file.subarray(0, file.indexOf(10)).toString('latin1');
      return { header, cookie: first, userId };
    }
    cookies.push(...(await mintSessionCookies(config.secret, count)));
  } else if (orm) {
    // Through the adapter itself: one user and session per token (the ORM rows rotate few tokens).
    userId = '';
    for (let i = 0; i < count; i++) {
      const user = await orm.adapter.createUser!({
        id: randomUUID(),
        email: `bench-${i}-${randomUUID()}@example.com`,
        name: `Bench User ${i}`,
        image: null,
        emailVerified: null,
      });
      userId ||= user.id;
      const sessionToken = randomBytes(32).toString('hex');
      await orm.adapter.createSession!({
        sessionToken,
        userId: user.id,
        expires: new Date(Date.now() + 30 * 24 * 3600 * 1000 - 60_000),
      });
      cookies.push(`${cookieName}=${sessionToken}`);
    }
  } else {
    const { DataSource } = await import('typeorm');
    const seeded = await seedSessions(app.get<Adapter>(Adapter, { strict: false }), app.get(DataSource), {
      tokens: count,
      rows: Math.max(count, config.rows ?? count),
    });
    userId = seeded.userId;
    plan = seeded.plan;
    for (const token of seeded.tokens) cookies.push(`${cookieName}=${token}`);
  }
  if (config.tokensFile) await writeFile(config.tokensFile, cookies.join('\n'));
  return { header, cookie: cookies[0], userId, plan };
}

/**
 * What one session cache entry takes (JWT sessions): the heap after a GC before and after reading
 * {@link ENTRY_SAMPLE} of the scenario's tokens through the library's reader, each from a Cookie
 * header of its own as a request brings it (the cache keeps the token it was read from), over the
 * entries the cache then holds; and what the cache counts for them. The entries are forgotten after.
 */
async function measureEntryBytes(app: INestApplication, tokensFile: string): Promise<BenchServerReady['entryBytes']> {
  const reader = app.get(SessionReader, { strict: false });
  const cache = app.get(SessionCache, { strict: false });
  // Kept as bytes until read, so each header is a string of its own, as the HTTP parser makes it.
  const headers = (await readFile(tokensFile, 'utf8'))
    .split('\n')
    .slice(1, 1 + ENTRY_SAMPLE)
    .map((line) => Buffer.from(line, 'latin1'));
  const lookup = (cookieHeader: string) => ({ cookies: {}, cookieHeader, secure: false });
  const before = cache.usage();
  collect();
  const heapBefore = process.memoryUsage().heapUsed;
  for (const header of headers) reader.readCached(lookup(header.toString('latin1')));
  collect();
  const heapAfter = process.memoryUsage().heapUsed;
  const after = cache.usage();
  const entries = after.jwts - before.jwts;
  for (const header of headers) cache.forgetJwt(header.toString('latin1').slice(COOKIE_NAME.length + 1));
  if (entries <= 0) return undefined;
  return {
    measured: Math.round((heapAfter - heapBefore) / entries),
    counted: Math.round((after.jwtBytes - before.jwtBytes) / entries),
    entries,
  };
}

/** Starts V8's CPU profiler (start-up and seeding left out); the returned function writes the profile. */
async function startProfile(file: string): Promise<() => Promise<void>> {
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

/**
 * Stores `rows` sessions of `tokens` users (session i belongs to user i mod tokens) with one SQL
 * statement per table, copying the expiry the adapter wrote for a template session so the stored
 * format is the driver's own. Returns the first `tokens` session tokens (the ones the load rotates),
 * the first one's user, and the lookup's query plan.
 */
async function seedSessions(
  adapter: Adapter,
  dataSource: DataSource,
  { tokens, rows }: { tokens: number; rows: number },
): Promise<{ tokens: string[]; userId: string; plan?: string }> {
  const prefix = `bench-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  const template = await adapter.createUser!({
    email: `${prefix}-template@example.com`,
    name: 'Template',
    image: null,
    emailVerified: null,
  } as never);
  const templateToken = `${prefix}-template`;
  await adapter.createSession!({
    sessionToken: templateToken,
    userId: template.id,
    // A full `maxAge` (30 days) ahead, as right after sign-in: not due for extension (`updateAge`),
    // so the load measures reads, not one UPDATE per session on its first visit.
    expires: new Date(Date.now() + 30 * 24 * 3600 * 1000 - 60_000),
  });
  const postgres = dataSource.options.type === 'postgres';
  const series = (n: number) =>
    postgres
      ? `SELECT g - 1 AS n FROM generate_series(1, ${n}) AS g`
      : `WITH RECURSIVE g(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM g WHERE n + 1 < ${n}) SELECT n FROM g`;
  const q = (name: string) => dataSource.driver.escape(name);
  const cat = (...parts: string[]) => parts.join(' || ');
  await dataSource.query(
    `INSERT INTO ${q('users')} (${q('id')}, ${q('name')}, ${q('email')}) SELECT ${cat(`'${prefix}-u-'`, 'CAST(n AS TEXT)')}, ${cat(`'Bench User '`, 'CAST(n AS TEXT)')}, ${cat(`'${prefix}-'`, 'CAST(n AS TEXT)', `'@example.com'`)} FROM (${series(tokens)}) s`,
  );
  const userOf = postgres ? `MOD(n, ${tokens})` : `n % ${tokens}`;
  await dataSource.query(
    `INSERT INTO ${q('sessions')} (${q('sessionToken')}, ${q('userId')}, ${q('expires')}) SELECT ${cat(`'${prefix}-s-'`, 'CAST(n AS TEXT)')}, ${cat(`'${prefix}-u-'`, `CAST(${userOf} AS TEXT)`)}, (SELECT ${q('expires')} FROM ${q('sessions')} WHERE ${q('sessionToken')} = '${templateToken}') FROM (${series(rows)}) s`,
  );
  if (postgres) await dataSource.query('ANALYZE');
  const list = Array.from({ length: tokens }, (_, i) => `${prefix}-s-${i}`);
  const join = `SELECT s.*, u.* FROM ${q('sessions')} s INNER JOIN ${q('users')} u ON u.${q('id')} = s.${q('userId')} WHERE s.${q('sessionToken')} = '${list[0]}'`;
  const explained = (await dataSource.query(postgres ? `EXPLAIN ${join}` : `EXPLAIN QUERY PLAN ${join}`)) as Record<
    string,
    unknown
  >[];
  const plan = explained.map((row) => String(row['QUERY PLAN'] ?? row.detail ?? JSON.stringify(row))).join('\n');
  return { tokens: list, userId: `${prefix}-u-0`, plan };
}

main().catch((error: unknown) => {
  process.stderr.write(`bench server failed: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
