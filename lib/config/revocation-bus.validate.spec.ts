import { describe, expect, it } from '@jest/globals';
import { AuthConfigurationError } from '../errors/auth.errors.js';
import { resolveConfig } from '../sign-in-methods.js';
import { revocationBusProblems } from './revocation-bus.validate.js';

const SECRET = 'a-secret-that-is-long-enough-0123456789';
const bus = { publish: async () => undefined, subscribe: async () => undefined, close: async () => undefined };

describe('the revocationBus setting', () => {
  it('takes a bus or a provider of one', () => {
    expect(revocationBusProblems(undefined)).toEqual([]);
    expect(revocationBusProblems(bus)).toEqual([]);
    expect(revocationBusProblems({ useFactory: () => bus })).toEqual([]);
    expect(revocationBusProblems({ useExisting: 'BUS' })).toEqual([]);
    expect(revocationBusProblems({ publish: 1 } as never)).toEqual([
      expect.stringMatching(/^revocationBus must be a revocation bus/),
    ]);
  });

  it('a wrong value fails at bootstrap with the other problems', () => {
    expect(() =>
      resolveConfig({ secret: SECRET, providers: [] }, { revocationBus: 'redis://x' as never }, null, {}),
    ).toThrow(AuthConfigurationError);
  });

  it('session.revocationBus fails at bootstrap, saying where the bus moved', () => {
    expect(() =>
      resolveConfig({ secret: SECRET, providers: [], session: { revocationBus: bus } as never }, {}, null, {}),
    ).toThrow(/`session.revocationBus` moved to the `revocationBus` module setting/);
  });
});
