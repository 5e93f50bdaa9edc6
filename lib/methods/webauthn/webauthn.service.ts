import { Injectable } from '@nestjs/common';
import { AdapterService } from '../../core/adapter.service.js';
import { InvalidRequest } from '../../errors/auth.errors.js';
import type { WebAuthnConfig } from './webauthn.types.js';
import type { AuthResponse } from '../../types/http.types.js';
import type { ProviderContext, ProviderFlow } from '../../core/request-context.js';
import { WebAuthnAuthenticationService } from './webauthn-authentication.service.js';
import { WebAuthnChallengeService } from './webauthn-challenge.service.js';
import { WebAuthnOptionsService } from './webauthn-options.service.js';
import { WebAuthnRegistrationService } from './webauthn-registration.service.js';
import { parseCallbackBody, resolveRelyingParty } from './webauthn.utils.js';
import { providerOfType } from '../../providers/internal-provider.js';

/**
 * Passkeys and other WebAuthn credentials: `GET /webauthn-options/:provider` starts a ceremony,
 * `POST /callback/:provider` finishes it. SimpleWebAuthn verifies the signatures; this flow adds
 * what it leaves to the relying party (security checklist §6): single-use challenges bound to
 * the ceremony and user, credential ids unique and at most 1023 bytes, `expectedRPID` always set,
 * cross-origin frames refused, the `userHandle` checked against the credential's owner, the
 * backup-eligibility of a credential fixed, and the counter moved with a compare-and-set.
 * Any failed check is a `WebAuthnVerificationError` raised before anything is written.
 *
 * The parts: options (WebAuthnOptionsService), the challenge cookie (WebAuthnChallengeService),
 * registration (WebAuthnRegistrationService) and authentication (WebAuthnAuthenticationService).
 */
@Injectable()
export class WebAuthnService implements ProviderFlow {
  constructor(
    private readonly adapters: AdapterService,
    private readonly optionsService: WebAuthnOptionsService,
    private readonly challenges: WebAuthnChallengeService,
    private readonly registration: WebAuthnRegistrationService,
    private readonly authentication: WebAuthnAuthenticationService,
  ) {}

  /** The sign-in page's passkey forms run their ceremonies in the browser script. */
  readonly usesBrowserScript = true;

  /** `GET {basePath}/webauthn-options/:provider?action=register|authenticate&email=`. */
  async options(ctx: ProviderContext): Promise<AuthResponse> {
    return this.optionsService.options(ctx, this.providerConfig(ctx));
  }

  /** `POST {basePath}/callback/:provider` with `{ action, data }`: verifies, then signs in. */
  async callback(ctx: ProviderContext): Promise<AuthResponse> {
    const config = this.providerConfig(ctx);
    if (ctx.request.method !== 'POST') throw new InvalidRequest('WebAuthn responses are sent with POST.');
    // Every method either ceremony may need, checked before anything is read or written.
    this.adapters.require(
      'getAuthenticator',
      'createAuthenticator',
      'updateAuthenticatorCounter',
      'getAccount',
      'getUserByAccount',
      'getUserByEmail',
      'createUser',
      'linkAccount',
    );
    const parsed = parseCallbackBody(ctx.request.body);
    const challenge = await this.challenges.open(ctx, parsed.action);
    const rp = resolveRelyingParty(config, ctx.origin);
    return parsed.action === 'register'
      ? this.registration.register(ctx, config, rp, parsed.response, challenge)
      : this.authentication.authenticate(ctx, config, rp, parsed.response, challenge);
  }

  private providerConfig(ctx: ProviderContext): WebAuthnConfig {
    return providerOfType(ctx.provider, 'webauthn').config;
  }
}
