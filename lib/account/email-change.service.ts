import { createHash, createHmac } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { VerificationTokensByIdentifierAdapter } from '../adapters/adapter.interface.js';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { AdapterService } from '../core/adapter.service.js';
import { AuthEvents } from '../core/auth-events.js';
import {
  AdapterConflictError,
  AuthConfigurationError,
  EmailInUse,
  EmailDeliveryError,
  EmailSignInError,
  InvalidRequest,
  Verification,
} from '../errors/auth.errors.js';
import {
  EMAIL_DEFAULTS,
  emailProviderOf,
  generateToken,
  isPlausibleToken,
  normalize,
  resolveEmailRateLimit,
  sendVerificationRequestWithNodemailer,
} from '../methods/email/index.js';
import type { EmailConfig, SendVerificationRequestParams } from '../methods/email/email.types.js';
import { RateLimiterService } from '../rate-limit/rate-limiter.service.js';
import { SessionCache } from '../session/session-cache.js';
import { isExpiredDate } from '../util/instant.js';

/** Where the links of an email change point, and the request that asked (for the sender). */
export interface EmailChangeLinks {
  /** `origin + basePath`: the confirmation link is `{authUrl}/account/email/confirm`. */
  authUrl: string;
  /** The request that asked for the change, handed to the sender (a bare GET of the link otherwise). */
  request?: Request;
}

/**
 * Changing a user's email address: a single-use link to the new address (sent through the email
 * provider's sender), which confirms the change when followed by the same signed-in user; the old
 * address is told afterwards. The link's token is stored as an HMAC over the user id, the new
 * address and the token, under an identifier derived from both, so it only ever changes that
 * user's address to that address, and only once (`useVerificationToken` is atomic).
 */
