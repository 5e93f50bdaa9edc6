import { describe, expect, it } from '@jest/globals';
import { UnsecuredJWT } from 'jose';
import { resolveConfig } from '../sign-in-methods.js';
import type { Account } from '../types/common.types.js';
import { providerSidKey, providerSidOf } from './provider-sid.js';

const SECRET = 'provider-sid-spec-secret-long-enough-00000';
const oidc = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  name: id,
  type: 'oidc',
  issuer: 'https://op.example',
  clientId: 'c',
  clientSecret: 's',
  ...extra,
});
const config = resolveConfig(
  { secret: SECRET, providers: [oidc('bc', { backchannelLogout: true }), oidc('plain')] as never },
  {},
  null,
  {},
);
const idToken = (claims: Record<string, unknown>) => new UnsecuredJWT(claims).encode();
const account = (provider: string, id_token?: string): Account =>
  ({ provider, type: 'oidc', providerAccountId: 'u', id_token }) as Account;

describe('providerSid (the OP session a session was signed in from)', () => {
  it('is a fixed-length hash namespaced by provider', () => {
    expect(providerSidKey('bc', 'op-session-1')).toMatch(/^[\w-]{43}$/);
    expect(providerSidKey('bc', 'x')).not.toBe(providerSidKey('other', 'x'));
    expect(providerSidKey('bc', 'x'.repeat(5000))).toHaveLength(43);
    // No ambiguity between the provider id and the sid.
    expect(providerSidKey('a', 'b\0c')).not.toBe(providerSidKey('a\0b', 'c'));
  });

  it("comes from the ID token's sid, only for providers with backchannelLogout", () => {
    expect(providerSidOf(config, account('bc', idToken({ sub: 'u', sid: 's1' })))).toBe(providerSidKey('bc', 's1'));
    expect(providerSidOf(config, account('plain', idToken({ sub: 'u', sid: 's1' })))).toBeUndefined();
  });

  it('is absent without a usable sid (fails closed, never throws)', () => {
    for (const token of [idToken({ sub: 'u' }), idToken({ sid: 3 }), idToken({ sid: '' }), 'not-a-jwt', undefined])
      expect(providerSidOf(config, account('bc', token))).toBeUndefined();
    expect(
      providerSidOf(config, { ...account('bc', idToken({ sid: 's' })), type: 'oauth' } as Account),
    ).toBeUndefined();
    expect(providerSidOf(config, null)).toBeUndefined();
  });
});
