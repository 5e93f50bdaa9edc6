import { Inject, Injectable } from '@nestjs/common';
import { AUTH_CONFIG } from '../../config/auth.constants.js';
import type { InternalProvider, ResolvedAuthConfig } from '../../config/resolved-config.js';
import { AdapterService } from '../../core/adapter.service.js';
import type { ProviderContext, RequestContext } from '../../core/request-context.js';
import { WebAuthnVerificationError } from '../../errors/auth.errors.js';
import { providerOfType } from '../../providers/internal-provider.js';
import type { SecondFactorProvider } from '../../sign-in/sign-in-method.js';
import { WebAuthnAuthenticationService } from './webauthn-authentication.service.js';
import { WebAuthnChallengeService } from './webauthn-challenge.service.js';
import { webauthnServer, type WebAuthnServer } from './webauthn-server.js';
import {
  ceremonySettings,
  parseCallbackBody,
  resolveRelyingParty,
  splitTransports,
  wireCredentialId,
  passkeyAmr,
} from './webauthn.utils.js';
import { listPasskeys } from './passkeys.js';

/**
 * A passkey as the second factor of a sign-in whose first factor was something else (a password,
 * a magic link, an identity provider): the two-factor challenge offers it to a user who has one
 * through the first WebAuthn provider, with that user's credentials only. The challenge is sealed
 * for this ceremony alone (a sign-in's challenge does not serve, nor the other way round), bound to
 * the user, used once; the counter moves only when the answer is right.
 */
@Injectable()
export class WebAuthnSecondFactor implements SecondFactorProvider {
  readonly method = 'passkey';

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly adapters: AdapterService,
    private readonly challenges: WebAuthnChallengeService,
    private readonly authentication: WebAuthnAuthenticationService,
  ) {}

  /** The WebAuthn provider passkeys prove the second factor through (the first configured). */
  private get provider(): InternalProvider | undefined {
    return this.config.providers.find((p) => p.type === 'webauthn');
  }

  async available(userId: string, _firstFactor: readonly string[]): Promise<boolean> {
    const provider = this.provider;
    if (!provider) return false;
    return (await listPasskeys(this.adapters, this.config, userId)).some((p) => p.provider === provider.id);
  }

  async options(ctx: RequestContext, userId: string): Promise<unknown> {
    const pctx = this.contextOf(ctx);
    const config = providerOfType(pctx.provider, 'webauthn').config;
    const settings = ceremonySettings(config);
    const rp = resolveRelyingParty(config, ctx.origin);
    const passkeys = (await listPasskeys(this.adapters, this.config, userId)).filter(
      (p) => p.provider === pctx.provider.id,
    );
    if (!passkeys.length) throw new WebAuthnVerificationError('You have no passkey to use here.');
    const options = await (
      await webauthnServer()
    ).generateAuthenticationOptions({
      rpID: rp.id,
      userVerification: config.authenticationOptions?.userVerification ?? settings.userVerification,
      allowCredentials: passkeys.map((p) => ({
        id: wireCredentialId(p.credentialID),
        transports: splitTransports(p.transports.join(',')),
      })),
      ...(config.authenticationOptions?.timeout ? { timeout: config.authenticationOptions.timeout } : {}),
    } as Parameters<WebAuthnServer['generateAuthenticationOptions']>[0]);
    await this.challenges.seal(pctx, options.challenge, { action: 'second-factor', userId }, settings.challengeMaxAge);
    return options;
  }

  async verify(ctx: RequestContext, userId: string, body: Record<string, unknown>): Promise<string[]> {
    const pctx = this.contextOf(ctx);
    const config = providerOfType(pctx.provider, 'webauthn').config;
    const parsed = parseCallbackBody(body);
    if (parsed.action !== 'authenticate')
      throw new WebAuthnVerificationError('A passkey proves a second factor with action=authenticate.');
    const challenge = await this.challenges.open(pctx, 'second-factor');
    // Bound to the user of the pending sign-in: their passkey, nobody else's.
    if (challenge.data.userId !== userId)
      throw new WebAuthnVerificationError('This passkey challenge was made for another sign-in; start again.');
    const verified = await this.authentication.verify(
      pctx,
      config,
      resolveRelyingParty(config, ctx.origin),
      parsed.response,
      challenge,
    );
    await this.authentication.moveCounter(verified);
    return passkeyAmr(verified.userVerified);
  }

  private contextOf(ctx: RequestContext): ProviderContext {
    const provider = this.provider;
    if (!provider) throw new WebAuthnVerificationError('Passkeys are not offered by this app.');
    return {
      ...ctx,
      provider,
      signinUrl: `${ctx.authUrl}/signin/${provider.id}`,
      providerCallbackUrl: `${ctx.authUrl}/callback/${provider.id}`,
    };
  }
}
