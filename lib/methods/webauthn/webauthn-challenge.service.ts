import { Injectable } from '@nestjs/common';
import { AdapterError, AuthError, WebAuthnVerificationError } from '../../errors/auth.errors.js';
import type { ProviderContext } from '../../core/request-context.js';
import { ChecksService } from '../../sign-in/checks.service.js';
import type { WebAuthnAction } from './webauthn.utils.js';

/** What the challenge cookie carries besides the challenge (sealed: the client cannot change it). */
export interface ChallengeData {
  /** The ceremony; `second-factor`: a passkey proving the second factor of a pending sign-in. */
  action: WebAuthnAction | 'second-factor';
  /**
   * register: the user the credential is for (the signed-in user, or the id the new user will get).
   * authenticate: the user whose credentials were offered (allowCredentials), when one was known.
   */
  userId?: string;
  /** register: true when nobody was signed in: the credential is for a new user with `email`. */
  newUser?: boolean;
  email?: string;
}

/** A challenge as opened from its cookie. */
export interface OpenedChallenge {
  value: string;
  data: ChallengeData;
}

/** The single-use challenge cookie of a WebAuthn ceremony (sealed by ChecksService). */
@Injectable()
export class WebAuthnChallengeService {
  constructor(private readonly checks: ChecksService) {}

  /** Seals the challenge into the single-use challenge cookie. */
  async seal(ctx: ProviderContext, challenge: string, data: ChallengeData, maxAge: number): Promise<void> {
    await this.checks.seal(ctx, 'webauthnChallenge', challenge, {
      provider: ctx.provider.id,
      data: data as unknown as Record<string, unknown>,
      maxAge,
    });
  }

  /**
   * Opens and consumes the challenge cookie (ChecksService refuses a second use of the same cookie
   * in this process). Every failure (missing, tampered, expired, other provider, other ceremony,
   * already used) is a `WebAuthnVerificationError`.
   */
  async open(ctx: ProviderContext, action: ChallengeData['action']): Promise<OpenedChallenge> {
    let opened: { value: string; data?: unknown };
    try {
      opened = await this.checks.open(ctx, 'webauthnChallenge', ctx.provider.id, { consume: true });
    } catch (error) {
      if (error instanceof AuthError && !(error instanceof AdapterError)) {
        throw new WebAuthnVerificationError('The WebAuthn challenge is missing, expired or invalid; start again.', {
          cause: error,
        });
      }
      throw error;
    }
    const data = (opened.data ?? {}) as ChallengeData;
    if (typeof opened.value !== 'string' || data.action !== action) {
      throw new WebAuthnVerificationError(
        `The WebAuthn challenge was issued for another ceremony than ${action}; start again.`,
      );
    }
    return { value: opened.value, data };
  }
}
