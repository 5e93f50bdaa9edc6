// The public API of nestjs-auth. Nothing else is exported; inside lib/, import the concrete file.

// ---- types (SPEC sections 2 and 4) ----
export type * from './types/common.types.js';
export type * from './providers/provider.types.js';
export type * from './providers/oauth.types.js';
export type * from './providers/email.types.js';
export type * from './providers/credentials.types.js';
export type * from './providers/webauthn.types.js';
export type {
  AdapterUser,
  AdapterAccount,
  AdapterSession,
  VerificationToken,
  Authenticator,
  AdapterAuthenticator,
  AdapterMethod,
} from './adapters/adapter.interface.js';
export { Adapter, InjectAuthAdapter, isDate } from './adapters/adapter.interface.js';

// ---- errors ----
export * from './errors/auth.errors.js';

// ---- module, options ----
export type * from './config/auth-options.interface.js';

// ---- storage: MemoryAdapter, TypeORM ----

// ---- sessions, guard, decorators, services ----

// ---- providers ----

// ---- passwords, rate limits ----
