import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { accountId } from './catalog.helpers.js';

/** The profile NetSuite returns, as the vendor documents it. */
export interface NetSuiteProfile {
  id: number;
  name: string;
  email: string;
  location?: number;
  role?: number;
  roleId?: string;
  roleCenter?: string;
  subsidiary?: number;
}

/** Options of the {@link NetSuite} factory beyond the provider config. */
export type NetSuiteOptions = {
  /** Your NetSuite account id (e.g. `TSTDRV1234567`). */
  accountID?: string;
};

/**
 * Sign in with Oracle NetSuite (OAuth 2.0).
 *
 * Pass `accountID` (your NetSuite account id; the hosts are built from it) and a `userinfo` URL:
 * NetSuite has no userinfo endpoint, so point it at a RESTlet that returns the current user
 * (`{ id, name, email, ... }`, e.g. from `runtime.getCurrentUser()`).
 *
 * Reads `AUTH_NETSUITE_ID`, `AUTH_NETSUITE_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/netsuite` with NetSuite. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [NetSuite()] })
 * ```
 */
export function NetSuite(config?: OAuthUserConfig<NetSuiteProfile> & NetSuiteOptions): OAuthConfig<NetSuiteProfile> {
  const accountID = config?.accountID?.toLowerCase().replace(/_/g, '-');
  return {
    id: 'netsuite',
    name: 'NetSuite',
    type: 'oauth',
    authorization: accountID
      ? {
          url: `https://${accountID}.app.netsuite.com/app/login/oauth2/authorize.nl`,
          params: { scope: 'restlets rest_webservices' },
        }
      : undefined,
    token: accountID ? `https://${accountID}.suitetalk.api.netsuite.com/services/rest/auth/oauth2/v1/token` : undefined,
    checks: ['state'],
    profile(profile) {
      return { id: accountId(profile.id), name: profile.name ?? null, email: profile.email ?? null, image: null };
    },
    style: { brandColor: '#125580' },
    options: config,
  };
}
