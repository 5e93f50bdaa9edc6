import { createHash } from 'node:crypto';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import type { Account } from '../types/common.types.js';
import { decodeJwtClaims } from '../util/jwt-parts.js';

/** The session JWT claim that holds {@link providerSidKey} (JWT strategy, back-channel logout). */
export const PROVIDER_SID_CLAIM = 'providerSid';

/**
 * What a session records of the OpenID Provider session it was signed in from: the SHA-256 of the
 * provider id and the OP's `sid` (as a JSON pair), base64url (43 characters). Namespaced by provider, so one
 * provider's logout token can never name another provider's sessions; fixed length, so any `sid`
 * fits the sessions table's `providerSid` column.
 */
export function providerSidKey(providerId: string, sid: string): string {
  return createHash('sha256')
    .update(JSON.stringify([providerId, sid]))
    .digest('base64url');
}

/**
 * The {@link providerSidKey} of an OpenID Connect sign-in whose provider accepts back-channel logout
 * (`backchannelLogout: true`) and whose ID token carries a `sid`; undefined otherwise. The ID token
 * was verified by the callback that produced the account; a malformed one records nothing.
 */
export function providerSidOf(config: ResolvedAuthConfig, account: Account | null | undefined): string | undefined {
  if (!account || account.type !== 'oidc' || typeof account.id_token !== 'string') return undefined;
  const provider = config.providerById.get(account.provider);
  if ((provider?.config as { backchannelLogout?: unknown } | undefined)?.backchannelLogout !== true) return undefined;
  try {
    const { sid } = decodeJwtClaims(account.id_token);
    return typeof sid === 'string' && sid ? providerSidKey(account.provider, sid) : undefined;
  } catch {
    return undefined;
  }
}
