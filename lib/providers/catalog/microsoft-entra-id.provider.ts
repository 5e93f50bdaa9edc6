import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';
import { envDefault, trimSlash, VENDOR_REQUEST_TIMEOUT_MS } from './catalog.helpers.js';

/** The ID token claims of the Microsoft identity platform (v2.0), as Microsoft documents them. */
export interface MicrosoftEntraIDProfile {
  /** Subject: pairwise per application. */
  sub: string;
  aud: string;
  iss: string;
  iat: number;
  nbf?: number;
  exp: number;
  aio?: string;
  name?: string;
  /** The object id of the user in the tenant (stable across applications). */
  oid: string;
  preferred_username?: string;
  email?: string;
  rh?: string;
  /** The tenant the user signed in from. */
  tid: string;
  uti?: string;
  ver?: '2.0';
  login_hint?: string;
  idp?: string;
}

/** Options of the {@link MicrosoftEntraID} factory beyond the provider config. */
export type MicrosoftEntraIDOptions = {
  /**
   * The directory (tenant) id or domain, or `common` / `organizations` / `consumers` for
   * multi-tenant apps. Builds the issuer `https://login.microsoftonline.com/{tenantId}/v2.0`.
   * @default 'common' (unless `issuer` or AUTH_MICROSOFT_ENTRA_ID_ISSUER is set)
   */
  tenantId?: string;
  /**
   * Size of the profile photo read from Microsoft Graph into `image` (a data URL), or `false` to
   * skip the Graph call.
   * @default 48
   */
  profilePhotoSize?: 48 | 64 | 96 | 120 | 240 | 360 | 432 | 504 | 648 | false;
  /** Microsoft Graph base URL (national clouds). @default 'https://graph.microsoft.com' */
  graphUrl?: string;
};

const MULTI_TENANT = new Set(['common', 'organizations', 'consumers']);
const TENANT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The shared config of Microsoft Entra ID and its deprecated alias `azure-ad`; `envIssuer` is the
 * issuer from the environment, used when neither `issuer` nor `tenantId` is given.
 */
export function entraIdConfig(
  config: (OIDCUserConfig<MicrosoftEntraIDProfile> & MicrosoftEntraIDOptions) | undefined,
  envIssuer: string | undefined,
) {
  const issuer = trimSlash(
    config?.issuer ??
      (config?.tenantId
        ? `https://login.microsoftonline.com/${config.tenantId}/v2.0`
        : (envIssuer ?? 'https://login.microsoftonline.com/common/v2.0')),
  );
  // `{authority}/{tenant}/v2.0`: the authority serves every tenant's metadata.
  const match = /^(.*)\/([^/]+)\/v2\.0$/.exec(issuer);
  const authority = match?.[1];
  const tenant = match?.[2];
  const photoSize = config?.profilePhotoSize ?? 48;
  const graphUrl = trimSlash(config?.graphUrl ?? 'https://graph.microsoft.com');

  return {
    issuer,
    authorization: { params: { scope: 'openid profile email User.Read' } },
    checks: ['pkce'] as Array<'pkce'>,
    /**
     * The `common`/`organizations`/`consumers` metadata names its issuer
     * `https://login.microsoftonline.com/{tenantid}/v2.0`: put the tenant segment of the URL that was
     * asked for in its place, so the document matches the issuer it was fetched for.
     */
    async customFetch(url: string, init: RequestInit): Promise<Response> {
      const response = await fetch(url, init);
      if (!url.includes('/.well-known/openid-configuration') || !response.ok) return response;
      const segment = /\/([^/]+)\/v2\.0\/\.well-known\/openid-configuration/.exec(new URL(url).pathname)?.[1];
      let metadata: Record<string, unknown>;
      try {
        metadata = (await response.clone().json()) as Record<string, unknown>;
      } catch {
        return response;
      }
      if (!segment || typeof metadata.issuer !== 'string' || !metadata.issuer.includes('{tenantid}')) return response;
      const headers = new Headers(response.headers);
      headers.delete('content-length');
      headers.delete('content-encoding');
      return new Response(JSON.stringify({ ...metadata, issuer: metadata.issuer.replace('{tenantid}', segment) }), {
        status: response.status,
        headers,
      });
    },
    /**
     * Multi-tenant apps get ID tokens issued by the user's own tenant: validate each against
     * `{authority}/{tid}/v2.0` (same authority as the configured issuer, `tid` a tenant GUID).
     */
    idTokenIssuer(claims: Record<string, unknown>): string | undefined {
      if (!authority || !tenant || !MULTI_TENANT.has(tenant)) return undefined;
      const tid = claims.tid;
      if (typeof tid !== 'string' || !TENANT_ID.test(tid)) return undefined;
      return `${authority}/${tid}/v2.0`;
    },
    async profile(profile: MicrosoftEntraIDProfile, tokens: { access_token?: string }) {
      let image: string | null = null;
      if (photoSize && typeof tokens.access_token === 'string') {
        try {
          const response = await fetch(`${graphUrl}/v1.0/me/photos/${photoSize}x${photoSize}/$value`, {
            headers: { authorization: `Bearer ${tokens.access_token}` },
            signal: AbortSignal.timeout(VENDOR_REQUEST_TIMEOUT_MS),
          });
          if (response.ok) {
            const type = response.headers.get('content-type') ?? 'image/jpeg';
            image = `data:${type};base64,${Buffer.from(await response.arrayBuffer()).toString('base64')}`;
          }
        } catch {
          // No photo (or Graph unreachable): the user simply has no image.
        }
      }
      return {
        id: profile.sub,
        name: profile.name ?? profile.preferred_username ?? null,
        email: profile.email ?? null,
        image,
      };
    },
    style: { brandColor: '#0072c6' },
  };
}

/**
 * Sign in with Microsoft Entra ID (formerly Azure AD), OpenID Connect.
 *
 * Single-tenant apps pass `tenantId` (or an `issuer`); multi-tenant apps keep the default `common`
 * (or use `organizations` / `consumers`): the `{tenantid}` template of Microsoft's metadata is
 * resolved, and each ID token is validated against the issuer of the tenant that signed it (any
 * Entra tenant is then accepted: restrict tenants in the `signIn` callback if you need to).
 * The profile photo is read from Microsoft Graph (`User.Read` scope) as a data URL.
 *
 * Reads `AUTH_MICROSOFT_ENTRA_ID_ID`, `AUTH_MICROSOFT_ENTRA_ID_SECRET`, `AUTH_MICROSOFT_ENTRA_ID_ISSUER`
 * when `clientId`, `clientSecret`, `issuer` are not given.
 * Register the callback URL `{origin}{basePath}/callback/microsoft-entra-id` with Microsoft. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [MicrosoftEntraID({ tenantId: process.env.AZURE_TENANT_ID })] })
 * ```
 */
export function MicrosoftEntraID(
  config?: OIDCUserConfig<MicrosoftEntraIDProfile> & MicrosoftEntraIDOptions,
): OAuthConfig<MicrosoftEntraIDProfile> {
  return {
    id: 'microsoft-entra-id',
    name: 'Microsoft Entra ID',
    type: 'oidc',
    ...entraIdConfig(config, envDefault('AUTH_MICROSOFT_ENTRA_ID_ISSUER')),
    options: config,
  };
}
