import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { MemoryAdapter } from '../../adapters/memory.adapter.js';
import { AuthModule } from '../../auth.module.js';
import { AUTH_CONFIG } from '../../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../../config/resolved-config.js';
import { InvalidProvider } from '../../errors/auth.errors.js';
import { Email } from '../email/email.provider.js';
import { OAuthService } from './oauth.service.js';
import { FIXTURE_SECRET, providerContext } from './fixtures/oauth.fixture.js';

describe('OAuthService (the facade the router calls)', () => {
  let module: TestingModule;
  let config: ResolvedAuthConfig;
  let service: OAuthService;

  beforeAll(async () => {
    module = await Test.createTestingModule({
      imports: [
        AuthModule.forRoot({
          secret: FIXTURE_SECRET,
          adapter: new MemoryAdapter(),
          providers: [
            {
              id: 'idp',
              name: 'IdP',
              type: 'oidc',
              issuer: 'https://op.example',
              authorization: 'https://op.example/authorize',
              token: 'https://op.example/token',
              jwks_endpoint: 'https://op.example/jwks',
              clientId: 'c',
              clientSecret: 's',
            },
            Email({ sendVerificationRequest: async () => undefined }),
          ],
        }),
      ],
    }).compile();
    config = module.get<ResolvedAuthConfig>(AUTH_CONFIG);
    service = module.get(OAuthService);
  });
  afterAll(() => module.close());

  it('starts a sign-in with the provider of the request', async () => {
    const first = new URL((await service.signIn(providerContext(config, 'idp', { method: 'POST' }))).redirect!);
    const second = new URL((await service.signIn(providerContext(config, 'idp', { method: 'POST' }))).redirect!);
    expect(first.origin + first.pathname).toBe('https://op.example/authorize');
    expect(first.searchParams.get('client_id')).toBe('c');
    expect(second.searchParams.get('code_challenge')).not.toBe(first.searchParams.get('code_challenge'));
  });

  it('refuses a provider that is not OAuth or OIDC with InvalidProvider, for both routes', async () => {
    const email = providerContext(config, 'email', { method: 'POST' });
    await expect(service.signIn(email)).rejects.toThrow(InvalidProvider);
    await expect(service.callback(providerContext(config, 'email'))).rejects.toThrow(
      'Provider "email" is of type email, not oauth or oidc.',
    );
    expect(email.responseCookies).toEqual([]);
  });
});
