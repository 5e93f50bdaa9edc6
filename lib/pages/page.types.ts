import type { Theme, ThemeOptions } from '../config/auth-options.interface.js';

/** The theme a built-in page renders with: every {@link Theme} field, and the app's name if given. */
export type PageTheme = Required<Theme> & Pick<ThemeOptions, 'brandName'>;
import type { CredentialInput } from '../methods/credentials/credentials.types.js';
import type { ProviderType } from '../providers/provider.types.js';
import type { PageMessages } from '../config/messages/page-messages.js';

/** What a page rendered through a render hook (`pages.render.<page>`) also gets. */
export interface PageHookParams {
  /** Replaces the page's content HTML (the hook, with its fallback); the document around it stays. */
  replaceBody?: (html: string) => string;
  /** Allowed by the page's CSP for the hook's own `<script nonce>` and `<style nonce>`. */
  nonce?: string;
}

/** Button styling a provider may carry (`style` of an OAuth provider). */
export interface PageProviderStyle {
  /** Background of the provider's button (a CSS colour). */
  brandColor?: string;
  /** Logo shown in the button: an `https:`/`http:` URL, a path on this site, or a `data:image/...` URI. */
  logo?: string;
  /** Text colour on the button. @deprecated Auth.js's legacy field; computed from `brandColor` when absent. */
  text?: string;
  /** @deprecated Auth.js's legacy name of `brandColor`. */
  bg?: string;
}

/** A sign-in method's form on the built-in sign-in page (see `SignInPageParams.methodForms`). */
export type SignInFormRenderer = (
  provider: SignInPageProvider,
  page: SignInPageParams,
  hidden: string,
  /** The error of this form's last submission (`?error=…&provider=<id>`), as HTML to place in the form. */
  error?: { html: string },
) => string;

/** One configured provider as the sign-in page shows it. */
export interface SignInPageProvider {
  id: string;
  name: string;
  type: ProviderType;
  /** Absolute URL of `POST {basePath}/signin/{id}` (OAuth buttons and the email form post here). */
  signinUrl: string;
  /** Absolute URL of `{basePath}/callback/{id}` (the credentials and passkey forms post here). */
  callbackUrl: string;
  style?: PageProviderStyle;
  /** Credentials providers: the form's inputs, keyed by field name. Without them the provider is not shown. */
  credentials?: Record<string, CredentialInput>;
  /** WebAuthn providers: the fields shown with the passkey button (usually the email). */
  formFields?: Record<string, CredentialInput>;
  /** WebAuthn providers: offer passkeys in the email field's autofill (conditional UI). */
  enableConditionalUI?: boolean;
}

/**
 * What the sign-in page needs. Every string is escaped by the renderer, so values may come
 * straight from the request.
 *
 * The passkey form is `<form data-webauthn-provider="{id}">` (plus `data-webauthn-conditional-ui`
 * for conditional UI) with the `csrfToken`, `callbackUrl` and `email` inputs and an element marked
 * `data-webauthn-error`: the attributes the script at `webauthnScriptUrl` wires
 * (`lib/pages/webauthn-client.ts`).
 */
export interface SignInPageParams extends PageHookParams {
  /**
   * Forms of sign-in methods the app added (`methods` option), by provider type: the page renders
   * the providers of those types with them. Each returns an HTML fragment; `hidden` holds the CSRF
   * token and callback URL inputs its form must carry.
   */
  methodForms?: Readonly<Record<string, SignInFormRenderer>>;
  providers: SignInPageProvider[];
  csrfToken: string;
  /** Where to go after signing in; sent back in every form. */
  callbackUrl: string;
  /** The `?error=` type to explain at the top of the page. */
  error?: string;
  /**
   * The `?provider=` whose form failed: the error is shown inside that form (fields marked
   * `aria-invalid` and focused) instead of above the forms.
   */
  errorProvider?: string;
  /** The `?code=` of a `CredentialsSignin` error, shown when it is a plain identifier. */
  code?: string;
  /** Pre-fills the email fields. */
  email?: string;
  theme: PageTheme;
  /**
   * Absolute URL of `GET {basePath}/signin`. With it, and two or more shown methods that need an
   * email address, the page is identifier-first: the address, then (`?step=methods&email=`) the methods.
   */
  signInUrl?: string;
  /** `?step=`: `email` shows the address field again (pre-filled); otherwise an address shows step 2. */
  step?: string;
  /** The sentences (the `messages` option over English); English when absent. */
  messages?: PageMessages;
  /** URL of the browser half of passkeys, served by this library; without it no passkey form is shown. */
  webauthnScriptUrl?: string;
  /**
   * Absolute URL of the app's "forgot password" page (`pages.forgotPassword`): a "Forgot password?"
   * link under the password field, with `?email=` of the address typed.
   */
  forgotPasswordUrl?: string;
}

/** What the sign-out page needs. */
export interface SignOutPageParams extends PageHookParams {
  csrfToken: string;
  callbackUrl: string;
  /** Absolute URL of `POST {basePath}/signout`. */
  signOutUrl: string;
  /** The `?error=` type of a refused sign-out (say, `MissingCSRF`): shown above the form. */
  error?: string;
  theme: PageTheme;
  /** The sentences; English when absent. */
  messages?: PageMessages;
}

