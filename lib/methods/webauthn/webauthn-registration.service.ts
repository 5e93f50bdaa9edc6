import { Injectable } from '@nestjs/common';
import { webauthnServer } from './webauthn-server.js';
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import type { AdapterAuthenticator, AdapterUser } from '../../adapters/adapter.interface.js';
import { AdapterService } from '../../core/adapter.service.js';
import { AuthConfigurationError, WebAuthnVerificationError } from '../../errors/auth.errors.js';
import type { WebAuthnConfig } from './webauthn.types.js';
import type { User } from '../../types/common.types.js';
import type { AuthResponse } from '../../types/http.types.js';
import type { ProviderContext } from '../../core/request-context.js';
import { SessionReader } from '../../session/session-reader.js';
import type { AuthUser } from '../../session/session.types.js';
import { SignInService } from '../../sign-in/sign-in.service.js';
import type { OpenedChallenge } from './webauthn-challenge.service.js';
import {
  ceremonySettings,
  checkCredentialId,
  orNull,
  refuseCrossOrigin,
  storedCredentialId,
  verifyOrRefuse,
  type ResolvedRelyingParty,
  passkeyAmr,
} from './webauthn.utils.js';

/**
 * The end of a registration ceremony: verifies the new credential and stores it for the user the
 * challenge names (the signed-in user, or a new user), through SignInService. Nothing is written
 * before every check passed; a failed write undoes the account link.
 */
@Injectable()
export class WebAuthnRegistrationService {
  constructor(
    private readonly adapters: AdapterService,
    private readonly reader: SessionReader,
    private readonly signIns: SignInService,
  ) {}

  async register(
    ctx: ProviderContext,
    config: WebAuthnConfig,
    rp: ResolvedRelyingParty,
    response: RegistrationResponseJSON,
    challenge: OpenedChallenge,
  ): Promise<AuthResponse> {
    const adapter = this.adapters.require('getAuthenticator', 'createAuthenticator');
    const settings = ceremonySettings(config);
    const { data } = challenge;
    if (!data.userId) throw new WebAuthnVerificationError('The registration challenge names no user; start again.');

    // The session must be the one the ceremony started with: the credential's user handle was made
    // for that user (or for the new user's id).
    const current = await this.reader.currentUser(ctx);
    if (data.newUser ? current !== null : current?.id !== data.userId) {
      throw new WebAuthnVerificationError('The session changed during the passkey registration; start again.');
    }

    refuseCrossOrigin(response.response.clientDataJSON);
    const { verifyRegistrationResponse } = await webauthnServer();
    const verification = await verifyOrRefuse(() =>
      verifyRegistrationResponse({
        response,
        expectedChallenge: challenge.value,
        expectedOrigin: rp.origins,
        expectedRPID: rp.id,
        requireUserPresence: true,
        requireUserVerification: settings.requireUserVerification,
        supportedAlgorithmIDs: settings.supportedAlgorithmIDs,
      }),
    );
    if (!verification.verified) throw new WebAuthnVerificationError('The passkey registration could not be verified.');
    // Sign-in lists no credentials (that would tell who has an account), so one the authenticator
    // says it did not store (credProps, asked for by SimpleWebAuthn) could never be used.
    if (isNotDiscoverable(response)) {
      throw new WebAuthnVerificationError(
        'This authenticator cannot store a passkey (a discoverable credential); use another one.',
      );
    }
    const info = verification.registrationInfo;
    const credentialId = checkCredentialId(info.credential.id);
    if (credentialId !== response.id)
      throw new WebAuthnVerificationError('The credential id of the response does not match the authenticator data.');

    // WA-R12: a credential id belongs to one user, whichever provider registered it.
    const stored = storedCredentialId(credentialId);
    if (await adapter.getAuthenticator(stored)) {
      throw new WebAuthnVerificationError('This credential is already registered.');
    }

    const authenticator: Omit<AdapterAuthenticator, 'userId'> = {
      credentialID: stored,
      credentialPublicKey: Buffer.from(info.credential.publicKey).toString('base64'),
      providerAccountId: stored,
      counter: info.credential.counter,
      credentialDeviceType: info.credentialDeviceType,
      credentialBackedUp: info.credentialBackedUp,
      transports: info.credential.transports?.length ? info.credential.transports.join(',') : null,
    };
    const account = { provider: config.id, providerAccountId: stored, type: 'webauthn' as const };
    const user: User = data.newUser ? { id: data.userId, email: data.email ?? null, name: null } : { id: data.userId };

    return this.signIns.completeSignIn(ctx, {
      user,
      account,
      // A new user's passkey is all they proved; a passkey added by a signed-in user proves nothing
      // about them (it was made just now): their new session keeps what their session proved.
      ...(data.newUser ? { amr: passkeyAmr(info.userVerified) } : { amrFromSession: true }),
      afterUser: async (resolved: AdapterUser | AuthUser, isNewUser: boolean) => {
        if (resolved.id !== data.userId) {
          // The credential's user handle was derived from data.userId: stored for anyone else, it
          // could never sign in.
          await this.unlinkQuietly(account);
          throw new AuthConfigurationError([
            `WebAuthn provider ${JSON.stringify(config.id)}: the new user was stored with another id than the one the passkey was made for; the adapter's createUser must keep the given id.`,
          ]);
        }
        try {
          await adapter.createAuthenticator({ ...authenticator, userId: resolved.id });
        } catch (error) {
          // A new user is deleted again by SignInService; a link to an existing user is undone here.
          if (!isNewUser) await this.unlinkQuietly(account);
          if (await orNull(() => adapter.getAuthenticator(stored))) {
            throw new WebAuthnVerificationError('This credential is already registered.', { cause: error });
          }
          throw error;
        }
      },
    });
  }

  private async unlinkQuietly(account: { provider: string; providerAccountId: string }): Promise<void> {
    if (!this.adapters.has('unlinkAccount')) return;
    await orNull(() => this.adapters.require('unlinkAccount').unlinkAccount(account));
  }
}

/** True when the browser reports the new credential as not discoverable (`credProps.rk === false`). */
function isNotDiscoverable(response: RegistrationResponseJSON): boolean {
  const results = response.clientExtensionResults as { credProps?: { rk?: unknown } } | undefined;
  return results?.credProps?.rk === false;
}
