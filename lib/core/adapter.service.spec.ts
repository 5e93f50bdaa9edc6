import { describe, expect, it } from '@jest/globals';
import type { Adapter, AdapterAccount } from '../adapters/adapter.interface.js';
import { MemoryAdapter } from '../adapters/memory.adapter.js';
import { resolveConfig } from '../sign-in-methods.js';
import { AdapterService } from './adapter.service.js';

const SECRET = 'adapter-service-spec-secret-long-enough-000';
const ACCOUNT = {
  userId: 'u',
  type: 'oidc',
  provider: 'idp',
  providerAccountId: 'pa',
  access_token: 'at',
  refresh_token: 'rt',
  id_token: 'it',
} as AdapterAccount;

function service(adapter: Adapter, encryptAccountTokens?: boolean): AdapterService {
  const config = resolveConfig(
    { secret: SECRET, providers: [], session: { strategy: 'jwt' }, encryptAccountTokens },
    {},
    adapter,
    {},
  );
  return new AdapterService(adapter, config);
}

/** An adapter that says whether only this library reads its token columns (as TypeOrmAdapter does). */
const own = (privateAccountTokens: boolean) => Object.assign(new MemoryAdapter(), { privateAccountTokens });

describe('AdapterService: encryptAccountTokens default', () => {
  it('is on for an adapter whose token columns only this library reads (TypeOrmAdapter without a preset)', () => {
    const s = service(own(true));
    expect(s.encryptsTokens).toBe(true);
    const sealed = s.sealTokens(ACCOUNT);
    for (const column of ['access_token', 'refresh_token', 'id_token'] as const)
      expect(sealed[column]).toMatch(/^enc\.v1\./);
    expect(s.openAccount({ ...ACCOUNT, ...sealed })).toEqual(ACCOUNT);
    // Rows written before (plain) stay readable.
    expect(s.openAccount(ACCOUNT)).toEqual(ACCOUNT);
  });

  it('is off for an Auth.js preset, MemoryAdapter and adapters that do not say', () => {
    for (const adapter of [own(false), new MemoryAdapter(), { getUser: () => null } as Adapter]) {
      const s = service(adapter);
      expect(s.encryptsTokens).toBe(false);
      expect(s.sealTokens(ACCOUNT)).toMatchObject({ access_token: 'at', refresh_token: 'rt', id_token: 'it' });
    }
  });

  it('follows an explicit encryptAccountTokens either way', () => {
    expect(service(own(true), false).encryptsTokens).toBe(false);
    expect(service(own(true), false).sealTokens(ACCOUNT).access_token).toBe('at');
    expect(service(own(false), true).encryptsTokens).toBe(true);
    expect(service(new MemoryAdapter(), true).sealTokens(ACCOUNT).access_token).toMatch(/^enc\.v1\./);
  });

  it('refuses a non-boolean option', () => {
    expect(() => service(own(true), 'yes' as never)).toThrow(/encryptAccountTokens must be true or false/);
  });
});
