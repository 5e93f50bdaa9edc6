import { FortyTwoSchool } from './42-school.provider.js';
import { Apple } from './apple.provider.js';
import { Asgardeo } from './asgardeo.provider.js';
import { Atlassian } from './atlassian.provider.js';
import { Auth0 } from './auth0.provider.js';
import { Authentik } from './authentik.provider.js';
import { AzureAD } from './azure-ad.provider.js';
import { AzureADB2C } from './azure-ad-b2c.provider.js';
import { AzureDevOps } from './azure-devops.provider.js';
import { BankIDNorge } from './bankid-no.provider.js';
import { BattleNet } from './battlenet.provider.js';
import { BeyondIdentity } from './beyondidentity.provider.js';
import { Bitbucket } from './bitbucket.provider.js';
import { Box } from './box.provider.js';
import { BoxyHQSAML } from './boxyhq-saml.provider.js';
import { Bungie } from './bungie.provider.js';
import { ClickUp } from './click-up.provider.js';
import { Cognito } from './cognito.provider.js';
import { Coinbase } from './coinbase.provider.js';
import { Concept2 } from './concept2.provider.js';
import { Descope } from './descope.provider.js';
import { Discord } from './discord.provider.js';
import { Dribbble } from './dribbble.provider.js';
import { Dropbox } from './dropbox.provider.js';
import { DuendeIdentityServer6 } from './duende-identity-server6.provider.js';
import { Eventbrite } from './eventbrite.provider.js';
import { EVEOnline } from './eveonline.provider.js';
import { Facebook } from './facebook.provider.js';
import { FACEIT } from './faceit.provider.js';
import { Figma } from './figma.provider.js';
import { Foursquare } from './foursquare.provider.js';
import { Freshbooks } from './freshbooks.provider.js';
import { Frontegg } from './frontegg.provider.js';
import { FusionAuth } from './fusionauth.provider.js';
import { GitHub } from './github.provider.js';
import { GitLab } from './gitlab.provider.js';
import { Google } from './google.provider.js';
import { HubSpot } from './hubspot.provider.js';
import { HuggingFace } from './huggingface.provider.js';
import { OryHydra } from './hydra.provider.js';
import { IdentityServer4 } from './identity-server4.provider.js';
import { Instagram } from './instagram.provider.js';
import { Kakao } from './kakao.provider.js';
import { Keycloak } from './keycloak.provider.js';
import { Kinde } from './kinde.provider.js';
import { LINE } from './line.provider.js';
import { LinkedIn } from './linkedin.provider.js';
import { Logto } from './logto.provider.js';
import { Mailchimp } from './mailchimp.provider.js';
import { MailRu } from './mailru.provider.js';
import { Mastodon } from './mastodon.provider.js';
import { Mattermost } from './mattermost.provider.js';
import { Medium } from './medium.provider.js';
import { MicrosoftEntraID } from './microsoft-entra-id.provider.js';
import { Naver } from './naver.provider.js';
import { Netlify } from './netlify.provider.js';
import { NetSuite } from './netsuite.provider.js';
import { Nextcloud } from './nextcloud.provider.js';
import { Notion } from './notion.provider.js';
import { Okta } from './okta.provider.js';
import { OneLogin } from './onelogin.provider.js';
import { Osso } from './osso.provider.js';
import { Osu } from './osu.provider.js';
import { Passage } from './passage.provider.js';
import { Patreon } from './patreon.provider.js';
import { PingId } from './ping-id.provider.js';
import { Pinterest } from './pinterest.provider.js';
import { Pipedrive } from './pipedrive.provider.js';
import { Reddit } from './reddit.provider.js';
import { Roblox } from './roblox.provider.js';
import { Salesforce } from './salesforce.provider.js';
import { SimpleLogin } from './simplelogin.provider.js';
import { Slack } from './slack.provider.js';
import { Spotify } from './spotify.provider.js';
import { Strava } from './strava.provider.js';
import { Threads } from './threads.provider.js';
import { TikTok } from './tiktok.provider.js';
import { Todoist } from './todoist.provider.js';
import { Trakt } from './trakt.provider.js';
import { Twitch } from './twitch.provider.js';
import { Twitter } from './twitter.provider.js';
import { UnitedEffects } from './united-effects.provider.js';
import { Vipps } from './vipps.provider.js';
import { VK } from './vk.provider.js';
import { Webex } from './webex.provider.js';
import { WeChat } from './wechat.provider.js';
import { Wikimedia } from './wikimedia.provider.js';
import { WordPress } from './wordpress.provider.js';
import { WorkOS } from './workos.provider.js';
import { Yandex } from './yandex.provider.js';
import { Zitadel } from './zitadel.provider.js';
import { Zoho } from './zoho.provider.js';
import { Zoom } from './zoom.provider.js';

