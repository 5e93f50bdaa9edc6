import { createHash, createHmac, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { AdapterService } from '../core/adapter.service.js';
import { cleanAmr } from '../session/assurance.js';
import { SessionDevices } from '../session/session-devices.js';
import { SessionList } from '../session/session-list.js';
import { createJwtCodec, type JwtCodec } from '../session/jwt.js';
import { constantTimeEqual } from '../util/constant-time.js';
import { NativeAppError } from './native-app.error.js';

/** What a one-time authorization code stands for. */
export interface CodeGrant {
  userId: string;
  clientId: string;
  redirectUri: string;
  /** What the browser's sign-in proved (`amr`). */
  amr: string[];
  /** When the user signed in (epoch ms). */
  authTime: number;
  /** The code's own id: the refresh-token family it starts is derived from it. */
  jti: string;
}

/** The salt of the codes' encryption key: a code is never readable as a session or a check. */
const CODE_SALT = 'nestjs-auth native-app authorization code';
/** A PKCE verifier (RFC 7636 section 4.1). */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
/** An S256 challenge: base64url of a SHA-256. */
export const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
/** The longest code read. */
const CODE_MAX = 4096;

/**
 * One-time authorization codes (RFC 6749 section 4.1, RFC 7636, RFC 8252): each an encrypted token
 * (the session format, its own key) that holds the user, the client, the redirect URI and the PKCE
 * challenge it is bound to, and is redeemed once: a verification token written when it is issued is
 * consumed atomically by the exchange (`useVerificationToken`), so of two exchanges one wins on any
 * instance. A code presented again ends the sign-in it started (RFC 6749 section 4.1.2).
 */
@Injectable()
export class AuthorizationCodes {
  private codec?: JwtCodec;

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly adapters: AdapterService,
    private readonly sessions: SessionList,
    private readonly devices: SessionDevices,
  ) {}

  private get sealer(): JwtCodec {
    this.codec ??= createJwtCodec(this.config.secrets, CODE_SALT, this.config.nativeApps!.codeMaxAge);
    return this.codec;
  }

  /** Issues a code for a signed-in user, bound to the client, the redirect URI and the challenge. */
  async issue(grant: Omit<CodeGrant, 'jti'> & { challenge: string }): Promise<string> {
    const jti = randomBytes(16).toString('base64url');
    const code = await this.sealer.encode({
      sub: grant.userId,
      cid: grant.clientId,
      ruri: grant.redirectUri,
      cc: grant.challenge,
      amr: grant.amr,
      at: grant.authTime,
      cj: jti,
    });
    const expires = new Date(Date.now() + this.config.nativeApps!.codeMaxAge * 1000);
    await this.adapters
      .require('createVerificationToken')
      .createVerificationToken({ identifier: identifierOf(jti), token: digest(code), expires });
    return code;
  }

  /**
   * Redeems a code: checks it was issued to this client for this redirect URI and that the verifier
   * answers its challenge (nothing written when any is wrong), then consumes it.
   *
   * @throws NativeAppError `invalid_grant` for a code that is malformed, expired, another client's or
   *   redirect URI's, answered by a wrong verifier, or used before; `invalid_request` for a missing
   *   or malformed verifier
   */
  async redeem(
    code: unknown,
    params: { clientId: string; redirectUri: unknown; verifier: unknown },
  ): Promise<CodeGrant> {
    if (typeof params.verifier !== 'string' || !VERIFIER.test(params.verifier))
      throw new NativeAppError(
        'invalid_request',
        'code_verifier must be the PKCE verifier the app made (43 to 128 characters).',
      );
    if (typeof code !== 'string' || !code || code.length > CODE_MAX)
      throw new NativeAppError('invalid_grant', 'The code is missing or malformed.');
    const claims = await this.sealer.decode(code);
    if (!claims)
      throw new NativeAppError('invalid_grant', 'The code is not valid or has expired: start the sign-in again.');
    const { sub, cid, ruri, cc, amr, at, cj } = claims as Record<string, unknown>;
    if (
      typeof sub !== 'string' ||
      typeof cid !== 'string' ||
      typeof ruri !== 'string' ||
      typeof cc !== 'string' ||
      typeof cj !== 'string' ||
      typeof at !== 'number'
    )
      throw new NativeAppError('invalid_grant', 'The code is not valid: start the sign-in again.');
    if (!constantTimeEqual(cid, params.clientId))
      throw new NativeAppError('invalid_grant', 'The code was issued to another client.');
    if (typeof params.redirectUri !== 'string' || !constantTimeEqual(ruri, params.redirectUri))
      throw new NativeAppError('invalid_grant', 'redirect_uri must be the one the authorization request named.');
    if (!constantTimeEqual(cc, createHash('sha256').update(params.verifier).digest('base64url')))
      throw new NativeAppError(
        'invalid_grant',
        'code_verifier does not match the code_challenge of the authorization request.',
      );
    const used = await this.adapters
      .require('useVerificationToken')
      .useVerificationToken({ identifier: identifierOf(cj), token: digest(code) });
    if (!used) {
      // A second exchange of one code: whoever made the first may be an attacker who intercepted it,
      // so the sign-in it started ends (RFC 6749 section 4.1.2).
      await this.sessions.endKeys(sub, [this.devices.appKey(cid, this.familyIdOf(cj))]);
      throw new NativeAppError('invalid_grant', 'The code was already used: start the sign-in again.');
    }
    return { userId: sub, clientId: cid, redirectUri: ruri, amr: cleanAmr(amr), authTime: at, jti: cj };
  }

  /** The id of the refresh-token family a code starts (so that a replayed code can end it). */
  familyIdOf(jti: string): string {
    return createHmac('sha256', this.config.secrets[0]!)
      .update(`nestjs-auth native-app family\u0000${jti}`)
      .digest('base64url');
  }
}

function identifierOf(jti: string): string {
  return `native-code:${jti}`;
}

function digest(code: string): string {
  return createHash('sha256').update(code).digest('base64url');
}
