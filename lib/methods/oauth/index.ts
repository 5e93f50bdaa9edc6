// What the OAuth method offers the layers above it: the provider tokens of a user's accounts (AuthService, the guard).
export { ProviderTokens } from './provider-tokens.js';
export { SessionProviderTokens } from './session-provider-tokens.js';
export { isOAuthAccount, oauthProvidersOf } from './oauth.configured.js';