/**
 * Every built-in OAuth 2.0 / OpenID Connect provider, by id: the ids Auth.js ships, each mapped to
 * its factory `(config?) => OAuthConfig<Profile>`. `OAuthProviderType` is derived from these keys.
 */
export const oauthProviderCatalog = {
  '42-school': FortyTwoSchool,
  apple: Apple,
  asgardeo: Asgardeo,
  atlassian: Atlassian,
  auth0: Auth0,
  authentik: Authentik,
  'azure-ad': AzureAD,
  'azure-ad-b2c': AzureADB2C,
  'azure-devops': AzureDevOps,
  'bankid-no': BankIDNorge,
  battlenet: BattleNet,
  beyondidentity: BeyondIdentity,
  bitbucket: Bitbucket,
  box: Box,
  'boxyhq-saml': BoxyHQSAML,
  bungie: Bungie,
  'click-up': ClickUp,
  cognito: Cognito,
  coinbase: Coinbase,
  concept2: Concept2,
  descope: Descope,
  discord: Discord,
  dribbble: Dribbble,
  dropbox: Dropbox,
  'duende-identity-server6': DuendeIdentityServer6,
  eventbrite: Eventbrite,
  eveonline: EVEOnline,
  facebook: Facebook,
  faceit: FACEIT,
  figma: Figma,
  foursquare: Foursquare,
  freshbooks: Freshbooks,
  frontegg: Frontegg,
  fusionauth: FusionAuth,
  github: GitHub,
  gitlab: GitLab,
  google: Google,
  hubspot: HubSpot,
  huggingface: HuggingFace,
  hydra: OryHydra,
  'identity-server4': IdentityServer4,
  instagram: Instagram,
  kakao: Kakao,
  keycloak: Keycloak,
  kinde: Kinde,
  line: LINE,
  linkedin: LinkedIn,
  logto: Logto,
  mailchimp: Mailchimp,
  mailru: MailRu,
  mastodon: Mastodon,
  mattermost: Mattermost,
  medium: Medium,
  'microsoft-entra-id': MicrosoftEntraID,
  naver: Naver,
  netlify: Netlify,
  netsuite: NetSuite,
  nextcloud: Nextcloud,
  notion: Notion,
  okta: Okta,
  onelogin: OneLogin,
  osso: Osso,
  osu: Osu,
  passage: Passage,
  patreon: Patreon,
  'ping-id': PingId,
  pinterest: Pinterest,
  pipedrive: Pipedrive,
  reddit: Reddit,
  roblox: Roblox,
  salesforce: Salesforce,
  simplelogin: SimpleLogin,
  slack: Slack,
  spotify: Spotify,
  strava: Strava,
  threads: Threads,
  tiktok: TikTok,
  todoist: Todoist,
  trakt: Trakt,
  twitch: Twitch,
  twitter: Twitter,
  'united-effects': UnitedEffects,
  vipps: Vipps,
  vk: VK,
  webex: Webex,
  wechat: WeChat,
  wikimedia: Wikimedia,
  wordpress: WordPress,
  workos: WorkOS,
  yandex: Yandex,
  zitadel: Zitadel,
  zoho: Zoho,
  zoom: Zoom,
} as const;

/** The id of a built-in OAuth 2.0 / OpenID Connect provider. */
export type OAuthCatalogId = keyof typeof oauthProviderCatalog;
