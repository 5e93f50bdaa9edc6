import { Inject, Injectable } from '@nestjs/common';
import { AUTH_CONFIG } from '../../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../../config/resolved-config.js';
import { MFA } from '../../session/assurance.js';
import { providerSidOf } from '../../session/provider-sid.js';
import type { SignInAttempt, SignInStep } from '../../sign-in/sign-in-method.js';
import type { AuthResponse } from '../../types/http.types.js';
import { PendingSignIns } from './two-factor.pending.js';
import { TwoFactors } from './two-factors.service.js';
import { RememberedDevices } from './two-factor.device.js';

/**
 * The second factor's step of the sign-in pipeline: it runs for every first factor (password,
 * magic link, OAuth/OIDC, passkey, an app's own method), so no sign-in path skips it. A user who has
 * a second factor, or whom the policy requires to have one, gets no session here: the sign-in is
 * sealed as pending (`PendingSignIns`) and the browser goes to `{basePath}/two-factor`. A first
 * factor that proved two factors by itself (a passkey that verified the user: `mfa`) goes on.
 */
@Injectable()
export class TwoFactorStep implements SignInStep {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly factors: TwoFactors,
    private readonly pending: PendingSignIns,
    private readonly devices: RememberedDevices,
  ) {}

  async run(attempt: SignInAttempt): Promise<AuthResponse | void> {
    const settings = this.config.twoFactor;
    if (!settings || attempt.amr.includes(MFA)) return;
    const { user, ctx } = attempt;
    const enrolled = (await this.factors.methods(user.id)).length > 0;
    if (!enrolled && !(await this.factors.required(user as never))) return;
    // A browser the user asked not to be asked again on, with their factors and password unchanged.
    if (await this.devices.recognises(ctx, user.id)) {
      attempt.proved.push('dev', MFA);
      return;
    }
    await this.pending.seal(ctx, {
      userId: user.id,
      account: attempt.account,
      ...(attempt.profile ? { profile: attempt.profile } : {}),
      isNewUser: attempt.isNewUser,
      amr: [...attempt.amr],
      callbackUrl: ctx.callbackUrl,
      ...(attempt.account.id_token ? { providerSid: providerSidOf(this.config, attempt.account) } : {}),
      until: Date.now() + settings.pendingMaxAge * 1000,
    });
    this.config.logger.debug('two_factor_pending', { enrolled });
    return { redirect: `${ctx.authUrl}/two-factor` };
  }
}
