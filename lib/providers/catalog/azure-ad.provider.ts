import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';
import { envDefault } from './catalog.helpers.js';
import {
  entraIdConfig,
  type MicrosoftEntraIDOptions,
  type MicrosoftEntraIDProfile,
} from './microsoft-entra-id.provider.js';

/** The ID token claims of Azure Active Directory: those of {@link MicrosoftEntraIDProfile}. */
export type AzureADProfile = MicrosoftEntraIDProfile;

/**
 * Sign in with Azure Active Directory: the former name of {@link MicrosoftEntraID}, kept with the
 * id `azure-ad` so existing callback URLs and stored accounts keep working. Same options and quirks.
 *
 * Reads `AUTH_AZURE_AD_ID`, `AUTH_AZURE_AD_SECRET` when `clientId`, `clientSecret` are not given;
 * the issuer comes from `issuer`, else `tenantId`, else `AUTH_AZURE_AD_ISSUER` (or
 * `AUTH_MICROSOFT_ENTRA_ID_ISSUER`), else the multi-tenant `common`.
 *
 * @deprecated use {@link MicrosoftEntraID} for new apps.
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [AzureAD({ tenantId })] })
 * ```
 */
export function AzureAD(
  config?: OIDCUserConfig<AzureADProfile> & MicrosoftEntraIDOptions,
): OAuthConfig<AzureADProfile> {
  return {
    id: 'azure-ad',
    name: 'Azure Active Directory',
    type: 'oidc',
    ...entraIdConfig(config, envDefault('AUTH_AZURE_AD_ISSUER') ?? envDefault('AUTH_MICROSOFT_ENTRA_ID_ISSUER')),
    options: config,
  };
}