@Injectable()
export class EmailChangeService {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly adapters: AdapterService,
    private readonly cache: SessionCache,
    private readonly limiter: RateLimiterService,
    private readonly events: AuthEvents,
  ) {}

  /** Whether an email provider is configured (the change needs its sender). */
  get available(): boolean {
    return emailProviderOf(this.config) !== undefined;
  }

  /**
   * Sends the confirmation link to `newEmail` (normalised as the email sign-in normalises it).
   * Nothing changes until the link is followed. Answers the same whether or not another user has
   * the address (that is checked when the link is followed, by the address's owner).
   */
  async request(userId: string, newEmail: unknown, links: EmailChangeLinks): Promise<{ email: string; expires: Date }> {
    const provider = this.provider();
    const adapter = this.adapters.require('getUser', 'createVerificationToken', 'useVerificationToken');
    const email = normalize(provider, newEmail);
    const user = typeof userId === 'string' && userId ? await adapter.getUser(userId) : null;
    if (!user) throw new InvalidRequest('There is no such user.');
    if (user.email === email) throw new InvalidRequest('This is already the address of the account.');
    await this.count(provider, userId, email);

    const token = await generateToken(provider);
    const expires = new Date(Date.now() + (provider.maxAge ?? EMAIL_DEFAULTS.maxAge) * 1000);
    const identifier = identifierOf(userId, email);
    const hashed = tokenHash(this.secrets(provider)[0]!, userId, email, token);
    // Only the latest link of a change works.
    const raw = this.adapters.raw as Partial<VerificationTokensByIdentifierAdapter> | null;
    if (typeof raw?.deleteVerificationTokensByIdentifier === 'function')
      await raw.deleteVerificationTokensByIdentifier(identifier);
    await adapter.createVerificationToken({ identifier, token: hashed, expires });

    const url = new URL(`${links.authUrl}/account/email/confirm`);
    url.searchParams.set('token', token);
    url.searchParams.set('email', email);
    try {
      await this.send(provider, { identifier: email, url: url.href, expires, token, purpose: 'email-change' }, links);
    } catch (error) {
      // The link never reached anyone: take the token back.
      await Promise.resolve()
        .then(() => adapter.useVerificationToken({ identifier, token: hashed }))
        .catch(() => undefined);
      throw new EmailDeliveryError(
        `The confirmation email could not be sent (${(error as Error)?.name ?? 'Error'}); check the mail server settings.`,
        { cause: error },
      );
    }
    this.events.emit('accountChange', { action: 'email.change-requested', userId });
    return { email, expires };
  }

  /**
   * Follows a confirmation link for the signed-in `userId`: uses the token (once), refuses an
   * address another user has meanwhile (`EmailInUse`), stores the new address as verified and
   * tells the old one. Returns both addresses.
   */
  async confirm(
    userId: string,
    token: unknown,
    rawEmail: unknown,
    links: EmailChangeLinks,
  ): Promise<{ email: string; previous: string | null }> {
    const provider = this.provider();
    const adapter = this.adapters.require('getUser', 'getUserByEmail', 'updateUser', 'useVerificationToken');
    const invalid = () => new Verification('The confirmation link is invalid or was already used; ask for a new one.');
    if (!isPlausibleToken(token) || typeof rawEmail !== 'string') throw invalid();
    let email: string;
    try {
      email = normalize(provider, rawEmail);
    } catch {
      throw invalid();
    }
    const identifier = identifierOf(userId, email);
    let invite = null;
    for (const secret of this.secrets(provider)) {
      invite = await adapter.useVerificationToken({ identifier, token: tokenHash(secret, userId, email, token) });
      if (invite) break;
    }
    if (!invite) throw invalid();
    if (isExpiredDate(invite.expires)) throw new Verification('The confirmation link has expired; ask for a new one.');

    const user = await adapter.getUser(userId);
    if (!user) throw new InvalidRequest('There is no such user.');
    const owner = await adapter.getUserByEmail(email);
    if (owner && owner.id !== userId) throw new EmailInUse('Another account uses this email address.');
    try {
      await adapter.updateUser({ id: userId, email, emailVerified: new Date() });
    } catch (error) {
      // The unique index caught an owner that appeared in between.
      if (error instanceof AdapterConflictError) throw new EmailInUse('Another account uses this email address.');
      throw error;
    }
    this.cache.forgetUser(userId);
    const previous = user.email ?? null;
    if (previous && previous !== email) await this.notify(provider, previous, links);
    this.events.emit('updateUser', { user: { ...user, email } });
    this.events.emit('accountChange', { action: 'email.changed', userId });
    return { email, previous };
  }

  /** Tells the old address about the change; a failure is logged, never undoes the change. */
  private async notify(provider: EmailConfig, previous: string, links: EmailChangeLinks): Promise<void> {
    const url = `${links.authUrl}/account`;
    const expires = new Date();
    try {
      await this.send(
        provider,
        { identifier: previous, url, expires, token: '', purpose: 'email-change-notice' },
        links,
      );
    } catch (error) {
      this.config.logger.error(
        new EmailSignInError(
          `The notice of an email change could not be sent to the old address (${(error as Error)?.name ?? 'Error'}).`,
        ),
      );
    }
  }

  private async send(
    provider: EmailConfig,
    params: Pick<SendVerificationRequestParams, 'identifier' | 'url' | 'expires' | 'token' | 'purpose'>,
    links: EmailChangeLinks,
  ): Promise<void> {
    const send =
      typeof provider.sendVerificationRequest === 'function'
        ? provider.sendVerificationRequest
        : sendVerificationRequestWithNodemailer;
    await send({ ...params, provider, theme: this.config.theme, request: links.request ?? new Request(params.url) });
  }

  /** Per user and per new address, with the email provider's limits (a mail goes out each time). */
  private async count(provider: EmailConfig, userId: string, email: string): Promise<void> {
    const rule = resolveEmailRateLimit(provider);
    if (!rule) return;
    const { windowSeconds, maxPerAddress } = rule;
    await this.limiter.hitAll([
      { key: `account:email-change:user:${digest(userId)}`, limit: maxPerAddress, windowSeconds },
      { key: `account:email-change:addr:${digest(email)}`, limit: maxPerAddress, windowSeconds },
    ]);
  }

  /** The first email provider: its sender, normaliser, token lifetime and secret are used. */
  private provider(): EmailConfig {
    const provider = emailProviderOf(this.config);
    if (!provider)
      throw new AuthConfigurationError([
        'changing the email address needs an email provider (Email({ server, from }) or your own sendVerificationRequest)',
      ]);
    return provider.config;
  }

  private secrets(provider: EmailConfig): string[] {
    const own = provider.secret as unknown;
    if (typeof own === 'string' && own) return [own];
    return this.config.secrets;
  }
}

/** The verification-token identifier of a change: fixed length, naming neither the user nor the address. */
function identifierOf(userId: string, email: string): string {
  return `email-change:${digest(`${userId}\0${email}`)}`;
}

function tokenHash(secret: string, userId: string, email: string, token: string): string {
  return createHmac('sha256', secret).update(`nestjs-auth:email-change\0${userId}\0${email}\0${token}`).digest('hex');
}

function digest(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}
