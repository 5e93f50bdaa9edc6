import { createHash, randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type {
  AdapterUser,
  VerificationToken,
  VerificationTokensByIdentifierAdapter,
} from '../../adapters/adapter.interface.js';
import { AdapterService } from '../../core/adapter.service.js';
import { AUTH_CONFIG } from '../../config/auth.constants.js';
import type { InternalProvider, ResolvedAuthConfig } from '../../config/resolved-config.js';
import {
  AdapterError,
  AuthConfigurationError,
  EmailDeliveryError,
  EmailSignInError,
  Verification,
} from '../../errors/auth.errors.js';
import { loadRenderers } from '../../pages/load-renderers.js';
import {
  EMAIL_DEFAULTS,
  resolveEmailRateLimit,
  sendVerificationRequestWithNodemailer,
  verifySmtpServer,
} from './email.provider.js';
import type { EmailConfig } from './email.types.js';
import type { Account, Awaitable } from '../../types/common.types.js';
import { toAbsolute } from '../../core/callback-url.js';
import { hashEmailToken } from './email-token.js';
import { generateToken, normalize, readLink } from './email-input.js';
import { isExpiredDate } from '../../util/instant.js';
import type { AuthResponse } from '../../types/http.types.js';
import { clientIpBucket } from '../../rate-limit/client-ip.js';
import { RateLimiterService } from '../../rate-limit/rate-limiter.service.js';
import type { ProviderContext, ProviderFlow } from '../../core/request-context.js';
import { SignInService } from '../../sign-in/sign-in.service.js';
import { providerOfType } from '../../providers/internal-provider.js';
import { NO_STORE } from '../../util/cache-control.js';
import { toWebRequest } from '../../core/web-request.js';

/** Headers of every response that carries or follows a magic link. */
const LINK_HEADERS = {
  // The token is in the URL: never hand it to another site, never keep the page in a cache.
  // (`same-origin` rather than `no-referrer`: with the latter Chromium sends `Origin: null` on the
  // confirmation form's POST, which the same-origin check below could not tell from a forgery.)
  'Referrer-Policy': 'same-origin',
  'Cache-Control': NO_STORE,
  Pragma: 'no-cache',
  Expires: '0',
  // The confirmation button must not be clickable from inside someone else's frame.
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "frame-ancestors 'none'",
} as const;

/**
 * Email magic-link sign-in.
 *
 * `POST {basePath}/signin/<id>` (CSRF checked by the router): normalises `email`, applies the
 * per-address and per-IP limits, asks the `signIn` callback (`email.verificationRequest: true`),
 * stores a new token (only its keyed hash) and sends the link, then redirects to the
 * verify-request page. The answer is the same whether or not the address has an account.
 *
 * `GET {basePath}/callback/<id>?token&email&callbackUrl` shows a confirmation page whose button
 * `POST`s the same values; the `POST` uses the token (atomically: one sign-in per link) and signs
 * the user in. With `consumeOnGet: true` the `GET` signs in directly, as Auth.js does.
 */
@Injectable()
export class EmailService implements ProviderFlow, OnApplicationBootstrap {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly adapters: AdapterService,
    private readonly signIns: SignInService,
    private readonly limiter: RateLimiterService,
  ) {}

  /**
   * `verifyOnStartup`: every email provider that sends through `server` with the built-in sender
   * connects to it now, so a wrong host, port or password stops the start with its cause instead
   * of failing the first sign-in.
   */
  async onApplicationBootstrap(): Promise<void> {
    const problems: string[] = [];
    const causes: unknown[] = [];
    for (const provider of this.config.providers) {
      if (provider.type !== 'email') continue;
      const { config } = providerOfType(provider, 'email');
      const verify = config.verifyOnStartup ?? process.env.NODE_ENV === 'production';
      if (!verify || !config.server || config.sendVerificationRequest !== sendVerificationRequestWithNodemailer)
        continue;
      try {
        await verifySmtpServer(config.server, EMAIL_DEFAULTS.verifyTimeoutMs);
      } catch (error) {
        causes.push(error);
        const reason = error instanceof Error ? error.message : String(error);
        problems.push(
          `providers "${config.id}": the SMTP server (\`server\`) did not accept a connection at bootstrap: ${reason} (set verifyOnStartup: false to skip this check).`,
        );
      }
    }
    if (problems.length > 0)
      throw new AuthConfigurationError(problems, { cause: causes.length === 1 ? causes[0] : causes });
  }

  /** The link's lifetime, which the verify-request page states. */
  linkMaxAge(provider: InternalProvider): number {
    return providerOfType(provider, 'email').config.maxAge ?? EMAIL_DEFAULTS.maxAge;
  }

  async signIn(ctx: ProviderContext): Promise<AuthResponse> {
    const provider = providerOfType(ctx.provider, 'email').config;
    // Fails with MissingAdapterMethods before anything is counted, stored or sent.
    const adapter = this.adapters.require(
      'createVerificationToken',
      'useVerificationToken',
      'getUserByEmail',
      'createUser',
      'updateUser',
    );

    const identifier = normalize(provider, ctx.request.body.email);
    await this.countRequest(ctx, provider, identifier);

    // The signIn callback may refuse before any mail goes out (e.g. an allow-list of addresses).
    const known = await adapter.getUserByEmail(identifier);
    const user: AdapterUser = known ?? { id: randomUUID(), email: identifier, emailVerified: null };
    const account: Account = { provider: provider.id, providerAccountId: identifier, userId: user.id, type: 'email' };
    await this.signIns.runSignInCallback(ctx, { user, account, email: { verificationRequest: true } });

    const token = await generateToken(provider);
    const expires = new Date(Date.now() + (provider.maxAge ?? EMAIL_DEFAULTS.maxAge) * 1000);
    const hashed = hashEmailToken(this.secrets(provider)[0]!, identifier, token, provider.tokenHash);
    await this.supersedeOlderLinks(identifier);
    await adapter.createVerificationToken({ identifier, token: hashed, expires });

    const url = new URL(ctx.providerCallbackUrl);
    url.searchParams.set('callbackUrl', ctx.callbackUrl);
    url.searchParams.set('token', token);
    url.searchParams.set('email', identifier);

    const send =
      typeof provider.sendVerificationRequest === 'function'
        ? provider.sendVerificationRequest
        : sendVerificationRequestWithNodemailer;
    try {
      await send({
        identifier,
        url: url.href,
        expires,
        provider,
        token,
        theme: this.config.theme,
        request: toWebRequest(ctx.request, { cookies: false, omit: ['csrfToken'] }),
      });
    } catch (error) {
      // The link never reached anyone: take the token back so no usable row is left behind.
      await Promise.resolve()
        .then(() => adapter.useVerificationToken({ identifier, token: hashed }))
        .catch(() => undefined);
      if (error instanceof EmailSignInError) throw error;
      throw new EmailDeliveryError(
        `The sign-in email of provider ${JSON.stringify(provider.id)} could not be sent (${(error as Error)?.name ?? 'Error'}); check the mail server settings.`,
        { cause: error },
      );
    }

    // `email`: the page says where the link went (the address as typed, so nothing about accounts).
    const params = { provider: provider.id, type: 'email', email: identifier };
    const page = this.config.pages.verifyRequest;
    const target = new URL(page ? toAbsolute(page, ctx.origin) : `${ctx.authUrl}/verify-request`);
    for (const [k, v] of Object.entries(params)) target.searchParams.set(k, v);
    return { redirect: target.href };
  }

  async callback(ctx: ProviderContext): Promise<AuthResponse> {
    const provider = providerOfType(ctx.provider, 'email').config;
    const { method } = ctx.request;
    const source: Record<string, unknown> = method === 'POST' ? ctx.request.body : ctx.request.query;
    const { token, identifier } = readLink(provider, source);

    if (method !== 'POST' && provider.consumeOnGet !== true) {
      const { renderEmailConfirmPage } = await loadRenderers();
      return {
        headers: { ...LINK_HEADERS },
        html: renderEmailConfirmPage({
          action: ctx.providerCallbackUrl,
          token,
          email: identifier,
          callbackUrl: ctx.callbackUrl,
          theme: this.config.theme,
          messages: this.config.messages,
        }),
      };
    }
    // The confirming POST passed the router's same-origin check (login CSRF: a post from another
    // site could sign a victim into the attacker's account).

    const adapter = this.adapters.require('useVerificationToken', 'getUserByEmail', 'createUser', 'updateUser');
    const invite = await this.consume(adapter.useVerificationToken, provider, identifier, token);
    if (!invite) throw new Verification('The sign-in link is invalid or was already used; request a new one.');
    if (isExpiredDate(invite.expires)) throw new Verification('The sign-in link has expired; request a new one.');
    if (invite.identifier !== identifier)
      throw new Verification('The sign-in link does not belong to this address; request a new one.');

    const response = await this.signIns.completeSignIn(ctx, {
      user: { email: identifier },
      account: { provider: provider.id, providerAccountId: identifier, type: 'email' },
      email: { verificationRequest: false },
    });
    return { ...response, headers: { ...LINK_HEADERS, ...response.headers } };
  }

  /**
   * Uses the token: one atomic `useVerificationToken` per secret, newest first, until one
   * matches. A token is stored under exactly one secret's hash, so whatever the number of
   * secrets, only one call across all concurrent requests can return its row.
   */
  private async consume(
    use: (params: { identifier: string; token: string }) => Awaitable<VerificationToken | null>,
    provider: EmailConfig,
    identifier: string,
    token: string,
  ): Promise<VerificationToken | null> {
    for (const secret of this.secrets(provider)) {
      const invite = await use({ identifier, token: hashEmailToken(secret, identifier, token, provider.tokenHash) });
      if (invite) return invite;
    }
    return null;
  }

  /** The keys of the token hash: the provider's own secret, else the module's (first one hashes, any verifies). */
  private secrets(provider: EmailConfig): string[] {
    const own = provider.secret as unknown;
    if (typeof own === 'string' && own) return [own];
    if (Array.isArray(own) && own.length && own.every((s) => typeof s === 'string' && s)) return own as string[];
    return this.config.secrets;
  }

  /**
   * Only the latest link of an address works: its older tokens are deleted before the new one is
   * stored, when the adapter can (`deleteVerificationTokensByIdentifier`: TypeOrmAdapter,
   * MemoryAdapter). Without it older links stay valid until they expire, as in Auth.js.
   */
  private async supersedeOlderLinks(identifier: string): Promise<void> {
    const adapter = this.adapters.raw as Partial<VerificationTokensByIdentifierAdapter> | null;
    if (typeof adapter?.deleteVerificationTokensByIdentifier !== 'function') return;
    try {
      await adapter.deleteVerificationTokensByIdentifier(identifier);
    } catch (error) {
      // The driver's message may quote the address: keep it out of ours (it stays as `cause`).
      throw new AdapterError(
        `The adapter's deleteVerificationTokensByIdentifier failed (${(error as Error)?.name ?? 'Error'}). Check the database connection and schema.`,
        { cause: error },
      );
    }
  }

  /** Counts this request per address and per client IP; over either limit → `RateLimited`. */
  private async countRequest(ctx: ProviderContext, provider: EmailConfig, identifier: string): Promise<void> {
    const rule = resolveEmailRateLimit(provider);
    if (!rule) return;
    const prefix = `email:${provider.id}`;
    // The address is hashed: the counter store never holds addresses.
    const { windowSeconds } = rule;
    const hits = [
      {
        key: `${prefix}:addr:${createHash('sha256').update(identifier).digest('base64url')}`,
        limit: rule.maxPerAddress,
        windowSeconds,
      },
    ];
    const ip = clientIpBucket(ctx.request.ip);
    if (ip) hits.push({ key: `${prefix}:ip:${ip}`, limit: rule.maxPerIp, windowSeconds });
    // Both counters move; the refusal with the longest wait wins.
    await this.limiter.hitAll(hits);
  }
}
