import { isRevocationBus } from '../bus/revocation-bus.js';
import type { AuthModuleExtras, SessionOptions } from './auth-options.interface.js';

/** Problems with `session.revocationBus` and the `revocationBus` setting: a bus is given once, and is a bus. */
export function revocationBusProblems(
  bus: SessionOptions['revocationBus'],
  provider: AuthModuleExtras['revocationBus'],
): string[] {
  const problems: string[] = [];
  if (bus !== undefined && bus !== null && !isRevocationBus(bus)) {
    problems.push(
      'session.revocationBus must be a revocation bus (new RedisRevocationBus(redisClient) or new PostgresRevocationBus(poolOrDataSource)), with publish, subscribe and close.',
    );
  }
  if (bus !== undefined && bus !== null && provider !== undefined && provider !== null) {
    problems.push(
      '`session.revocationBus` and `revocationBus` are both set: give the revocation bus once (`revocationBus` to have Nest build it).',
    );
  }
  return problems;
}
