/**
 * The public API is deliberate: every value `nestjs-auth` exports is listed here or is an error class;
 * `nestjs-auth/providers` exports the built-in provider factories and `oauthProviderCatalog`, nothing
 * else; `nestjs-auth/typeorm`, `nestjs-auth/testing` and `nestjs-auth/verify` their lists. A new export
 * fails this spec until it is added to a list (and to the README); no value is exported from two
 * entries; internals stay out, so moving them is not a breaking change.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import * as api from '../lib/index.js';
import * as providersApi from '../lib/providers.js';
import * as typeormApi from '../lib/typeorm.js';
import * as drizzleApi from '../lib/drizzle.js';
import * as prismaApi from '../lib/prisma.js';
import * as testingApi from '../lib/adapters/testing/index.js';
import * as verifyApi from '../lib/verify.js';
import * as errors from '../lib/errors/auth.errors.js';

const LISTED = [
  // module, guard, decorators, services
  'AuthModule',
  'AuthGuard',
  'AuthService',
  'SignInService',
  'CurrentUser',
  'AuthSession',
  'ProviderAccessToken',
  'ProviderAccessTokenPipe',
  'requestSession',
  'graphqlContext',
  'GRAPHQL_WS_UNAUTHORIZED',
  'Public',
  'IS_PUBLIC_KEY',
  'SkipSessionCache',
  'SKIP_SESSION_CACHE_KEY',
  'RequireRecentSignIn',
  'REQUIRE_RECENT_SIGN_IN_KEY',
  'RequireAal',
  'Auth',
  'AUTH_POLICY_KEY',
  'REQUIRE_AAL_KEY',
  'assertRecentSignIn',
  'AUTH_DEFAULTS',
  'ENGLISH_MESSAGES',
  'GERMAN_MESSAGES',
  // storage
  'Adapter',
  'InjectAuthAdapter',
  'isDate',
  'MemoryAdapter',
  // JWT codec shared with Auth.js
  'encode',
  'decode',
  // the generic providers (the catalogue: nestjs-auth/providers)
  'Email',
  'Nodemailer',
  'EMAIL_DEFAULTS',
  'sendVerificationRequestWithNodemailer',
  'defaultNormalizeIdentifier',
  'renderVerificationEmail',
  'Credentials',
  'CREDENTIALS_DEFAULTS',
  'WebAuthn',
  'Passkey',
  'WEBAUTHN_DEFAULTS',
  // passwords, rate limits
  'hashPassword',
  'verifyPassword',
  'needsRehash',
  'PASSWORD_DEFAULTS',
  'RateLimitStore',
  'MemoryRateLimitStore',
  'RedisRateLimitStore',
  'RateLimiterService',
  // several instances: revocations between them
  'RevocationBus',
  'RedisRevocationBus',
  'PostgresRevocationBus',
  'RevocationBroadcast',
];

/** Every value `nestjs-auth/drizzle` exports: drizzle-orm is an optional peer, so the main entry has none of them. */
const DRIZZLE_LISTED = ['DrizzleAdapter', 'pgAuthTables', 'mysqlAuthTables', 'sqliteAuthTables'];

/** Every value `nestjs-auth/prisma` exports: it imports nothing of Prisma (the app's generated client is given). */
const PRISMA_LISTED = ['PrismaAdapter', 'prismaSchemaPostgres', 'prismaSchemaMysql', 'prismaSchemaSqlite'];

/** Every value `nestjs-auth/typeorm` exports: TypeORM is an optional peer, so the main entry has none of them. */
const TYPEORM_LISTED = [
  'TypeOrmAdapter',
  'authEntities',
  'defaultAuthEntities',
  'UserEntity',
  'AccountEntity',
  'AccountWithAuthorizationDetailsEntity',
  'SessionEntity',
  'VerificationTokenEntity',
  'AuthenticatorEntity',
  'TwoFactorEntity',
  'RefreshFamilyEntity',
  'ApiKeyEntity',
  'SigningKeyEntity',
  'AuthSchemaPostgres1764547200000',
  'AuthSchemaMysql1764547200000',
  'AuthSchemaSqlite1764547200000',
  'authMigrationsPostgres',
  'authMigrationsMysql',
  'authMigrationsSqlite',
  'authSchemaEntities',
  'AuthPasskeyNamesPostgres1764720000000',
  'AuthPasskeyNamesMysql1764720000000',
  'AuthPasskeyNamesSqlite1764720000000',
  'AuthSessionDetailsPostgres1764806400000',
  'AuthSessionDetailsMysql1764806400000',
  'AuthSessionDetailsSqlite1764806400000',
  'AuthTwoFactorPostgres1780000000000',
  'AuthTwoFactorMysql1780000000000',
  'AuthTwoFactorSqlite1780000000000',
  'AuthRefreshFamiliesPostgres1790000000000',
  'AuthRefreshFamiliesMysql1790000000000',
  'AuthRefreshFamiliesSqlite1790000000000',
  'AuthApiKeysPostgres1800000000000',
  'AuthApiKeysMysql1800000000000',
  'AuthApiKeysSqlite1800000000000',
  'AuthSigningKeysPostgres1800000000001',
  'AuthSigningKeysMysql1800000000001',
  'AuthSigningKeysSqlite1800000000001',
];

