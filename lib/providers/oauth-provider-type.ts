import type { oauthProviderCatalog } from './catalog/catalog.js';

/**
 * Every built-in OAuth/OIDC provider id (the keys of the catalogue, one factory each in ./catalog),
 * plus the generic `webauthn` and `passkey`. Derived from the catalogue, so a misspelt id is a
 * compile error.
 */
export type OAuthProviderType = keyof typeof oauthProviderCatalog | 'webauthn' | 'passkey';
