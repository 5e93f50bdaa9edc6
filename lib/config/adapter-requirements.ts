import type { Adapter, AdapterMethod } from '../adapters/adapter.interface.js';

/** Adapter methods each feature calls (checked at bootstrap, and again by AdapterService at run time). */
export const REQUIRED_ADAPTER_METHODS = {
  database: [
    'createUser',
    'getUser',
    'getUserByEmail',
    'getUserByAccount',
    'updateUser',
    'linkAccount',
    'createSession',
    'getSessionAndUser',
    'updateSession',
    'deleteSession',
  ],
  email: ['createVerificationToken', 'useVerificationToken', 'getUserByEmail', 'createUser', 'updateUser'],
  webauthn: [
    'createUser',
    'getUser',
    'getUserByEmail',
    'linkAccount',
    'getAccount',
    'getUserByAccount',
    'getAuthenticator',
    'createAuthenticator',
    'listAuthenticatorsByUserId',
    'updateAuthenticatorCounter',
  ],
  oauth: ['createUser', 'getUser', 'getUserByEmail', 'getUserByAccount', 'linkAccount'],
  credentials: ['createUser', 'getUserByAccount', 'linkAccount'],
} satisfies Record<string, AdapterMethod[]>;

/**
 * Reports methods the adapter lacks for a feature. With `optional`, a missing adapter is fine (OAuth
 * runs stateless without one) but a present adapter must be complete.
 */
export function requireAdapterMethods(
  feature: string,
  methods: AdapterMethod[],
  adapter: Adapter | null,
  problems: string[],
  optional = false,
): void {
  if (!adapter) {
    if (!optional) {
      problems.push(
        `${feature} needs storage but no adapter is available: add TypeOrmModule.forRoot({ ..., autoLoadEntities: true }) to your app (the default TypeOrmAdapter then stores everything), or pass \`adapter\` (e.g. MemoryAdapter for tests) to AuthModule (MissingAdapter).`,
      );
    }
    return;
  }
  const missing = methods.filter((m) => typeof (adapter as Record<string, unknown>)[m] !== 'function');
  if (missing.length) {
    problems.push(
      `${feature}: the adapter lacks ${missing.join(', ')} (MissingAdapterMethods); implement them or use an adapter that has them.`,
    );
  }
}