/** Internals that were exported before 0.2 and must not come back by accident. */
const INTERNAL = [
  'SessionService',
  'AUTH_CONFIG',
  'AUTH_EXTRAS',
  'AUTH_MODULE_OPTIONS',
  'defaultCookies',
  'defaultRedirect',
  'clientIpBucket',
  'AuthRouterService',
  'OAuthService',
  'EmailService',
  'CredentialsService',
  'WebAuthnService',
  'ChecksService',
  'AdapterService',
];

/** Every value `nestjs-auth/testing` exports. */
const TESTING_LISTED = ['runAdapterConformanceTests'];

/** Every value `nestjs-auth/verify` exports (jose only: no Nest, nothing else of the library). */
const VERIFY_LISTED = ['createAccessTokenVerifier', 'AccessTokenError'];

/** Every built-in provider factory: the capitalised functions of lib/providers/catalog/*.provider.ts. */
async function catalogFactories(): Promise<Set<string>> {
  const dir = join(import.meta.dirname, '..', 'lib', 'providers', 'catalog');
  const names = new Set<string>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.provider.ts'))) {
    const mod = (await import(join(dir, file))) as Record<string, unknown>;
    for (const [name, value] of Object.entries(mod))
      if (typeof value === 'function' && /^[A-Z]/.test(name)) names.add(name);
  }
  return names;
}

/** Every value `nestjs-auth/providers` exports: the catalogue's factories and the catalogue itself. */
async function providersListed(): Promise<string[]> {
  return [...(await catalogFactories()), 'oauthProviderCatalog'];
}

describe('the public API', () => {
  it('exports only listed names and error classes', () => {
    const unlisted = Object.keys(api).filter((name) => !LISTED.includes(name) && !(name in errors));
    expect(unlisted).toEqual([]);
  });

  it('exports every listed name and every error class', () => {
    const exported = new Set(Object.keys(api));
    expect(LISTED.filter((name) => !exported.has(name))).toEqual([]);
    expect(Object.keys(errors).filter((name) => !exported.has(name))).toEqual([]);
  });

  it('keeps internals out', () => {
    expect(INTERNAL.filter((name) => name in api)).toEqual([]);
  });

  it('keeps the provider catalogue in nestjs-auth/providers, which exports every built-in factory and nothing else', async () => {
    const factories = await catalogFactories();
    expect(factories.size).toBe(93);
    expect(Object.keys(providersApi).sort()).toEqual((await providersListed()).sort());
    // The catalogue by id holds exactly these factories.
    const byId = new Set(Object.values(providersApi.oauthProviderCatalog) as unknown[]);
    const exported = providersApi as Record<string, unknown>;
    expect([...factories].filter((name) => !byId.has(exported[name]))).toEqual([]);
    expect(byId.size).toBe(factories.size);
  });

  it('keeps TypeORM in nestjs-auth/typeorm, which exports exactly its list', () => {
    expect(TYPEORM_LISTED.filter((name) => name in api)).toEqual([]);
    expect(Object.keys(typeormApi).sort()).toEqual([...TYPEORM_LISTED].sort());
  });

  it('keeps Drizzle in nestjs-auth/drizzle, which exports exactly its list', () => {
    expect(DRIZZLE_LISTED.filter((name) => name in api)).toEqual([]);
    expect(Object.keys(drizzleApi).sort()).toEqual([...DRIZZLE_LISTED].sort());
  });

  it('keeps Prisma in nestjs-auth/prisma, which exports exactly its list', () => {
    expect(PRISMA_LISTED.filter((name) => name in api)).toEqual([]);
    expect(Object.keys(prismaApi).sort()).toEqual([...PRISMA_LISTED].sort());
  });

  it('nestjs-auth/testing exports exactly its list', () => {
    expect(Object.keys(testingApi).sort()).toEqual([...TESTING_LISTED].sort());
  });

  it('nestjs-auth/verify exports exactly its list', () => {
    expect(Object.keys(verifyApi).sort()).toEqual([...VERIFY_LISTED].sort());
  });

  it('exports no value from two entries', () => {
    const entries: Record<string, object> = {
      'nestjs-auth': api,
      'nestjs-auth/providers': providersApi,
      'nestjs-auth/typeorm': typeormApi,
      'nestjs-auth/drizzle': drizzleApi,
      'nestjs-auth/prisma': prismaApi,
      'nestjs-auth/testing': testingApi,
      'nestjs-auth/verify': verifyApi,
    };
    const seen = new Map<string, string>();
    const twice: string[] = [];
    for (const [entry, exports] of Object.entries(entries))
      for (const name of Object.keys(exports)) {
        const first = seen.get(name);
        if (first) twice.push(`${name}: ${first} and ${entry}`);
        else seen.set(name, entry);
      }
    expect(twice).toEqual([]);
  });
});
