import { ReauthenticationRequired } from '../errors/auth.errors.js';
import type { JWT } from '../types/common.types.js';
import { CLOCK_SKEW_SECONDS, dateMs, numericDateMs } from '../util/instant.js';

/**
 * The JWT claim that records when the user signed in (seconds since the epoch): OpenID Connect's
 * `auth_time`. Set at sign-in, before the `jwt` callback, and kept when the cookie is re-issued.
 */
export const SIGNED_IN_AT_CLAIM = 'auth_time';

/**
 * Throws {@link ReauthenticationRequired} unless `signedInAt` is a valid instant no more than
 * `maxAgeSeconds` before `now`. Unknown (`null`, `undefined`, an invalid date) is not recent, and
 * neither is an instant in the future beyond the clock skew (a forged or broken value): fail closed.
 */
export function assertRecentSignIn(
  signedInAt: Date | null | undefined,
  maxAgeSeconds: number,
  now: number = Date.now(),
): void {
  if (!isRecentSignIn(signedInAt, maxAgeSeconds, now)) throw new ReauthenticationRequired(maxAgeSeconds);
}

/** {@link assertRecentSignIn} as a boolean. */
export function isRecentSignIn(signedInAt: Date | null | undefined, maxAgeSeconds: number, now: number): boolean {
  const ms = dateMs(signedInAt);
  if (ms === undefined || !Number.isFinite(maxAgeSeconds) || maxAgeSeconds < 0) return false;
  if (ms > now + CLOCK_SKEW_SECONDS * 1000) return false;
  return now - ms <= maxAgeSeconds * 1000;
}

/** When a session JWT's user signed in (its {@link SIGNED_IN_AT_CLAIM}), or `null` when it does not say. */
export function signedInAtOfToken(token: JWT | undefined): Date | null {
  const ms = numericDateMs(token?.[SIGNED_IN_AT_CLAIM]);
  return ms === undefined ? null : new Date(ms);
}
