import { describe, expect, it } from '@jest/globals';
import { resolveConfig } from '../sign-in-methods.js';
import { InvalidProvider } from '../errors/auth.errors.js';
import { MemoryAdapter } from '../adapters/memory.adapter.js';
import { Credentials } from '../methods/credentials/credentials.provider.js';
import { Email } from '../methods/email/email.provider.js';
import { isProviderOfType, providerOfType } from './internal-provider.js';
import { Passkey } from '../methods/webauthn/webauthn.provider.js';

const SECRET = 'internal-provider-secret-long-enough-000';

/** Providers of every kind, as resolve-config builds them. */
function providers() {
  return resolveConfig(
    {
      secret: SECRET,
      providers: [
        { id: 'op', name: 'OP', type: 'oidc', issuer: 'https://op.example', clientId: 'c', clientSecret: 's' },
        {
          id: 'as',
          name: 'AS',
          type: 'oauth',
          authorization: 'https://as.example/a',
          token: 'https://as.example/t',
          userinfo: 'https://as.example/u',
          clientId: 'c',
          clientSecret: 's',
        },
        Email({ server: 'smtp://127.0.0.1:2525', from: 'no-reply@example.com' }),
        Credentials({ credentials: { email: {} }, authorize: async () => null }),
        Passkey({ relyingParty: { id: 'localhost', origin: 'http://localhost:3000' } }),
      ],
    },
    {},
    new MemoryAdapter(),
    {},
  ).providerById;
}

describe('providerOfType', () => {
  const byId = providers();

  it('hands back the provider itself when its type is one of those asked for', () => {
    const op = byId.get('op')!;
    expect(providerOfType(op, 'oidc')).toBe(op);
    expect(providerOfType(op, 'oauth', 'oidc').config.issuer).toBe('https://op.example');
    expect(providerOfType(byId.get('as')!, 'oauth', 'oidc').config.clientId).toBe('c');
    expect(providerOfType(byId.get('email')!, 'email').config.from).toBe('no-reply@example.com');
    expect(typeof providerOfType(byId.get('credentials')!, 'credentials').config.authorize).toBe('function');
    expect(providerOfType(byId.get('passkey')!, 'webauthn').config.residentKey).toBe('required');
  });

  it('refuses a provider of another type with InvalidProvider, naming both types', () => {
    const email = byId.get('email')!;
    expect(() => providerOfType(email, 'oauth', 'oidc')).toThrow(InvalidProvider);
    expect(() => providerOfType(email, 'oauth', 'oidc')).toThrow(
      'Provider "email" is of type email, not oauth or oidc.',
    );
    expect(() => providerOfType(byId.get('op')!, 'oauth')).toThrow(InvalidProvider);
  });

  it('isProviderOfType tells without throwing', () => {
    expect(isProviderOfType(byId.get('as')!, 'oauth', 'oidc')).toBe(true);
    expect(isProviderOfType(byId.get('passkey')!, 'email', 'credentials')).toBe(false);
  });
});
