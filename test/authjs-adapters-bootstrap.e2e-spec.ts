import { afterAll, beforeAll, expect, it } from '@jest/globals';
import PostgresAdapter from '@auth/pg-adapter';
import type { Adapter } from '../lib/adapters/adapter.interface.js';
import type { AuthModuleExtras, AuthModuleOptions } from '../lib/config/auth-options.interface.js';
import { AuthConfigurationError } from '../lib/errors/auth.errors.js';
import { extensionsOf, pgPool } from './setup/authjs-adapters.js';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AuthModule } from '../lib/auth.module.js';
import { TEST_SECRET } from './setup/app.js';
import { createDatabase, databaseTargets, dropDatabase, type TestDatabase } from './setup/databases.js';
import { AUTHJS_DDL } from './setup/authjs-ddl.js';

// An Auth.js adapter has none of our extensions (test/authjs-adapters.e2e-spec.ts): a feature that
// stores through one must refuse to start with it, naming what is missing, rather than fail at its
// first request. `@auth/pg-adapter` stands for them all here (each lacks every extension).

const [postgres] = await databaseTargets(['postgres']);
const URL = 'https://app.example.com';

postgres.describe('features that need an extension @auth/pg-adapter lacks', () => {
  let db: TestDatabase;
  let pool: ReturnType<typeof pgPool>;
  let adapter: Adapter;

  beforeAll(async () => {
    db = await createDatabase(postgres, 'authjs-bootstrap');
    pool = pgPool(db, 2);
    for (const statement of AUTHJS_DDL['authjs-pg'].postgres ?? []) await pool.query(statement);
    adapter = PostgresAdapter(pool as never) as Adapter;
  });
  afterAll(async () => {
    await pool?.end();
    await dropDatabase(db);
  });

  /** Starts an app with the adapter and `auth`; the error it failed with, or undefined once it started. */
  async function boot(auth: Partial<AuthModuleOptions> & AuthModuleExtras): Promise<unknown> {
    @Module({
      imports: [
        AuthModule.forRoot({
          secret: TEST_SECRET,
          providers: [],
          adapter,
          url: URL,
          session: { strategy: 'database' },
          logger: { warn: () => undefined },
          ...auth,
        } as AuthModuleOptions & AuthModuleExtras),
      ],
    })
    class BootModule {}
    try {
      // abortOnError: false, so a bootstrap error rejects instead of exiting the process.
      const app = await NestFactory.create(BootModule, { logger: false, abortOnError: false });
      await app.init();
      await app.close();
      return undefined;
    } catch (error) {
      return error;
    }
  }

  /** The bootstrap error: an AuthConfigurationError whose problems match `message`. */
  async function refused(auth: Partial<AuthModuleOptions> & AuthModuleExtras, message: RegExp): Promise<void> {
    const error = await boot(auth);
    expect(error).toBeInstanceOf(AuthConfigurationError);
    expect((error as AuthConfigurationError).problems.join('\n')).toMatch(message);
  }

  it('has none of our extensions, and starts with database sessions (the Auth.js contract is enough)', async () => {
    expect(extensionsOf(adapter)).toEqual([]);
    expect(await boot({})).toBeUndefined();
  });

  it('twoFactor: refused at bootstrap, naming the TwoFactorAdapter methods', async () => {
    await refused(
      { twoFactor: {} },
      /twoFactor: the adapter lacks createTwoFactor, listTwoFactorsByUserId, updateTwoFactor, useTwoFactorStep, deleteTwoFactor, deleteTwoFactorsByUserId, replaceTwoFactors \(MissingAdapterMethods\)/,
    );
  });

  it('nativeApps: refused at bootstrap, naming the RefreshTokenAdapter methods and listSessionsByUserId', async () => {
    await refused(
      { nativeApps: { clients: [{ clientId: 'ios', redirectUris: ['com.example.app:/callback'] }] } },
      /nativeApps: the adapter lacks createRefreshFamily, getRefreshFamily, rotateRefreshFamily, deleteRefreshFamily, deleteRefreshFamiliesByUserId, listSessionsByUserId \(MissingAdapterMethods\)/,
    );
  });

  it('apiKeys: refused at bootstrap, naming the ApiKeyAdapter methods', async () => {
    await refused(
      { apiKeys: {} },
      /apiKeys: the adapter lacks createApiKey, getApiKey, listApiKeysByUserId, updateApiKey, deleteApiKey, deleteApiKeysByUserId \(MissingAdapterMethods\)/,
    );
  });

  it("accessToken.keys 'stored': refused at bootstrap, naming SigningKeyAdapter", async () => {
    await refused(
      { accessToken: { issuer: `${URL}/auth`, keys: 'stored' } },
      /accessToken\.keys 'stored' needs an adapter with the signing-key methods \(SigningKeyAdapter/,
    );
  });

  it('accessToken without keys: starts, with keys derived from the secret (no storage needed)', async () => {
    expect(await boot({ accessToken: { issuer: `${URL}/auth` } })).toBeUndefined();
  });

  // session.jwtRevocation needs no extension: the revocation list lives in the rate-limit store. Only
  // the device list it adds (listing and ending a user's JWT sessions) needs listSessionsByUserId,
  // which AuthService.listSessions asks for when called (MissingAdapterMethods).
  it('session.jwtRevocation: starts (its revocation list is kept in the rate-limit store)', async () => {
    expect(await boot({ session: { strategy: 'jwt', jwtRevocation: true } })).toBeUndefined();
  });
});
