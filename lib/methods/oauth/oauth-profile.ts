import type * as o from 'oauth4webapi';
import type { ProviderContext } from '../../core/request-context.js';
import { InvalidEndpoints, OAuthCallbackError, OAuthProfileParseError } from '../../errors/auth.errors.js';
import type { NormalizedOAuthProvider } from './oauth.normalize.js';
import type { Profile, TokenSet, User } from '../../types/common.types.js';
import { loadOAuth4WebApi } from '../../util/oauth4webapi.js';
import { describe, mapProtocolError } from './oauth-errors.js';
import { oauthTransport } from './oauth-http.js';
import { handlerProvider } from './oauth-redirect.js';

/** A profile mapped by the provider: the user, and the token fields `account()` keeps on the account row. */
export interface MappedProfile {
  profile: Profile;
  user: User;
  stored: TokenSet;
}

/** Claims of the profile (what the default `profile()` maps) that an ID token may lack and userinfo may give. */
export const PROFILE_CLAIMS = ['email', 'name'] as const;

/** Why an OIDC profile still lacks claims of {@link PROFILE_CLAIMS} after the userinfo fallback. */
export type MissingClaims = (missing: string[], why: string) => void;

/**
 * The provider's profile: the ID token's claims (OIDC with `idToken`), a custom `userinfo.request`,
 * or the userinfo endpoint's answer (for OIDC, only with the ID token's `sub`).
 *
 * An ID token without `email` or `name` (OpenID Providers may keep the scopes' claims for userinfo,
 * as oidc-provider does by default) is completed from the userinfo endpoint when the provider has
 * one: its answer fills the claims the ID token lacks, never replaces one it has. A fallback that
 * fails (or still lacks them) leaves the ID token's claims as they are and tells `onMissing` why.
 */
export async function readProfile(
  ctx: ProviderContext,
  p: NormalizedOAuthProvider,
  as: o.AuthorizationServer,
  client: o.Client,
  tokens: TokenSet,
  claims: o.IDToken | undefined,
  onMissing?: MissingClaims,
): Promise<Profile> {
  if (p.type !== 'oidc' || !p.idToken) return userinfoProfile(ctx, p, as, client, tokens, claims);
  const profile: Profile = { ...(claims as Profile) };
  const missing = missingClaims(profile);
  if (!missing.length) return profile;
  if (!p.userinfo?.request && !p.userinfo?.url && !as.userinfo_endpoint) {
    onMissing?.(missing, 'the provider has no userinfo endpoint to ask');
    return profile;
  }
  if (!tokens.access_token) {
    onMissing?.(missing, 'the token response has no access token to ask the userinfo endpoint with');
    return profile;
  }
  let info: Profile;
  try {
    info = await userinfoProfile(ctx, p, as, client, tokens, claims);
  } catch (error) {
    onMissing?.(missing, `the userinfo endpoint could not be read (${describe(mapProtocolError(error, p.name))})`);
    return profile;
  }
  for (const [claim, value] of Object.entries(info)) if (absent(profile[claim])) profile[claim] = value;
  const still = missingClaims(profile);
  if (still.length) onMissing?.(still, 'the userinfo endpoint did not return them either');
  return profile;
}

/** The claims of {@link PROFILE_CLAIMS} the profile lacks (absent, null or empty). */
export function missingClaims(profile: Profile): string[] {
  return PROFILE_CLAIMS.filter((claim) => absent(profile[claim]));
}

function absent(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

/** The profile from a custom `userinfo.request`, or from the userinfo endpoint (readProfile's arguments). */
async function userinfoProfile(
  ...[ctx, p, as, client, tokens, claims]: Parameters<typeof readProfile>
): Promise<Profile> {
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
