import type { Awaitable } from '../../types/common.types.js';
import type { CommonProviderOptions, InternalProviderOptions } from '../../providers/provider.types.js';
import type { Theme } from '../../types/common.types.js';
import type { EmailPurpose } from './email.message.js';

/** The type of email (magic-link) providers. */
export type EmailProviderType = 'email';

/** What `sendVerificationRequest` receives. */
export interface SendVerificationRequestParams {
  /** The normalised email address the link is for. */
  identifier: string;
  /** The sign-in link. */
  url: string;
  /** When the link stops working. */
  expires: Date;
  /** The provider sending the link. */
  provider: EmailConfig;
  /** The plain token in the link (the database stores only its hash). */
  token: string;
  /** The `theme` option, to brand the message. */
  theme: Theme;
  /** The request that asked for the link. */
  request: Request;
  /**
   * Beyond Auth.js: what the mail is for. Absent for sign-in links; `email-change` for the link that
   * confirms a new address (`url` confirms it), `email-change-notice` for the notice sent to the old
   * address after a change (`url` is the account page; `token` is empty), `two-factor-code` for a
   * second factor's one-time code (`token` is the code to show, `url` the page that asks for it).
   */
  purpose?: EmailPurpose;
}

/** An email (magic-link) provider. */
export interface EmailConfig extends CommonProviderOptions, InternalProviderOptions {
  id: string;
  type: 'email';
  name: string;
  /** SMTP connection URL or nodemailer transport options. */
  server?: string | Record<string, unknown>;
  /** The sender address. */
  from?: string;
  /** Seconds a link stays valid. @default 86400 (24 hours) */
  maxAge?: number;
  /** Sends the link. The default sends a plain-text and an HTML mail through `server`. */
  sendVerificationRequest: (params: SendVerificationRequestParams) => Awaitable<void>;
  /** Secret used to hash tokens instead of the top-level `secret`. */
  secret?: string;
  /** API key for HTTP email services. */
  apiKey?: string;
  /** Generates the token put in the link. The default uses 32 random bytes. */
  generateVerificationToken?: () => Awaitable<string>;
  /**
   * Normalises (and validates) the address typed by the user; throw to refuse it. The result is
   * the identifier everywhere: the mail recipient, the token's identifier, the user's `email`.
   * @default `defaultNormalizeIdentifier`: Unicode NFKC, trim, lower-case, exactly one `@`, no
   * quotes, commas, semicolons, spaces, angle brackets, brackets, backslashes or control
   * characters, the domain in ASCII (punycode), at most 254 characters
   */
  normalizeIdentifier?: (identifier: string) => string;
  /**
   * Opening the link with `GET` signs the user in at once (Auth.js's behaviour). Off by default:
   * `GET` shows a page whose button `POST`s the link, so mail scanners that fetch links (GET or
   * HEAD) never use it up.
   * @default false
   */
  consumeOnGet?: boolean;
  /**
   * How the stored token is hashed. `'hmac'`: HMAC-SHA256 keyed with the secret over the address and
   * the token (a row matches only its address). `'authjs'`: SHA-256 of the token followed by the
   * secret, as Auth.js stores it: use it when an Auth.js app shares the database, so a link sent by
   * either app works on the other ("One database with Auth.js" in the docs).
   * @default 'hmac'
   */
  tokenHash?: 'hmac' | 'authjs';
  /**
   * At bootstrap, connect to `server` (TCP, EHLO, and AUTH when it has credentials) and fail
   * start-up with `AuthConfigurationError` and the cause when it does not answer within
   * `EMAIL_DEFAULTS.verifyTimeoutMs`. Only with the built-in sender (not a custom
   * `sendVerificationRequest`).
   * @default true when `NODE_ENV` is `production`, false otherwise
   */
  verifyOnStartup?: boolean;
  /**
   * Limits on how many links may be requested per address and per client IP, or `false` for none.
   * Counters live in the module's rate-limit store (`rateLimitStore`, in memory by default).
   * @default { maxPerAddress: 3, maxPerIp: 30, windowSeconds: 600 }
   */
  rateLimit?: EmailRateLimitOptions | false;
}

/**
 * How many sign-in links may be requested, in fixed windows. A request past either limit is
 * refused with `RateLimited` (no token stored, no mail sent).
 */
export interface EmailRateLimitOptions {
  /** Links per address (after normalisation) in one window. @default 3 */
  maxPerAddress?: number;
  /** Links per client IP (IPv6: per /64), all addresses together, in one window. @default 30 */
  maxPerIp?: number;
  /** Length of a window in seconds, from its first request. @default 600 (10 minutes) */
  windowSeconds?: number;
}

/** What a user passes to the `Email` factory. */
export type EmailUserConfig = Omit<Partial<EmailConfig>, 'options' | 'type'>;
