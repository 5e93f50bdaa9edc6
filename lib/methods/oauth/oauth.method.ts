import { REQUIRED_ADAPTER_METHODS, requireAdapterMethods } from '../../config/adapter-requirements.js';
import type { InternalOAuthProvider } from '../../providers/internal-provider.js';
import type { SignInMethod } from '../../sign-in/sign-in-method.js';
import { BackchannelLogout } from './backchannel-logout.js';
import { BackchannelSessions } from './backchannel-sessions.js';
import { IdTokenVerifier } from './id-token.verifier.js';
import { LogoutReplayMemory } from './logout-replay.js';
import { OAuthAuthorization } from './oauth-authorization.js';
import { OAuthCallback } from './oauth-callback.js';
import { OAuthDiscovery } from './oauth-discovery.js';
import { OAuthLogout } from './oauth-logout.js';
import { OAuthProviders } from './oauth-providers.js';
import { OAuthTokenExchange } from './oauth-token.js';
import { OAuthService } from './oauth.service.js';
import { checkOAuthEndpoints, validateOAuthProvider } from './oauth.validate.js';
import { ProviderTokens } from './provider-tokens.js';
import { SessionProviderTokens } from './session-provider-tokens.js';
import { TokenRefresh } from './token-refresh.js';
import { oauthWaysIn } from './oauth.ways-in.js';

/** OAuth 2.0 and OpenID Connect providers (the catalogue, `OAuth()`, `OIDC()` or a config of type oauth/oidc). */
export const OAuthMethod: SignInMethod = {
  name: 'oauth',
  types: ['oauth', 'oidc'],
  flow: OAuthService,
  waysIn: oauthWaysIn,
  providers: [
    OAuthService,
    OAuthAuthorization,
    OAuthCallback,
    OAuthDiscovery,
    OAuthTokenExchange,
    IdTokenVerifier,
    ProviderTokens,
    TokenRefresh,
    SessionProviderTokens,
    OAuthLogout,
    OAuthProviders,
    BackchannelLogout,
    LogoutReplayMemory,
    BackchannelSessions,
  ],
  applyEnv(config, env, envId) {
    config.clientId ??= env[`AUTH_${envId}_ID`];
    config.clientSecret ??= env[`AUTH_${envId}_SECRET`];
    config.issuer ??= env[`AUTH_${envId}_ISSUER`];
    if (config.issuer === undefined) delete config.issuer;
  },
  validate(provider, problems, { where, adapter, hasAdapter }) {
    const oauth = provider as InternalOAuthProvider;
    checkOAuthEndpoints(oauth, problems, where);
    requireAdapterMethods(
      `${where} (OAuth sign-in with an adapter)`,
      REQUIRED_ADAPTER_METHODS.oauth,
      adapter,
      problems,
      true,
    );
    validateOAuthProvider(oauth, problems, { hasAdapter });
  },
};
