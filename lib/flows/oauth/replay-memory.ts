import { createHash } from 'node:crypto';
import { InvalidCheck } from '../../errors/auth.errors.js';
import { CHECK_MAX_AGE, type CheckValues } from './oauth-checks.js';

/** Entries kept before expired ones are swept. */
const SWEEP_ABOVE = 10_000;

/**
 * The check values already used by a callback, in this process (hash → expiry, for as long as a
 * check cookie lives). A replay fails even while the first callback is still in flight.
 */
export class ReplayMemory {
  private readonly used = new Map<string, number>();

  /**
   * Marks this callback's check values (or, without checks, its code) as used. A second callback
   * with the same values (a replay, even one racing the first) is refused before any token request.
   */
  markUsed(providerId: string, values: CheckValues, code: string): void {
    const now = Date.now();
    if (this.used.size > SWEEP_ABOVE) {
      for (const [key, expires] of this.used) if (expires <= now) this.used.delete(key);
    }
    const material = values.code_verifier ?? values.state ?? values.nonce ?? `code:${code}`;
    const key = createHash('sha256').update(`${providerId}\0${material}`).digest('base64url');
    const seen = this.used.get(key);
    if (seen !== undefined && seen > now) throw new InvalidCheck('This sign-in response was already used.');
    this.used.set(key, now + CHECK_MAX_AGE * 1000);
  }

  /** How many values are remembered (expired ones included until the next sweep). */
  get size(): number {
    return this.used.size;
  }
}
