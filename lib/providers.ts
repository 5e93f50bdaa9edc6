// The provider catalogue of nestjs-auth (`nestjs-auth/providers`): one factory per OAuth 2.0 / OpenID
// Connect provider Auth.js ships (93, same ids), each with its typed profile, and `oauthProviderCatalog`
// (id -> factory). The generic factories (Email, Nodemailer, Credentials, WebAuthn, Passkey) and every
// provider type stay in the main entry; nothing is exported from both (test/public-api.spec.ts).
//
//   import { GitHub, Google } from 'nestjs-auth/providers';

/**
 * The OAuth 2.0 / OpenID Connect provider catalogue: one factory per provider (93, the ids Auth.js
 * ships), each with its typed profile, and `oauthProviderCatalog` (id to factory). The generic
 * providers (Email, Nodemailer, Credentials, WebAuthn, Passkey) are in `nestjs-auth`.
 *
 * @example
 * ```ts
 * import { GitHub, Google } from 'nestjs-auth/providers';
 *
 * AuthModule.forRoot({ providers: [GitHub(), Google()] });
 * ```
 *
 * @module nestjs-auth/providers
 */

export { FortyTwoSchool, type FortyTwoSchoolProfile } from './providers/catalog/42-school.provider.js';
export { Apple, type AppleUserField, type AppleProfile } from './providers/catalog/apple.provider.js';
export { Asgardeo, type AsgardeoProfile } from './providers/catalog/asgardeo.provider.js';
export { Atlassian, type AtlassianProfile } from './providers/catalog/atlassian.provider.js';
export { Auth0, type Auth0Profile } from './providers/catalog/auth0.provider.js';
export { Authentik, type AuthentikProfile } from './providers/catalog/authentik.provider.js';
export { AzureAD, type AzureADProfile } from './providers/catalog/azure-ad.provider.js';
export { AzureADB2C, type AzureADB2CProfile } from './providers/catalog/azure-ad-b2c.provider.js';
export { AzureDevOps, type AzureDevOpsProfile } from './providers/catalog/azure-devops.provider.js';
export { BankIDNorge, type BankIDNorgeProfile } from './providers/catalog/bankid-no.provider.js';
export {
  BattleNet,
  type BattleNetIssuer,
  type BattleNetProfile,
  type BattleNetOptions,
} from './providers/catalog/battlenet.provider.js';
export { BeyondIdentity, type BeyondIdentityProfile } from './providers/catalog/beyondidentity.provider.js';
export { Bitbucket, type BitbucketProfile } from './providers/catalog/bitbucket.provider.js';
export { Box, type BoxProfile } from './providers/catalog/box.provider.js';
export { BoxyHQSAML, type BoxyHQSAMLProfile } from './providers/catalog/boxyhq-saml.provider.js';
export { Bungie, type BungieProfile, type BungieOptions } from './providers/catalog/bungie.provider.js';
export { ClickUp, type ClickUpProfile } from './providers/catalog/click-up.provider.js';
export { Cognito, type CognitoProfile } from './providers/catalog/cognito.provider.js';
export { Coinbase, type CoinbaseProfile } from './providers/catalog/coinbase.provider.js';
export { Concept2, type Concept2Profile } from './providers/catalog/concept2.provider.js';
export { Descope, type DescopeProfile } from './providers/catalog/descope.provider.js';
export { Discord, type DiscordProfile } from './providers/catalog/discord.provider.js';
export { Dribbble, type DribbbleProfile, type DribbbleOptions } from './providers/catalog/dribbble.provider.js';
export { Dropbox, type DropboxProfile } from './providers/catalog/dropbox.provider.js';
export {
  DuendeIdentityServer6,
  type DuendeIdentityServer6Profile,
} from './providers/catalog/duende-identity-server6.provider.js';
export { Eventbrite, type EventbriteProfile } from './providers/catalog/eventbrite.provider.js';
export { EVEOnline, type EVEOnlineProfile } from './providers/catalog/eveonline.provider.js';
export { Facebook, type FacebookProfile } from './providers/catalog/facebook.provider.js';
export { FACEIT, type FACEITProfile } from './providers/catalog/faceit.provider.js';
export { Figma, type FigmaProfile } from './providers/catalog/figma.provider.js';
export { Foursquare, type FoursquareProfile, type FoursquareOptions } from './providers/catalog/foursquare.provider.js';
export { Freshbooks, type FreshbooksProfile } from './providers/catalog/freshbooks.provider.js';
export { Frontegg, type FronteggProfile } from './providers/catalog/frontegg.provider.js';
export { FusionAuth, type FusionAuthProfile, type FusionAuthOptions } from './providers/catalog/fusionauth.provider.js';
export {
  GitHub,
  type GitHubProfile,
  type GitHubEmail,
  type GitHubOptions,
} from './providers/catalog/github.provider.js';
export { GitLab, type GitLabProfile, type GitLabOptions } from './providers/catalog/gitlab.provider.js';
export { Google, type GoogleProfile } from './providers/catalog/google.provider.js';
export { HubSpot, type HubSpotProfile } from './providers/catalog/hubspot.provider.js';
export { HuggingFace, type HuggingFaceProfile } from './providers/catalog/huggingface.provider.js';
export { OryHydra, type OryHydraProfile } from './providers/catalog/hydra.provider.js';
export { IdentityServer4, type IdentityServer4Profile } from './providers/catalog/identity-server4.provider.js';
export { Instagram, type InstagramProfile } from './providers/catalog/instagram.provider.js';
export { Kakao, type KakaoProfile } from './providers/catalog/kakao.provider.js';
export { Keycloak, type KeycloakProfile } from './providers/catalog/keycloak.provider.js';
export { Kinde, type KindeProfile } from './providers/catalog/kinde.provider.js';
export { LINE, type LINEProfile } from './providers/catalog/line.provider.js';
export { LinkedIn, type LinkedInProfile } from './providers/catalog/linkedin.provider.js';
export { Logto, type LogtoProfile } from './providers/catalog/logto.provider.js';
export { Mailchimp, type MailchimpProfile } from './providers/catalog/mailchimp.provider.js';
export { MailRu, type MailRuProfile } from './providers/catalog/mailru.provider.js';
export { Mastodon, type MastodonProfile } from './providers/catalog/mastodon.provider.js';
export { Mattermost, type MattermostProfile } from './providers/catalog/mattermost.provider.js';
export { Medium, type MediumProfile } from './providers/catalog/medium.provider.js';
export {
  MicrosoftEntraID,
  type MicrosoftEntraIDProfile,
  type MicrosoftEntraIDOptions,
} from './providers/catalog/microsoft-entra-id.provider.js';
export { Naver, type NaverProfile } from './providers/catalog/naver.provider.js';
export { Netlify, type NetlifyProfile } from './providers/catalog/netlify.provider.js';
export { NetSuite, type NetSuiteProfile, type NetSuiteOptions } from './providers/catalog/netsuite.provider.js';
export { Nextcloud, type NextcloudProfile } from './providers/catalog/nextcloud.provider.js';
export { Notion, type NotionProfile } from './providers/catalog/notion.provider.js';
export { Okta, type OktaProfile } from './providers/catalog/okta.provider.js';
export { OneLogin, type OneLoginProfile } from './providers/catalog/onelogin.provider.js';
export { Osso, type OssoProfile } from './providers/catalog/osso.provider.js';
export { Osu, type OsuProfile } from './providers/catalog/osu.provider.js';
export { Passage, type PassageProfile } from './providers/catalog/passage.provider.js';
export { Patreon, type PatreonProfile } from './providers/catalog/patreon.provider.js';
export { PingId, type PingIdProfile } from './providers/catalog/ping-id.provider.js';
export { Pinterest, type PinterestProfile } from './providers/catalog/pinterest.provider.js';
export { Pipedrive, type PipedriveProfile } from './providers/catalog/pipedrive.provider.js';
export { Reddit, type RedditProfile } from './providers/catalog/reddit.provider.js';
export { Roblox, type RobloxProfile } from './providers/catalog/roblox.provider.js';
export { Salesforce, type SalesforceProfile } from './providers/catalog/salesforce.provider.js';
export { SimpleLogin, type SimpleLoginProfile } from './providers/catalog/simplelogin.provider.js';
export { Slack, type SlackProfile } from './providers/catalog/slack.provider.js';
export { Spotify, type SpotifyProfile } from './providers/catalog/spotify.provider.js';
export { Strava, type StravaProfile } from './providers/catalog/strava.provider.js';
export { Threads, type ThreadsProfile } from './providers/catalog/threads.provider.js';
export { TikTok, type TikTokProfile } from './providers/catalog/tiktok.provider.js';
export { Todoist, type TodoistProfile } from './providers/catalog/todoist.provider.js';
export { Trakt, type TraktProfile } from './providers/catalog/trakt.provider.js';
export { Twitch, type TwitchProfile } from './providers/catalog/twitch.provider.js';
export { Twitter, type TwitterProfile } from './providers/catalog/twitter.provider.js';
export { UnitedEffects, type UnitedEffectsProfile } from './providers/catalog/united-effects.provider.js';
export { Vipps, type VippsProfile } from './providers/catalog/vipps.provider.js';
export { VK, type VKProfile } from './providers/catalog/vk.provider.js';
export { Webex, type WebexProfile, type WebexOptions } from './providers/catalog/webex.provider.js';
export { WeChat, type WeChatProfile, type WeChatOptions } from './providers/catalog/wechat.provider.js';
export { Wikimedia, type WikimediaProfile } from './providers/catalog/wikimedia.provider.js';
export { WordPress, type WordPressProfile } from './providers/catalog/wordpress.provider.js';
export { WorkOS, type WorkOSProfile, type WorkOSOptions } from './providers/catalog/workos.provider.js';
export { Yandex, type YandexProfile } from './providers/catalog/yandex.provider.js';
export { Zitadel, type ZitadelProfile } from './providers/catalog/zitadel.provider.js';
export { Zoho, type ZohoProfile } from './providers/catalog/zoho.provider.js';
export { Zoom, type ZoomProfile } from './providers/catalog/zoom.provider.js';
export { oauthProviderCatalog, type OAuthCatalogId } from './providers/catalog/catalog.js';
