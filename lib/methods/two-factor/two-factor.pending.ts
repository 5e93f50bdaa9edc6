import { Inject, Injectable } from '@nestjs/common';
import { AUTH_CONFIG } from '../../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../../config/resolved-config.js';
import type { RequestContext } from '../../core/request-context.js';
import { InvalidCheck } from '../../errors/auth.errors.js';
import { cleanAmr } from '../../session/assurance.js';
import { ChecksService, type OpenedCheck } from '../../sign-in/checks.service.js';
import type { Account, Profile } from '../../types/common.types.js';

/** The check a pending sign-in is sealed for (a check cookie bound to this name, like a provider's). */
const PENDING = 'two-factor';
/** Longest sealed value kept whole; past it the profile, then the account's tokens, are left out. */
const MAX_SEALED = 3600;

/**
 * A sign-in waiting for its second factor: who proved the first factor, how, and where the sign-in
 * goes afterwards. Sealed in the `authjs.two-factor` cookie (a JWE under the auth secret, HttpOnly,
 * bound to this browser), never a session: nothing about it signs anyone in. It expires
 * (`twoFactor.pendingMaxAge`), and completing it consumes it (a replay is refused).
 */
export interface PendingSignIn {
  userId: string;
  /** The first factor's account (its ID token left out: the `sid` it carried is `providerSid`). */
  account: Account;
  profile?: Profile;
  isNewUser: boolean;
  /** What the first factor proved. */
  amr: string[];
  callbackUrl: string;
  providerSid?: string;
  /** When the pending state ends (ms). */
  until: number;
  /** A required enrolment's secret (sealed), once the enrolment page made one. */
  enrolSecret?: string;
}

/** Seals, opens, renews and consumes the pending state (see {@link PendingSignIn}). */
@Injectable()
export class PendingSignIns {
  /** The opened check of each pending sign-in {@link open} returned, for {@link consume}. */
  private readonly opened = new WeakMap<PendingSignIn, OpenedCheck>();

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly checks: ChecksService,
  ) {}

  /** Seals `pending` into the cookie (for what is left of its lifetime). */
  async seal(ctx: RequestContext, pending: PendingSignIn): Promise<void> {
    const maxAge = Math.max(1, Math.ceil((pending.until - Date.now()) / 1000));
    const { id_token: _idToken, ...account } = pending.account;
    const data: Record<string, unknown> = {
      acc: account,
      amr: pending.amr,
      cb: pending.callbackUrl,
      nu: pending.isNewUser,
      until: pending.until,
      ...(pending.providerSid ? { sid: pending.providerSid } : {}),
      ...(pending.enrolSecret ? { enrol: pending.enrolSecret } : {}),
    };
    // A cookie holds about 4 kB: the profile goes first, then the account's tokens (the account
    // itself stays: it is what the second factor completes).
    const { provider, providerAccountId, type } = pending.account;
    const tries = [
      ...(pending.profile ? [{ ...data, pr: pending.profile }] : []),
      data,
      { ...data, acc: { provider, providerAccountId, type } },
    ];
    for (const [i, attempt] of tries.entries()) {
      const sink: RequestContext = { ...ctx, responseCookies: [] };
      await this.checks.seal(sink, 'twoFactor', pending.userId, { provider: PENDING, maxAge, data: attempt });
      const cookie = sink.responseCookies[0]!;
      if (cookie.value.length <= MAX_SEALED || i === tries.length - 1) {
        if (i > 0) this.config.logger.debug('two_factor_pending_trimmed', { dropped: i });
        ctx.responseCookies.push(cookie);
        return;
      }
    }
  }

  /**
   * The request's pending sign-in, left in place (a wrong code may be retried). `InvalidCheck` when
   * there is none, it expired, or it does not open (altered, another secret).
   */
  async open(ctx: RequestContext): Promise<PendingSignIn> {
    const opened = await this.checks.open(ctx, 'twoFactor', PENDING, { keep: true });
    const d = opened.data ?? {};
    const account = d.acc as Account | undefined;
    const until = typeof d.until === 'number' ? d.until : 0;
    if (
      !account ||
      typeof account.provider !== 'string' ||
      typeof account.providerAccountId !== 'string' ||
      typeof account.type !== 'string' ||
      typeof d.cb !== 'string' ||
      until < Date.now()
    ) {
      this.discard(ctx);
      throw new InvalidCheck('The sign-in waiting for a second factor has expired: sign in again.');
    }
    const pending: PendingSignIn = {
      userId: opened.value,
      account,
      ...(d.pr && typeof d.pr === 'object' ? { profile: d.pr as Profile } : {}),
      isNewUser: d.nu === true,
      amr: cleanAmr(d.amr),
      callbackUrl: d.cb,
      ...(typeof d.sid === 'string' ? { providerSid: d.sid } : {}),
      until,
      ...(typeof d.enrol === 'string' ? { enrolSecret: d.enrol } : {}),
    };
    this.opened.set(pending, opened);
    return pending;
  }

  /**
   * Uses the pending sign-in up, so of two requests that complete the same one (a replayed cookie),
   * one goes on; the cookie is deleted. `pending`: what {@link open} returned in this request (its
   * cookie is not decrypted again); else the cookie is opened once more.
   */
  async consume(ctx: RequestContext, pending?: PendingSignIn): Promise<void> {
    const opened = pending && this.opened.get(pending);
    if (opened) await this.checks.consume(ctx, 'twoFactor', opened);
    else await this.checks.open(ctx, 'twoFactor', PENDING, { consume: true });
  }

  /** Deletes the cookie (the user chose to sign in another way). */
  discard(ctx: RequestContext): void {
    this.checks.discard(ctx, 'twoFactor');
  }
}
