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
  /** The {@link FortyTwoSchool} factory. */
  '42-school': FortyTwoSchool,
  /** The {@link Apple} factory. */
  apple: Apple,
  /** The {@link Asgardeo} factory. */
  asgardeo: Asgardeo,
  /** The {@link Atlassian} factory. */
  atlassian: Atlassian,
  /** The {@link Auth0} factory. */
  auth0: Auth0,
  /** The {@link Authentik} factory. */
  authentik: Authentik,
  /** The {@link AzureAD} factory. */
  'azure-ad': AzureAD,
  /** The {@link AzureADB2C} factory. */
  'azure-ad-b2c': AzureADB2C,
  /** The {@link AzureDevOps} factory. */
  'azure-devops': AzureDevOps,
  /** The {@link BankIDNorge} factory. */
  'bankid-no': BankIDNorge,
  /** The {@link BattleNet} factory. */
  battlenet: BattleNet,
  /** The {@link BeyondIdentity} factory. */
  beyondidentity: BeyondIdentity,
  /** The {@link Bitbucket} factory. */
  bitbucket: Bitbucket,
  /** The {@link Box} factory. */
  box: Box,
  /** The {@link BoxyHQSAML} factory. */
  'boxyhq-saml': BoxyHQSAML,
  /** The {@link Bungie} factory. */
  bungie: Bungie,
  /** The {@link ClickUp} factory. */
  'click-up': ClickUp,
  /** The {@link Cognito} factory. */
  cognito: Cognito,
  /** The {@link Coinbase} factory. */
  coinbase: Coinbase,
  /** The {@link Concept2} factory. */
  concept2: Concept2,
  /** The {@link Descope} factory. */
  descope: Descope,
  /** The {@link Discord} factory. */
  discord: Discord,
  /** The {@link Dribbble} factory. */
  dribbble: Dribbble,
  /** The {@link Dropbox} factory. */
  dropbox: Dropbox,
  /** The {@link DuendeIdentityServer6} factory. */
  'duende-identity-server6': DuendeIdentityServer6,
  /** The {@link Eventbrite} factory. */
  eventbrite: Eventbrite,
  /** The {@link EVEOnline} factory. */
  eveonline: EVEOnline,
  /** The {@link Facebook} factory. */
  facebook: Facebook,
  /** The {@link FACEIT} factory. */
  faceit: FACEIT,
  /** The {@link Figma} factory. */
  figma: Figma,
  /** The {@link Foursquare} factory. */
  foursquare: Foursquare,
  /** The {@link Freshbooks} factory. */
  freshbooks: Freshbooks,
  /** The {@link Frontegg} factory. */
  frontegg: Frontegg,
  /** The {@link FusionAuth} factory. */
  fusionauth: FusionAuth,
  /** The {@link GitHub} factory. */
  github: GitHub,
  /** The {@link GitLab} factory. */
  gitlab: GitLab,
  /** The {@link Google} factory. */
  google: Google,
  /** The {@link HubSpot} factory. */
  hubspot: HubSpot,
  /** The {@link HuggingFace} factory. */
  huggingface: HuggingFace,
  /** The {@link OryHydra} factory. */
  hydra: OryHydra,
  /** The {@link IdentityServer4} factory. */
  'identity-server4': IdentityServer4,
  /** The {@link Instagram} factory. */
  instagram: Instagram,
  /** The {@link Kakao} factory. */
  kakao: Kakao,
  /** The {@link Keycloak} factory. */
  keycloak: Keycloak,
  /** The {@link Kinde} factory. */
  kinde: Kinde,
  /** The {@link LINE} factory. */
  line: LINE,
  /** The {@link LinkedIn} factory. */
  linkedin: LinkedIn,
  /** The {@link Logto} factory. */
  logto: Logto,
  /** The {@link Mailchimp} factory. */
  mailchimp: Mailchimp,
  /** The {@link MailRu} factory. */
  mailru: MailRu,
  /** The {@link Mastodon} factory. */
  mastodon: Mastodon,
  /** The {@link Mattermost} factory. */
  mattermost: Mattermost,
  /** The {@link Medium} factory. */
  medium: Medium,
  /** The {@link MicrosoftEntraID} factory. */
  'microsoft-entra-id': MicrosoftEntraID,
  /** The {@link Naver} factory. */
  naver: Naver,
  /** The {@link Netlify} factory. */
  netlify: Netlify,
  /** The {@link NetSuite} factory. */
  netsuite: NetSuite,
  /** The {@link Nextcloud} factory. */
  nextcloud: Nextcloud,
  /** The {@link Notion} factory. */
  notion: Notion,
  /** The {@link Okta} factory. */
  okta: Okta,
  /** The {@link OneLogin} factory. */
  onelogin: OneLogin,
  /** The {@link Osso} factory. */
  osso: Osso,
  /** The {@link Osu} factory. */
  osu: Osu,
  /** The {@link Passage} factory. */
  passage: Passage,
  /** The {@link Patreon} factory. */
  patreon: Patreon,
  /** The {@link PingId} factory. */
  'ping-id': PingId,
  /** The {@link Pinterest} factory. */
  pinterest: Pinterest,
  /** The {@link Pipedrive} factory. */
  pipedrive: Pipedrive,
  /** The {@link Reddit} factory. */
  reddit: Reddit,
  /** The {@link Roblox} factory. */
  roblox: Roblox,
  /** The {@link Salesforce} factory. */
  salesforce: Salesforce,
  /** The {@link SimpleLogin} factory. */
  simplelogin: SimpleLogin,
  /** The {@link Slack} factory. */
  slack: Slack,
  /** The {@link Spotify} factory. */
  spotify: Spotify,
  /** The {@link Strava} factory. */
  strava: Strava,
  /** The {@link Threads} factory. */
  threads: Threads,
  /** The {@link TikTok} factory. */
  tiktok: TikTok,
  /** The {@link Todoist} factory. */
  todoist: Todoist,
  /** The {@link Trakt} factory. */
  trakt: Trakt,
  /** The {@link Twitch} factory. */
  twitch: Twitch,
  /** The {@link Twitter} factory. */
  twitter: Twitter,
  /** The {@link UnitedEffects} factory. */
  'united-effects': UnitedEffects,
  /** The {@link Vipps} factory. */
  vipps: Vipps,
  /** The {@link VK} factory. */
  vk: VK,
  /** The {@link Webex} factory. */
  webex: Webex,
  /** The {@link WeChat} factory. */
  wechat: WeChat,
  /** The {@link Wikimedia} factory. */
  wikimedia: Wikimedia,
  /** The {@link WordPress} factory. */
  wordpress: WordPress,
  /** The {@link WorkOS} factory. */
  workos: WorkOS,
  /** The {@link Yandex} factory. */
  yandex: Yandex,
  /** The {@link Zitadel} factory. */
  zitadel: Zitadel,
  /** The {@link Zoho} factory. */
  zoho: Zoho,
  /** The {@link Zoom} factory. */
  zoom: Zoom,
} as const;

/** The id of a built-in OAuth 2.0 / OpenID Connect provider. */
export type OAuthCatalogId = keyof typeof oauthProviderCatalog;
