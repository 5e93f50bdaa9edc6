import type { Awaitable } from '../types/common.types.js';
import type { CommonProviderOptions, InternalProviderOptions } from './provider.types.js';
import type { Theme } from '../config/auth-options.interface.js';

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
  /** Normalises (and validates) the address typed by the user. Throw to refuse it. */
  normalizeIdentifier?: (identifier: string) => string;
}

/** What a user passes to the `Email` factory. */
export type EmailUserConfig = Omit<Partial<EmailConfig>, 'options' | 'type'>;
