import { Injectable } from '@nestjs/common';
import { webauthnServer } from './webauthn-server.js';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { AdapterService } from '../../core/adapter.service.js';
import type { AdapterAuthenticator } from '../../adapters/adapter.interface.js';
import { AdapterConflictError, AdapterError, WebAuthnVerificationError } from '../../errors/auth.errors.js';
import type { WebAuthnConfig } from './webauthn.types.js';
import type { AuthResponse } from '../../types/http.types.js';
import type { ProviderContext } from '../../core/request-context.js';
import { SignInService } from '../../sign-in/sign-in.service.js';
import type { OpenedChallenge } from './webauthn-challenge.service.js';
import {
  ceremonySettings,
  checkCredentialId,
  isUserHandleOf,
  orNull,
  refuseCrossOrigin,
  splitTransports,
  storedCredentialId,
  verifyOrRefuse,
  type ResolvedRelyingParty,
  passkeyAmr,
} from './webauthn.utils.js';

/** An assertion {@link WebAuthnAuthenticationService.verify} accepted: nothing written yet. */
export interface VerifiedAssertion {
  authenticator: AdapterAuthenticator;
  /** The credential id as stored. */
  stored: string;
  newCounter: number;
  userVerified: boolean;
}

/**
 * The end of an authentication ceremony: finds the stored credential, checks it answers for its
 * owner through this provider, verifies the signature, then signs the owner in (SignInService)
 * and moves the counter with a compare-and-set.
 */
@Injectable()
export class WebAuthnAuthenticationService {
  constructor(
    private readonly adapters: AdapterService,
    private readonly signIns: SignInService,
  ) {}

  async authenticate(
    ctx: ProviderContext,
    config: WebAuthnConfig,
    rp: ResolvedRelyingParty,
    response: AuthenticationResponseJSON,
    challenge: OpenedChallenge,
  ): Promise<AuthResponse> {
    const verified = await this.verify(ctx, config, rp, response, challenge);
    const { authenticator } = verified;
    return this.signIns.completeSignIn(ctx, {
      user: { id: authenticator.userId },
      account: { provider: config.id, providerAccountId: authenticator.providerAccountId, type: 'webauthn' },
      amr: passkeyAmr(verified.userVerified),
      // After the signIn callback accepted the user and before the session starts: a refused
      // sign-in leaves the counter alone; a lost compare-and-set leaves no session.
      afterUser: () => this.moveCounter(verified),
    });
  }

  /**
   * Checks an assertion: the stored credential, registered through this provider and still linked,
   * answering for the user the challenge was bound to (if any) with the owner's user handle, a valid
   * signature over the challenge from one of the provider's origins. Writes nothing.
   */
  async verify(
    ctx: ProviderContext,
    config: WebAuthnConfig,
    rp: ResolvedRelyingParty,
    response: AuthenticationResponseJSON,
    challenge: OpenedChallenge,
  ): Promise<VerifiedAssertion> {
    const adapter = this.adapters.require('getAuthenticator', 'getAccount', 'updateAuthenticatorCounter');
    const settings = ceremonySettings(config);
    const stored = storedCredentialId(checkCredentialId(response.id));
    const authenticator = await adapter.getAuthenticator(stored);
    if (!authenticator) throw new WebAuthnVerificationError('This passkey is not registered here.');
    // The credential must have been registered through this provider, and still be linked.
    const account = await adapter.getAccount(authenticator.providerAccountId, config.id);
    if (!account || account.userId !== authenticator.userId) {
      throw new WebAuthnVerificationError('This passkey is not registered with this provider.');
    }
    // WA-A1: when the server offered one user's credentials, only those may answer.
    if (challenge.data.userId && challenge.data.userId !== authenticator.userId) {
      throw new WebAuthnVerificationError('This passkey belongs to another user.');
    }
    // WA-A2: the user handle must be the owner's; a discoverable sign-in must carry one.
    const handle = response.response.userHandle;
    if (settings.verifyUserHandle) {
      if (handle ? !isUserHandleOf(handle, authenticator.userId, ctx.config.secrets) : !challenge.data.userId) {
        throw new WebAuthnVerificationError("The passkey's user handle does not belong to the passkey's owner.");
      }
    }

    refuseCrossOrigin(response.response.clientDataJSON);
    const { verifyAuthenticationResponse } = await webauthnServer();
    const verification = await verifyOrRefuse(() =>
      verifyAuthenticationResponse({
        response,
        expectedChallenge: challenge.value,
        expectedOrigin: rp.origins,
        expectedRPID: rp.id,
        requireUserVerification: settings.requireUserVerification,
        credential: {
          id: response.id,
          publicKey: new Uint8Array(Buffer.from(authenticator.credentialPublicKey, 'base64')),
          counter: authenticator.counter,
          transports: splitTransports(authenticator.transports) as never,
        },
      }),
    );
    if (!verification.verified) throw new WebAuthnVerificationError('The passkey sign-in could not be verified.');
    const { newCounter, credentialDeviceType, userVerified } = verification.authenticationInfo;
    // WA-A8: backup eligibility is fixed at creation; a change means another authenticator.
    if (authenticator.credentialDeviceType !== credentialDeviceType) {
      throw new WebAuthnVerificationError("The passkey's backup eligibility changed since it was registered.");
    }
    return { authenticator, stored, newCounter, userVerified };
  }

  /**
   * Moves the counter of a verified assertion with a compare-and-set: a lost race (the passkey used
   * concurrently) refuses with `WebAuthnVerificationError`.
   */
  async moveCounter({ authenticator, stored, newCounter }: VerifiedAssertion): Promise<void> {
    const adapter = this.adapters.require('getAuthenticator', 'updateAuthenticatorCounter');
    try {
      await adapter.updateAuthenticatorCounter(stored, newCounter, authenticator.counter);
    } catch (error) {
      // MemoryAdapter and TypeOrmAdapter say so; for other adapters, look whether it moved.
      const lost =
        (error instanceof AdapterConflictError && error.conflict === 'authenticator.counter') ||
        (error instanceof AdapterError &&
          (await orNull(() => adapter.getAuthenticator(stored)))?.counter !== authenticator.counter);
      if (lost) {
        throw new WebAuthnVerificationError('The passkey was used concurrently; its counter moved. Sign in again.', {
          cause: error,
        });
      }
      throw error;
    }
  }
}
