import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { InvalidRequest, ReauthenticationRequired } from '../errors/auth.errors.js';
import { sessionLookupOf, type HttpRequestLike } from '../http/auth-request.factory.js';
import { assertRecentSignIn } from '../session/recent-sign-in.js';
import type { SessionReader } from '../session/session-reader.js';

/**
 * Who vouches for a sensitive change to a user's account (`AuthService.unlinkAccount`,
 * `AuthService.deleteAccount`):
 * - `{ request }`: the request of the user making the change; it must be signed in as that user,
 *   and that sign-in must be recent (within `maxAge` seconds, default `account.recentSignInMaxAge`),
 *   else `ReauthenticationRequired`.
 * - `{ recentSignIn: false }`: trusted server code (an admin tool, a job) that checked whatever it
 *   needs itself. Say so explicitly: there is no default.
 */
export type SensitiveActionProof = { request: HttpRequestLike; maxAge?: number } | { recentSignIn: false };

/**
 * Throws unless `proof` allows a sensitive change to `userId`'s account: `ReauthenticationRequired`
 * without a session or a recent sign-in, `InvalidRequest` when the request is signed in as someone
 * else or the proof is missing.
 */
export async function assertSensitiveAction(
  reader: SessionReader,
  config: ResolvedAuthConfig,
  userId: string,
  proof: SensitiveActionProof | undefined,
): Promise<void> {
  if (proof && 'recentSignIn' in proof && proof.recentSignIn === false) return;
  if (!proof || !('request' in proof) || !proof.request)
    throw new InvalidRequest(
      'A change to an account needs the acting request ({ request }) or, from trusted server code, { recentSignIn: false }.',
    );
  const maxAge = proof.maxAge ?? config.account.recentSignInMaxAge;
  const state = await reader.read(sessionLookupOf(proof.request, config), { fresh: true });
  if (state.status !== 'active') throw new ReauthenticationRequired(maxAge);
  if (state.user.id !== userId) throw new InvalidRequest('The request is signed in as another user.');
  assertRecentSignIn(await reader.signedInAt(state), maxAge);
}
