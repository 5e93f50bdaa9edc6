import { createHmac, hkdfSync } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AUTH_CONFIG } from '../../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../../config/resolved-config.js';
import type { RequestContext } from '../../core/request-context.js';
import { ChecksService } from '../../sign-in/checks.service.js';
import { constantTimeEqual } from '../../util/constant-time.js';
import { TwoFactors } from './two-factors.service.js';

/** The check the remembered-device cookie is sealed for. */
const DEVICE = 'two-factor-device';

/**
 * "Don't ask again on this device" (`twoFactor.rememberDevice`): a sealed, HttpOnly cookie for one
 * user that lets this browser's sign-ins of that user skip the second factor until it expires. It
 * carries a fingerprint of what the user's second factor and password are now (their apps, when
 * their backup codes were made, their password hash), keyed with the auth secret: adding or
 * removing an app, new backup codes, a reset or a new password change the fingerprint, and every
 * remembered device then asks again. Nothing is stored.
 */
@Injectable()
export class RememberedDevices {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly checks: ChecksService,
    private readonly factors: TwoFactors,
  ) {}

  /** Whether the option is on. */
  get enabled(): boolean {
    return (this.config.twoFactor?.rememberDevice ?? 0) > 0;
  }

  /** Remembers this browser for the user (the cookie is added to the response). */
  async remember(ctx: RequestContext, userId: string): Promise<void> {
    const maxAge = this.config.twoFactor?.rememberDevice ?? 0;
    if (maxAge <= 0) return;
    const fp = await this.fingerprint(userId);
    await this.checks.seal(ctx, 'twoFactorDevice', userId, { provider: DEVICE, maxAge, data: { fp } });
  }

  /**
   * Whether this browser is remembered for the user, with the user's factors and password as they
   * were then. A cookie that does not open, is another user's, or whose fingerprint no longer
   * matches is deleted.
   */
  async recognises(ctx: RequestContext, userId: string): Promise<boolean> {
    if (!this.enabled || !ctx.request.cookies[ctx.cookies.twoFactorDevice.name]) return false;
    let opened: { value: string; data?: Record<string, unknown> };
    try {
      opened = await this.checks.open(ctx, 'twoFactorDevice', DEVICE, { keep: true });
    } catch {
      this.checks.discard(ctx, 'twoFactorDevice');
      return false;
    }
    const fp = opened.data?.fp;
    const ok =
      opened.value === userId && typeof fp === 'string' && constantTimeEqual(fp, await this.fingerprint(userId));
    // Another user's cookie stays (a shared browser); a stale one of this user goes.
    if (!ok && opened.value === userId) this.checks.discard(ctx, 'twoFactorDevice');
    return ok;
  }

  private async fingerprint(userId: string): Promise<string> {
    const password = await this.passwordHash(userId);
    const key = hkdfSync('sha256', this.config.secrets[0]!, 'nestjs-auth', 'two-factor device v1', 32);
    return createHmac('sha256', new Uint8Array(key))
      .update(`${userId}\u0000${await this.factors.fingerprintOf(userId)}\u0000${password}`)
      .digest('base64url');
  }

  /** The user's password hash where the app's `passwordStore` keeps one ('' when none). */
  private async passwordHash(userId: string): Promise<string> {
    const credentials = this.config.providers.find((p) => p.type === 'credentials');
    // The credentials provider's `passwordStore`, read structurally (a method imports no other method).
    const store = (credentials?.config as { passwordStore?: { getPasswordHash(id: string): unknown } } | undefined)
      ?.passwordStore;
    if (!store) return '';
    const hash: unknown = await store.getPasswordHash(userId);
    return typeof hash === 'string' ? hash : '';
  }
}