/** What the "check your email" page needs. */
export interface VerifyRequestPageParams extends PageHookParams {
  /** Where the link went (`?email=`); shown when it looks like an address. */
  email?: string;
  /** How long the link lasts, in seconds (the email provider's `maxAge`). */
  maxAge?: number;
  /** Absolute URL of `GET {basePath}/signin`: "use a different address" (pre-filled). */
  signInUrl?: string;
  /** The site's origin; the page links back to it. */
  url: string;
  theme: PageTheme;
  /** The sentences; English when absent. */
  messages?: PageMessages;
}

/** What the error page needs. */
export interface ErrorPageParams extends PageHookParams {
  /** The `?error=` type; unknown or absent types get a generic message. */
  error?: string;
  /** The site's origin; the page links back to it. */
  url: string;
  /** Absolute URL of `GET {basePath}/signin`. */
  signInUrl: string;
  theme: PageTheme;
  /** The sentences; English when absent. */
  messages?: PageMessages;
}

/** A second factor a user proves after the first: a code from an authenticator app, or a backup code. */
export type TwoFactorMethod = 'totp' | 'backup-code' | 'email-code';

/** What the two-factor challenge page (the code asked for after the first factor) needs. */
export interface TwoFactorChallengePageParams extends PageHookParams {
  /** Absolute URL of `POST {basePath}/two-factor`: the form posts `csrfToken`, `method` and `code` here. */
  action: string;
  csrfToken: string;
  /** Extra hidden inputs of the form (escaped). */
  hidden?: Record<string, string>;
  /** The methods this user can use: with both (and `switchUrl`), the page links to the other one. */
  methods: TwoFactorMethod[];
  /** The method the form asks for now (sent back as `method`). */
  method: TwoFactorMethod;
  /** A `GET` URL that shows the page for the other method (a plain link: no script needed). */
  switchUrl?: (method: TwoFactorMethod) => string;
  /** "Sign in another way": the sign-in page. */
  cancelUrl: string;
  /** The sentence of a refused code, already translated: shown with `role="alert"` and tied to the field. */
  error?: string;
  /**
   * The user has a passkey: a button runs the passkey ceremony with the script at `scriptUrl`
   * (`data-webauthn-two-factor` on the button). Without `methods`, it is the page's only way.
   */
  passkey?: { scriptUrl: string };
  /**
   * A code by email is offered: a button asks for one (`method=email-code`, `send=1`); `sentTo`
   * (the address, masked) once one went, and the form then asks for it (`method: 'email-code'`).
   */
  emailCode?: { sentTo?: string };
  /** Offer "Don't ask again on this device" for this many days (`remember=1`); absent: not offered. */
  rememberDays?: number;
  theme: PageTheme;
  /** The sentences; English when absent. */
  messages?: PageMessages;
}

/**
 * What the page that sets up an authenticator app needs: at sign-in when the policy requires a second
 * factor (`required`), or from the account page.
 */
export interface TwoFactorEnrolPageParams extends PageHookParams {
  /** Where the form posts `csrfToken`, the `hidden` inputs, `code` (and `name`). */
  action: string;
  csrfToken: string;
  /** Extra hidden inputs of the form (say, the factor's id), escaped. */
  hidden?: Record<string, string>;
  /** The QR code of `uri` as an inline `<svg>` made by this library: inserted as it is, never user input. */
  qrSvg: string;
  /** The `otpauth://totp/...` URI: linked as "open in your authenticator app" (any other scheme is not linked). */
  uri: string;
  /** The base32 secret, shown in groups of four for typing it in by hand. */
  secret: string;
  /** Required at sign-in (true) or added from the account page (false): the title and intro say which. */
  required: boolean;
  /** Show an optional `name` input (the account page). */
  nameField: boolean;
  /** A "Cancel" link, when given. */
  cancelUrl?: string;
  /** The sentence of a refused code, already translated: shown with `role="alert"` and tied to the code field. */
  error?: string;
  theme: PageTheme;
  /** The sentences; English when absent. */
  messages?: PageMessages;
}

/** What the page that shows new backup codes (once, after enrolment or regeneration) needs. */
export interface BackupCodesPageParams extends PageHookParams {
  /** The codes in clear: shown on this page only. */
  codes: string[];
  /** Where "Continue" goes (`GET`). */
  continueUrl: string;
  /** New codes that replaced old ones (the page says the old ones stopped working). */
  regenerated: boolean;
  theme: PageTheme;
  /** The sentences; English when absent. */
  messages?: PageMessages;
}

/** The "Continue to {app}" page of a native app's sign-in (`nativeApps`), for a browser already signed in. */
export interface AppAuthorizePageParams {
  /** Absolute URL the form posts to (`POST {basePath}/authorize`). */
  action: string;
  csrfToken: string;
  /** The authorization request, posted back as hidden fields. */
  request: Record<string, string>;
  /** The app's name. */
  app: string;
  /** Who is signed in (an email address or name). */
  user: string;
  /** "Use another account": the same request with `prompt=login`. */
  otherAccountUrl: string;
  theme: PageTheme;
  messages?: PageMessages;
}

/** The page of an authorization request that cannot go back to the app (unknown app, unregistered redirect URI). */
export interface AppErrorPageParams {
  /** What is wrong and what the app's developer should do (shown as is, escaped). */
  message: string;
  theme: PageTheme;
  messages?: PageMessages;
}
