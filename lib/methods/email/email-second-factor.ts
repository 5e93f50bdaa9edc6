import { createHmac, randomInt } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { VerificationTokensByIdentifierAdapter } from '../../adapters/adapter.interface.js';
import { AUTH_CONFIG } from '../../config/auth.constants.js';
import type { InternalProvider, ResolvedAuthConfig } from '../../config/resolved-config.js';
import { AdapterService } from '../../core/adapter.service.js';
import type { RequestContext } from '../../core/request-context.js';
import { toWebRequest } from '../../core/web-request.js';
import { EmailDeliveryError, InvalidTwoFactorCode } from '../../errors/auth.errors.js';
import { providerOfType } from '../../providers/internal-provider.js';
import { RateLimiterService } from '../../rate-limit/rate-limiter.service.js';
import type { SecondFactorProvider } from '../../sign-in/sign-in-method.js';
import { isExpiredDate } from '../../util/instant.js';
import { sendVerificationRequestWithNodemailer } from './email.provider.js';
import type { EmailConfig } from './email.types.js';

/** Seconds a code works. */
const CODE_MAX_AGE = 10 * 60;
/** Mails per user in {@link SEND_WINDOW} seconds. */
const SENDS = 3;
const SEND_WINDOW = 15 * 60;
/** Digits of a code: with the challenge's lockout (5 tries per 15 minutes) a guess has 1 in 200,000. */
const DIGITS = 6;

/**
 * A one-time code by email as the second factor (`twoFactor.emailCode`), for users without an
 * authenticator app: 6 digits, valid 10 minutes, used once (the adapter's atomic
 * `useVerificationToken`; a new code replaces the older ones), 3 mails per user per 15 minutes.
 * Sent to the user's verified address through the first email provider's sender (purpose
 * `two-factor-code`). Not offered after a magic link: the same inbox would prove both factors.
 */
@Injectable()
export class EmailSecondFactor implements SecondFactorProvider {
  readonly method = 'email-code';
  readonly sends = true;

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly adapters: AdapterService,
    private readonly limiter: RateLimiterService,
  ) {}

  private get provider(): InternalProvider | undefined {
    return this.config.twoFactor?.emailCode ? this.config.providers.find((p) => p.type === 'email') : undefined;
  }

  async available(userId: string, firstFactor: readonly string[]): Promise<boolean> {
    if (!this.provider || firstFactor.includes('email')) return false;
    return (await this.addressOf(userId)) !== null;
  }

  async options(ctx: RequestContext, userId: string): Promise<unknown> {
    const provider = this.provider;
    const address = await this.addressOf(userId);
    if (!provider || !address) throw new InvalidTwoFactorCode('A code by email is not available for this account.');
    const config = providerOfType(provider, 'email').config;
    await this.limiter.hit(`two-factor:email:${userId}`, { limit: SENDS, windowSeconds: SEND_WINDOW });
    const adapter = this.adapters.require('createVerificationToken', 'useVerificationToken');
    const identifier = identifierOf(userId);
    const code = String(randomInt(0, 10 ** DIGITS)).padStart(DIGITS, '0');
    const expires = new Date(Date.now() + CODE_MAX_AGE * 1000);
    // Only the newest code works.
    const byIdentifier = this.adapters.raw as Partial<VerificationTokensByIdentifierAdapter> | null;
    if (typeof byIdentifier?.deleteVerificationTokensByIdentifier === 'function')
      await byIdentifier.deleteVerificationTokensByIdentifier(identifier);
    const token = hashCode(this.config.secrets[0]!, identifier, code);
    await adapter.createVerificationToken({ identifier, token, expires });
    const send =
      typeof config.sendVerificationRequest === 'function'
        ? config.sendVerificationRequest
        : sendVerificationRequestWithNodemailer;
    try {
      await send({
        identifier: address,
        url: `${ctx.authUrl}/two-factor`,
        expires,
        provider: config as EmailConfig,
        token: code,
        theme: this.config.theme,
        request: toWebRequest(ctx.request, { cookies: false, omit: ['csrfToken', 'code'] }),
        purpose: 'two-factor-code',
      });
    } catch (error) {
      await Promise.resolve()
        .then(() => adapter.useVerificationToken({ identifier, token }))
        .catch(() => undefined);
      throw new EmailDeliveryError('The code could not be sent by email; try again, or use another way.', {
        cause: error,
      });
    }
    return { sent: true, to: masked(address), expires: expires.toISOString() };
  }

  async verify(_ctx: RequestContext, userId: string, body: Record<string, unknown>): Promise<string[]> {
    const code = typeof body.code === 'string' ? body.code.replace(/\s+/g, '') : '';
    if (!/^\d{6}$/.test(code)) throw new InvalidTwoFactorCode('Enter the 6-digit code from the email.');
    const adapter = this.adapters.require('useVerificationToken');
    const identifier = identifierOf(userId);
    // Any configured secret (rotation), each an atomic single use.
    for (const secret of this.config.secrets) {
      const used = await adapter.useVerificationToken({ identifier, token: hashCode(secret, identifier, code) });
      if (used && !isExpiredDate(used.expires)) return ['email'];
      if (used) break;
    }
    throw new InvalidTwoFactorCode('That code did not work, has expired, or was used already: ask for a new one.');
  }

  /** The user's address, when something proved it (a code goes to a verified address only). */
  private async addressOf(userId: string): Promise<string | null> {
    const user = await this.adapters.require('getUser').getUser(userId);
    return user?.email && user.emailVerified ? user.email : null;
  }
}

/** The verification token's identifier of a user's codes (never an address: apart from magic links). */
function identifierOf(userId: string): string {
  return `two-factor:${userId}`;
}

function hashCode(secret: string, identifier: string, code: string): string {
  return createHmac('sha256', secret).update(`nestjs-auth:two-factor-email\0${identifier}\0${code}`).digest('hex');
}

/** `j•••@example.com`: where the code went, without the address in full. */
function masked(address: string): string {
  const at = address.lastIndexOf('@');
  return at > 0 ? `${address[0]}•••${address.slice(at)}` : '•••';
}
