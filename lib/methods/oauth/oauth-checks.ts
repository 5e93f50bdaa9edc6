import type * as o from 'oauth4webapi';
import { InvalidRequest } from '../../errors/auth.errors.js';
import type { NormalizedOAuthProvider, OAuthCheck } from './oauth.normalize.js';
import { createJwtCodec } from '../../session/jwt.js';
import { AUTH_DEFAULTS } from '../../config/defaults.js';

/** Lifetime of the check cookies and of the state JWE (Auth.js: 15 minutes). */
export const CHECK_MAX_AGE = AUTH_DEFAULTS.checkMaxAge;

/** The check values a sign-in sealed in its cookies, as the callback read them back. */
export interface CheckValues {
  state?: string;
  code_verifier?: string;
  nonce?: string;
}

/** The codec of the `state` parameter: a JWE carrying the proxy origin (if any) and a random value. */
export function createStateCodec(secrets: string[]): ReturnType<typeof createJwtCodec> {
  return createJwtCodec(secrets, 'encodedState', CHECK_MAX_AGE);
}

/**
 * The checks in force. The fix for Auth.js's dead fallback: when the provider's metadata says it
 * does not support S256, an OIDC provider uses `nonce` instead of PKCE and an OAuth one `state`.
 */
export function effectiveChecks(p: NormalizedOAuthProvider, as: o.AuthorizationServer): Set<OAuthCheck> {
  const checks = new Set(p.checks);
  const methods = as.code_challenge_methods_supported;
  if (checks.has('pkce') && Array.isArray(methods) && !methods.includes('S256')) {
    checks.delete('pkce');
    checks.add(p.type === 'oidc' ? 'nonce' : 'state');
  }
  return checks;
}

/**
 * The `max_age` authorization parameter as seconds, or undefined when absent. A value that is not a
 * whole number of seconds is refused (`InvalidRequest`) before the user is sent to the provider.
 */
export function parseMaxAge(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value))
    throw new InvalidRequest('The max_age authorization parameter must be a whole number of seconds.');
  return Number(value);
}
