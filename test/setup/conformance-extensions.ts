import type { ConformanceExtension } from '../../lib/adapters/testing/conformance-context.js';

/**
 * Every extension of the conformance suite: what an adapter with all of the library's capabilities
 * declares (TypeOrmAdapter, DrizzleAdapter and PrismaAdapter with every table or model given).
 */
export const ALL_EXTENSIONS = [
  'listSessionsByUserId',
  'deleteSessionsByUserId',
  'listSessionsByProviderSid',
  'listAccountsByUserId',
  'updateAccountTokens',
  'updateAuthenticatorName',
  'deleteAuthenticator',
  'deleteUserCascade',
  'deleteVerificationTokensByIdentifier',
  'twoFactor',
  'refreshFamily',
  'apiKey',
  'signingKey',
] as const satisfies readonly ConformanceExtension[];
