import { createHash } from 'node:crypto';
import { InvalidCheck } from '../../errors/auth.errors.js';
import { ExpiringMap } from '../../util/expiring-map.js';
import { CHECK_MAX_AGE, type CheckValues } from './oauth-checks.js';

/** Most values remembered; past it the oldest is forgotten (its check cookie is single-use anyway). */
export const REPLAY_MEMORY_MAX = 50_000;

/**
 * The check values already used by a callback, in this process (hash → expiry, for as long as a
 * check cookie lives). A replay fails even while the first callback is still in flight.
 */
export class ReplayMemory {
  private readonly used = new ExpiringMap<string, true>(REPLAY_MEMORY_MAX);

  /**
   * Marks this callback's check values (or, without checks, its code) as used. A second callback
   * with the same values (a replay, even one racing the first) is refused before any token request.
   */
  markUsed(providerId: string, values: CheckValues, code: string): void {
    const now = Date.now();
    const material = values.code_verifier ?? values.state ?? values.nonce ?? `code:${code}`;
    const key = createHash('sha256').update(`${providerId}\0${material}`).digest('base64url');
    if (!this.used.remember(key, true, now + CHECK_MAX_AGE * 1000, now))
      throw new InvalidCheck('This sign-in response was already used.');
  }

  /** How many values are remembered (expired ones included until they are read or swept). */
  get size(): number {
    return this.used.size;
  }
}
