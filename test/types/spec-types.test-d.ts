/**
 * Type-level tests: compiled by `tsc` in `npm test` (never executed). Each `@ts-expect-error`
 * fails the build if the line it marks compiles, so the constraints below are enforced.
 */
import type {
  Adapter,
  AdapterAccount,
  AdapterAccountType,
  AdapterSession,
  AdapterUser,
  AppProvider,
  BuiltInProviderType,
  OAuth2Config,
  OAuthChecks,
  OAuthConfig,
  OAuthEndpointType,
  OAuthUserConfig,
  OIDCConfig,
  OIDCUserConfig,
  ProviderType,
  RedirectableProviderType,
  VerificationToken,
} from '../../lib/index.js';

// ---- checks: oauth rejects 'nonce', oidc accepts it ----
export const oauthChecks: OAuth2Config<unknown>['checks'] = ['pkce', 'state', 'none'];
// @ts-expect-error 'nonce' is only allowed for oidc providers
export const oauthNonce: OAuth2Config<unknown>['checks'] = ['nonce'];
export const oidcChecks: OIDCConfig<unknown>['checks'] = ['pkce', 'state', 'nonce', 'none'];
// @ts-expect-error unknown check
export const oidcBad: OIDCConfig<unknown>['checks'] = ['magic'];

// ---- provider types ----
export const types: ProviderType[] = ['oidc', 'oauth', 'email', 'credentials', 'webauthn'];
// @ts-expect-error not a provider type
export const badType: ProviderType = 'saml';
export const redirectable: RedirectableProviderType[] = ['email', 'credentials'];
// @ts-expect-error oauth providers are not redirectable
export const notRedirectable: RedirectableProviderType = 'oauth';
export const endpoints: OAuthEndpointType[] = ['authorization', 'token', 'userinfo'];
export const accountTypes: AdapterAccountType[] = ['oauth', 'oidc', 'email', 'webauthn'];
// @ts-expect-error credentials is not an adapter account type (SPEC 2.1)
export const credentialsAccount: AdapterAccountType = 'credentials';
export const builtIns: BuiltInProviderType[] = ['github', 'google', 'email', 'credentials', 'webauthn', 'passkey'];
// @ts-expect-error a typo in a built-in provider id is a compile error
export const typo: BuiltInProviderType = 'githib';

// ---- configs ----
export const oauth: OAuthConfig<{ id: number }> = {
  id: 'acme',
  name: 'Acme',
  type: 'oauth',
  authorization: { url: 'https://acme.test/authorize', params: { scope: 'read' } },
  token: 'https://acme.test/token',
  userinfo: 'https://acme.test/me',
  profile: (p) => ({ id: String(p.id) }),
  allowDangerousEmailAccountLinking: false,
  client: { token_endpoint_auth_method: 'client_secret_post' },
  style: { brandColor: '#000' },
};
export const oidc: OIDCConfig<Record<string, unknown>> = {
  id: 'idp',
  name: 'IdP',
  type: 'oidc',
  issuer: 'https://idp.test',
  idToken: false,
};
// @ts-expect-error a user config omits `type`
export const userConfig: OAuthUserConfig<unknown> = { type: 'oauth' };
export const userOidc: OIDCUserConfig<unknown> = { clientId: 'x', checks: ['nonce'] };
// @ts-expect-error an app provider needs signinUrl and callbackUrl
export const appProvider: AppProvider = { id: 'x', name: 'X', type: 'oauth' };
export const checkValues: OAuthChecks = { state: 's', code_verifier: 'v', nonce: 'n' };

// ---- adapter ----
declare const adapter: Required<Adapter>;
export async function adapterContract(): Promise<void> {
  const user: AdapterUser | null = await adapter.getUser('1');
  // @ts-expect-error updateUser requires `id`
  await adapter.updateUser({ name: 'x' });
  await adapter.updateUser({ id: '1', name: 'x' });
  const session: { session: AdapterSession; user: AdapterUser } | null = await adapter.getSessionAndUser('t');
  const token: VerificationToken | null = await adapter.useVerificationToken({ identifier: 'a@b.c', token: 't' });
  const account: AdapterAccount | null = await adapter.getAccount('123', 'github');
  // @ts-expect-error getAccount takes (providerAccountId, provider)
  await adapter.getAccount({ provider: 'github', providerAccountId: '1' });
  // @ts-expect-error an AdapterUser's emailVerified is Date | null
  const bad: AdapterUser = { id: '1', email: 'a@b.c', emailVerified: 'yesterday' };
  void [user, session, token, account, bad];
}
// Every adapter method is optional.
export const empty: Adapter = {};
