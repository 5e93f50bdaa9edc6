import type { SMTPTransportOptions } from 'nodemailer/lib/smtp-transport';
import { defaultNormalizeIdentifier } from './email.normalize.js';
import { renderVerificationEmail } from './email.message.js';
import type {
  EmailConfig,
  EmailRateLimitOptions,
  EmailUserConfig,
  SendVerificationRequestParams,
} from './email.types.js';

/** Defaults of email providers (the docs quote them). */
export const EMAIL_DEFAULTS = {
  /** Seconds a sign-in link stays valid. @default 86400 (24 hours, as Auth.js) */
  maxAge: 24 * 60 * 60,
  /** Links per address in one window. @default 3 */
  maxPerAddress: 3,
  /** Links per client IP in one window. @default 30 */
  maxPerIp: 30,
  /** Rate-limit window in seconds. @default 600 (10 minutes) */
  windowSeconds: 600,
  /** Milliseconds the bootstrap check of `server` (`verifyOnStartup`) waits for it. @default 10000 */
  verifyTimeoutMs: 10_000,
} as const;

/**
 * Connects to an SMTP server the way sending will (nodemailer's `verify`: TCP or TLS, EHLO,
 * STARTTLS when offered, AUTH when the options carry credentials), then disconnects. Rejects with
 * the server's or the socket's error, or after `timeoutMs`.
 */
export async function verifySmtpServer(server: string | Record<string, unknown>, timeoutMs: number): Promise<void> {
  const { createTransport } = await import('nodemailer');
  const transport = createTransport(server as string | SMTPTransportOptions);
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      transport.verify(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    transport.close();
  }
}

/**
 * Sends the sign-in email through nodemailer, with the provider's `server` (an SMTP URL such as
 * `smtp://user:pass@smtp.example.com:587`, or nodemailer SMTP options) and `from`: a plain-text
 * and an HTML part, subject `Sign in to <host>`. Fails when the server refuses the recipient or
 * leaves it pending, so the user is told the mail was not sent.
 *
 * Before sending, the recipient is parsed the way nodemailer will parse it: anything but exactly
 * that one address (a custom `normalizeIdentifier` that let a list or a display name through) is
 * refused, so the mail can only go to the identifier the token was issued for.
 */
export async function sendVerificationRequestWithNodemailer(params: SendVerificationRequestParams): Promise<void> {
  const { identifier, url, provider, theme } = params;
  if (!provider.server) throw new Error('The email provider has no `server` to send through.');
  if (!provider.from) throw new Error('The email provider has no `from` address.');
  // nodemailer is loaded on the first mail, so an app without an email provider never loads it.
  const [{ createTransport }, { default: addressparser }] = await Promise.all([
    import('nodemailer'),
    import('nodemailer/lib/addressparser'),
  ]);
  const parsed = addressparser(identifier, { flatten: true });
  if (parsed.length !== 1 || parsed[0]!.address !== identifier || parsed[0]!.name !== '') {
    throw new Error('The recipient is not a single plain address; check normalizeIdentifier.');
  }

  const message = renderVerificationEmail({
    url,
    theme,
    purpose: params.purpose,
    ...(params.purpose === 'two-factor-code' ? { code: params.token } : {}),
  });
  const transport = createTransport(provider.server as string | SMTPTransportOptions);
  try {
    const info = await transport.sendMail({
      to: identifier,
      from: provider.from,
      subject: message.subject,
      text: message.text,
      html: message.html,
    });
    const refused = [...(info.rejected ?? []), ...(((info as { pending?: unknown[] }).pending ?? []) as string[])];
    if (refused.length > 0 || (info.accepted ?? []).length === 0) {
      throw new Error('The mail server did not accept the recipient.');
    }
  } finally {
    transport.close();
  }
}

/**
 * Email magic-link sign-in: `POST {basePath}/signin/email` (field `email`) sends a single-use
 * link; opening it shows a confirmation button that signs the user in (creating the user on the
 * first sign-in and setting `emailVerified`). Needs an adapter with verification-token methods.
 *
 * Defaults: id `email`, name `Email`, links valid 24 hours, 3 links per address and 30 per
 * client IP every 10 minutes, sent through nodemailer with `server` and `from`.
 *
 * @example
 * ```ts
 * Email({ server: process.env.EMAIL_SERVER, from: 'My App <no-reply@example.com>', maxAge: 15 * 60 })
 * // or your own sender (an HTTP mail API, a queue...):
 * Email({ async sendVerificationRequest({ identifier, url }) { await mailer.send(identifier, url); } })
 * ```
 */
export function Email(config: EmailUserConfig = {}): EmailConfig {
  return {
    id: 'email',
    type: 'email',
    name: 'Email',
    maxAge: EMAIL_DEFAULTS.maxAge,
    sendVerificationRequest: sendVerificationRequestWithNodemailer,
    normalizeIdentifier: defaultNormalizeIdentifier,
    options: config as Record<string, unknown>,
  };
}

/** Alias of {@link Email} (Auth.js names its SMTP provider `Nodemailer`); the id is still `email`. */
export const Nodemailer: typeof Email = Email;

/** The rate-limit settings of an email provider with defaults applied, or `null` when turned off. */
export function resolveEmailRateLimit(config: Pick<EmailConfig, 'rateLimit'>): Required<EmailRateLimitOptions> | null {
  if (config.rateLimit === false) return null;
  const limit = config.rateLimit ?? {};
  return {
    maxPerAddress: limit.maxPerAddress ?? EMAIL_DEFAULTS.maxPerAddress,
    maxPerIp: limit.maxPerIp ?? EMAIL_DEFAULTS.maxPerIp,
    windowSeconds: limit.windowSeconds ?? EMAIL_DEFAULTS.windowSeconds,
  };
}
