/**
 * The public API is deliberate: every value `nestjs-auth` exports is listed here, an error class, or a
 * built-in provider factory. A new export fails this spec until it is added to the list (and to the
 * README); internals stay out, so moving them is not a breaking change.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import * as api from '../lib/index.js';
import * as typeormApi from '../lib/typeorm.js';
import * as errors from '../lib/errors/auth.errors.js';

const LISTED = [
  // module, guard, decorators, services
  'AuthModule',
  'AuthGuard',
  'AuthService',
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
  'assertRecentSignIn',
  'AUTH_DEFAULTS',
  // storage
  'Adapter',
  'InjectAuthAdapter',
  'isDate',
  'MemoryAdapter',
  // JWT codec shared with Auth.js
  'encode',
  'decode',
  // providers
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
  'oauthProviderCatalog',
  // passwords, rate limits
  'hashPassword',
  'verifyPassword',
  'needsRehash',
  'PASSWORD_DEFAULTS',
  'RateLimitStore',
  'MemoryRateLimitStore',
  'RedisRateLimitStore',
  'RateLimiterService',
];

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
];

/** Internals that were exported before 0.2 and must not come back by accident. */
const INTERNAL = [
  'SessionService',
  'SignInService',
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

describe('the public API', () => {
  it('exports only listed names, error classes and built-in provider factories', async () => {
    const factories = await catalogFactories();
    expect(factories.size).toBeGreaterThan(80);
    const unlisted = Object.keys(api).filter(
      (name) => !LISTED.includes(name) && !(name in errors) && !factories.has(name),
    );
    expect(unlisted).toEqual([]);
  });

  it('exports every listed name, every error class and every built-in provider', async () => {
    const exported = new Set(Object.keys(api));
    expect(LISTED.filter((name) => !exported.has(name))).toEqual([]);
    expect(Object.keys(errors).filter((name) => !exported.has(name))).toEqual([]);
    expect([...(await catalogFactories())].filter((name) => !exported.has(name))).toEqual([]);
  });

  it('keeps internals out', () => {
    expect(INTERNAL.filter((name) => name in api)).toEqual([]);
  });

  it('keeps TypeORM in nestjs-auth/typeorm, which exports exactly its list', () => {
    expect(TYPEORM_LISTED.filter((name) => name in api)).toEqual([]);
    expect(Object.keys(typeormApi).sort()).toEqual([...TYPEORM_LISTED].sort());
  });
});
