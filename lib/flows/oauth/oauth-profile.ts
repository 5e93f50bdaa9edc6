import type * as o from 'oauth4webapi';
import type { ProviderContext } from '../../core/request-context.js';
import { InvalidEndpoints, OAuthCallbackError, OAuthProfileParseError } from '../../errors/auth.errors.js';
import type { NormalizedOAuthProvider } from '../../providers/oauth.normalize.js';
import type { Profile, TokenSet, User } from '../../types/common.types.js';
import { loadOAuth4WebApi } from '../../util/oauth4webapi.js';
import { describe } from './oauth-errors.js';
import { oauthTransport } from './oauth-http.js';
import { handlerProvider } from './oauth-redirect.js';

/** A profile mapped by the provider: the user, and the token fields `account()` keeps on the account row. */
export interface MappedProfile {
  profile: Profile;
  user: User;
  stored: TokenSet;
}

/**
 * The provider's profile: the ID token's claims (OIDC with `idToken`), a custom `userinfo.request`,
 * or the userinfo endpoint's answer (for OIDC, only with the ID token's `sub`).
 */
export async function readProfile(
  ctx: ProviderContext,
  p: NormalizedOAuthProvider,
  as: o.AuthorizationServer,
  client: o.Client,
  tokens: TokenSet,
  claims: o.IDToken | undefined,
): Promise<Profile> {
  if (p.type === 'oidc' && p.idToken) return { ...(claims as Profile) };
  if (p.userinfo?.request) {
    const profile = await p.userinfo.request({ tokens, provider: handlerProvider(ctx, p, as) });
    if (!profile || typeof profile !== 'object')
      throw new OAuthCallbackError(`${p.name}: userinfo.request() returned no profile.`);
    return profile;
  }
  const endpoint = p.userinfo?.url?.href ?? as.userinfo_endpoint;
  if (!endpoint)
    throw new InvalidEndpoints(
      `${p.name} has no userinfo endpoint: set \`userinfo\` or an \`issuer\` whose discovery document has one.`,
    );
  const url = new URL(endpoint);
  for (const [key, value] of Object.entries(p.userinfo?.params ?? {})) url.searchParams.set(key, value);
  const target = { ...as, userinfo_endpoint: url.href };
  const oauth = await loadOAuth4WebApi();
  let response = await oauth.userInfoRequest(target, client, tokens.access_token!, oauthTransport(oauth, p, url));
  if (p.userinfo?.conform) response = (await p.userinfo.conform(response.clone())) ?? response;
  if (p.type === 'oidc') {
    // The userinfo `sub` must be the ID token's (OIDC Core 5.3.2).
    return { ...(await oauth.processUserInfoResponse(target, client, claims!.sub, response)) } as Profile;
  }
  if (!response.ok) throw new OAuthCallbackError(`${p.name}'s userinfo endpoint answered ${response.status}.`);
  const body = (await response.json().catch(() => null)) as unknown;
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new OAuthCallbackError(`${p.name}'s userinfo endpoint returned no JSON object.`);
  return body as Profile;
}

/**
 * Runs the provider's `conformProfile()` (with the callback parameters), `profile()` and `account()`.
 * `OAuthProfileParseError` when one throws or `profile()` returns no `id`.
 */
export async function mapProfile(
  p: NormalizedOAuthProvider,
  read: Profile,
  tokens: TokenSet,
  params: URLSearchParams,
): Promise<MappedProfile> {
  let profile = read;
  if (p.conformProfile) {
    try {
      profile = await p.conformProfile(profile, { params: Object.fromEntries(params), tokens });
    } catch (error) {
      throw new OAuthProfileParseError(`${p.name}: conformProfile() threw: ${describe(error)}`, { cause: error });
    }
  }

  let user: User;
  try {
    user = await p.profile(profile, tokens);
  } catch (error) {
    throw new OAuthProfileParseError(`${p.name}: profile() threw: ${describe(error)}`, { cause: error });
  }
  if (!user || typeof user !== 'object' || user.id === undefined || user.id === null || String(user.id) === '') {
    throw new OAuthProfileParseError(
      `${p.name}: profile() returned no \`id\`; return the user's id at the provider (e.g. the \`sub\` claim).`,
    );
  }
  let stored: TokenSet;
  try {
    stored = (p.account(tokens) ?? {}) as TokenSet;
  } catch (error) {
    throw new OAuthProfileParseError(`${p.name}: account() threw: ${describe(error)}`, { cause: error });
  }
  return { profile, user, stored };
}
