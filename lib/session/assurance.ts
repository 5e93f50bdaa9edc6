import type { JWT } from '../types/common.types.js';

/**
 * How strongly a session's user proved who they are, recorded at sign-in:
 * - `amr`: RFC 8176 authentication method references, one per thing proved: `pwd` (a password),
 *   `email` (a magic link), `fed` (an OAuth/OpenID provider), `hwk` (a passkey) with `user` when
 *   the passkey verified the user (PIN, biometrics), `otp` (an authenticator app's code), `lookup`
 *   (a backup code), and `mfa` once two independent factors were proved;
 * - `aal`: the authenticator assurance level, 2 with `mfa`, else 1 (NIST SP 800-63B).
 * JWT sessions carry them as the `amr` and `acr` claims (`acr` is `aal1`/`aal2`); database sessions
 * in the session row's `amr` column. A session that records none counts as one factor (fail closed).
 */
export interface Assurance {
  readonly amr: readonly string[];
  readonly aal: 1 | 2;
}

/** The JWT claim of the method references. */
export const AMR_CLAIM = 'amr';
/** The JWT claim of the assurance level (`aal1`, `aal2`). */
export const ACR_CLAIM = 'acr';

/** The method reference that says two factors were proved. */
export const MFA = 'mfa';

/** A method reference as stored: a short lower-case word. Anything else is dropped. */
const REFERENCE = /^[a-z][a-z0-9_-]{0,15}$/;
/** Most references kept (a session proves a handful of things). */
const MAX_REFERENCES = 8;

/** The references of a list, deduplicated, malformed entries dropped. */
export function cleanAmr(values: unknown): string[] {
  if (!Array.isArray(values)) return [];
  const out: string[] = [];
  for (const v of values)
    if (typeof v === 'string' && REFERENCE.test(v) && !out.includes(v) && out.length < MAX_REFERENCES) out.push(v);
  return out;
}

/** The assurance of a list of method references. */
export function assuranceOf(amr: readonly string[]): Assurance {
  return { amr, aal: amr.includes(MFA) ? 2 : 1 };
}

/** `acr` of an assurance level. */
export function acrOf(aal: 1 | 2): string {
  return `aal${aal}`;
}

/** The assurance a session JWT records (none: one factor). */
export function assuranceOfToken(token: JWT | undefined): Assurance {
  return assuranceOf(cleanAmr(token?.[AMR_CLAIM]));
}

/** The `amr` column of a database session (space-separated), as an assurance. */
export function assuranceOfColumn(value: unknown): Assurance {
  return assuranceOf(typeof value === 'string' ? cleanAmr(value.split(' ')) : []);
}

/** The `amr` column of a list of references. */
export function amrColumn(amr: readonly string[]): string | null {
  const clean = cleanAmr(amr);
  return clean.length ? clean.join(' ') : null;
}

/**
 * What the first factor of a sign-in proved, by its account type, unless the flow said (`amr` of
 * the sign-in input: a passkey with user verification says `['hwk', 'user', 'mfa']`).
 */
export function firstFactorAmr(accountType: string, given?: readonly string[]): string[] {
  if (given?.length) return cleanAmr(given);
  switch (accountType) {
    case 'credentials':
      return ['pwd'];
    case 'email':
      return ['email'];
    case 'oauth':
    case 'oidc':
      return ['fed'];
    case 'webauthn':
      return ['hwk'];
    default:
      return [];
  }
}
