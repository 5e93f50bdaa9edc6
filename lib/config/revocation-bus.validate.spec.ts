import { describe, expect, it } from '@jest/globals';
import { AuthConfigurationError } from '../errors/auth.errors.js';
import { resolveConfig } from './resolve-config.js';
import { revocationBusProblems } from './revocation-bus.validate.js';

const SECRET = 'a-secret-that-is-long-enough-0123456789';
const bus = { publish: async () => undefined, subscribe: async () => undefined, close: async () => undefined };

describe('session.revocationBus and the revocationBus setting', () => {
  it('take a bus, once', () => {
    expect(revocationBusProblems(undefined, undefined)).toEqual([]);
    expect(revocationBusProblems(bus, undefined)).toEqual([]);
    expect(revocationBusProblems(undefined, { useFactory: () => bus })).toEqual([]);
    expect(revocationBusProblems({ publish: 1 } as never, undefined)).toEqual([
      expect.stringMatching(/^session\.revocationBus must be a revocation bus/),
    ]);
    expect(revocationBusProblems(bus, { useFactory: () => bus })).toEqual([expect.stringMatching(/are both set/)]);
  });

  it('a wrong value fails at bootstrap with the other problems', () => {
    expect(() =>
      resolveConfig({ secret: SECRET, providers: [], session: { revocationBus: 'redis://x' as never } }, {}, null, {}),
    ).toThrow(AuthConfigurationError);
  });
});
