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

/**
 * The line `AuthModule` logs at bootstrap when `session.strategy` is not set: which strategy it
 * picked and why (an adapter means database sessions, which an app that only uses TypeORM for its
 * own tables may not expect). `null` when the app chose the strategy itself.
 */
export function sessionStrategyNotice(
  strategySet: boolean,
  strategy: 'jwt' | 'database',
  adapter: { given: boolean; none?: boolean; dataSource?: string },
): string | null {
  if (strategySet || adapter.none) return null;
  if (strategy === 'jwt')
    return (
      'session.strategy is not set: using JWT sessions (in a signed cookie), because no adapter is available ' +
      '(no `adapter` given and no TypeORM data source). Set session.strategy, or `adapter: null`, to say so and silence this line.'
    );
  const why = adapter.given
    ? 'an `adapter` is configured'
    : `no \`adapter\` was given and a TypeORM data source (${adapter.dataSource ? `"${adapter.dataSource}"` : 'the default one'}) is, so the default TypeOrmAdapter stores users, accounts and sessions there`;
  return (
    `session.strategy is not set: using database sessions, because ${why}. ` +
    "Set session.strategy: 'jwt' for sessions in a signed cookie, or 'database' to say so and silence this line."
  );
}

/**
 * The warning `AuthModule` logs at bootstrap when database sessions cannot tell when they signed in:
 * an adapter without `listSessionsByUserId` (`SessionListingAdapter`, which gives a session's
 * `createdAt`). Every recent-sign-in check then finds no sign-in time and asks to sign in again, so
 * linking an account, adding a passkey, account changes and new API keys are always refused. `null`
 * when the strategy is JWT (the sign-in time is a claim) or the adapter lists sessions.
 */
export function recentSignInNotice(strategy: 'jwt' | 'database', adapter: object | null): string | null {
  if (strategy !== 'database' || !adapter) return null;
  if (typeof (adapter as { listSessionsByUserId?: unknown }).listSessionsByUserId === 'function') return null;
  return (
    'database sessions with an adapter that has no listSessionsByUserId (SessionListingAdapter): the module ' +
    'cannot tell when a session signed in, so every action that needs a recent sign-in (linking an account, ' +
    'adding a passkey, account changes, new API keys) answers ReauthenticationRequired, however recent the ' +
    "sign-in. Use an adapter that lists sessions (TypeOrmAdapter, MemoryAdapter) or session.strategy: 'jwt'."
  );
}
