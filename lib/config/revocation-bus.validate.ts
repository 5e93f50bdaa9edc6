import { isRevocationBus } from '../bus/revocation-bus.js';
import type { AuthModuleExtras } from './auth-options.interface.js';
import { isProviderSpec } from './option-provider.js';

/** Problems with the `revocationBus` setting: a bus, or a provider Nest builds one with. */
export function revocationBusProblems(bus: AuthModuleExtras['revocationBus']): string[] {
  if (bus === undefined || bus === null || isProviderSpec(bus) || isRevocationBus(bus)) return [];
  return [
    'revocationBus must be a revocation bus (new RedisRevocationBus(redisClient) or new PostgresRevocationBus(poolOrDataSource)), with publish, subscribe and close, or a provider of one ({ useFactory, inject }, { useClass }, { useExisting } or a class).',
  ];
}
