import { createHash, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { webauthnServer, type WebAuthnServer } from './webauthn-server.js';
import { AdapterService } from '../../core/adapter.service.js';
import { InvalidRequest } from '../../errors/auth.errors.js';
import { resolveWebAuthnRateLimit } from './webauthn.provider.js';
import type { WebAuthnConfig } from './webauthn.types.js';
import { clientIpBucket } from '../../rate-limit/client-ip.js';
import { RateLimiterService } from '../../rate-limit/rate-limiter.service.js';
import type { AuthRequest, AuthResponse } from '../../types/http.types.js';
import type { ProviderContext } from '../../core/request-context.js';
import { SessionReader } from '../../session/session-reader.js';
import { WaysInGate } from '../../sign-in/ways-in.gate.js';
import { WebAuthnChallengeService } from './webauthn-challenge.service.js';
import {
  ceremonySettings,
  inferAction,
  parseRequestedAction,
  resolveRelyingParty,
  splitTransports,
  userHandle,
  wireCredentialId,
} from './webauthn.utils.js';

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/**
 * `GET {basePath}/webauthn-options/:provider?action=register|authenticate&email=`: the options of
 * a registration or an authentication, with their challenge sealed into the challenge cookie.
 *
 * The answer depends on the request and its session, never on what storage holds for the
 * address it names: otherwise it would tell anyone whether an address has an account or passkeys
 * (an enumeration oracle). Without a session, sign-in options list no credentials (a discoverable
 * sign-in), and registration options are a new user's with the requested address; an address
 * that already has an account fails at verification (`AccountNotLinked`, from SignInService).
 * Nothing is read by address, so every address costs the same storage calls in the same order:
 * the rate-limit counters, then the session when a cookie is sent; and gets the same answer but
 * for the random challenge and user handle (the e2e suite compares them byte for byte).
 */
@Injectable()
export class WebAuthnOptionsService {
  constructor(
    private readonly adapters: AdapterService,
    private readonly reader: SessionReader,
    private readonly challenges: WebAuthnChallengeService,
    private readonly limiter: RateLimiterService,
    private readonly gate: WaysInGate,
  ) {}

  async options(ctx: ProviderContext, config: WebAuthnConfig): Promise<AuthResponse> {
    const settings = ceremonySettings(config);
    const rp = resolveRelyingParty(config, ctx.origin);
    const adapter = this.adapters.require('getUserByEmail', 'listAuthenticatorsByUserId');

    const requested = parseRequestedAction(ctx.request.query.action);
    const address = requestedAddress(ctx.request.query.email);
    await this.countRequest(ctx, config, address);
    const sessionUser = await this.reader.currentUser(ctx);
    const action = inferAction(requested, Boolean(sessionUser));

    if (action === 'authenticate') {
      // Only a signed-in user's own credentials are listed (re-authentication); the email of an
      // anonymous request is not used, so no address decides what is offered.
      const credentials = sessionUser ? await adapter.listAuthenticatorsByUserId(sessionUser.id) : [];
      const options = await (
        await webauthnServer()
      ).generateAuthenticationOptions({
        ...pick(config.authenticationOptions, ['timeout', 'extensions']),
        rpID: rp.id,
        userVerification: config.authenticationOptions?.userVerification ?? settings.userVerification,
        allowCredentials: credentials.map((a) => ({
          id: wireCredentialId(a.credentialID),
          transports: splitTransports(a.transports),
        })),
      } as Parameters<WebAuthnServer['generateAuthenticationOptions']>[0]);
      // Bind the sign-in to the user only when their credentials were offered (WA-A1).
      await this.challenges.seal(
        ctx,
        options.challenge,
        { action, userId: credentials.length ? sessionUser!.id : undefined },
        settings.challengeMaxAge,
      );
      return { json: { action, options } };
    }

    // A signed-in user adds a passkey: a new way in, so the session passes the gate here already
    // (the registration's callback passes it again in the sign-in pipeline). Anyone else registers
    // as a new user with the address asked for (only the address: a name or id read for an
    // existing address would show in the answer).
    if (sessionUser) await this.gate.checkRequest(ctx, 'add-passkey');
    const email = sessionUser ? undefined : await this.registrationEmail(ctx.request, config, address);
    const userId = sessionUser ? sessionUser.id : randomUUID();
    const existing = sessionUser ? await adapter.listAuthenticatorsByUserId(sessionUser.id) : [];
    const userName = sessionUser ? (sessionUser.email ?? sessionUser.name ?? 'user') : email!;
    const options = await (
      await webauthnServer()
    ).generateRegistrationOptions({
      ...pick(config.registrationOptions, ['timeout', 'attestationType', 'extensions', 'preferredAuthenticatorType']),
      rpID: rp.id,
      rpName: rp.name,
      userID: userHandle(ctx.config.secrets[0], userId),
      userName,
      userDisplayName: sessionUser?.name ?? userName,
      excludeCredentials: existing.map((a) => ({
        id: wireCredentialId(a.credentialID),
        transports: splitTransports(a.transports),
      })),
      authenticatorSelection: {
        residentKey: settings.residentKey,
        requireResidentKey: settings.residentKey === 'required',
        userVerification: settings.userVerification,
        ...config.registrationOptions?.authenticatorSelection,
      },
      supportedAlgorithmIDs: settings.supportedAlgorithmIDs,
    } as Parameters<WebAuthnServer['generateRegistrationOptions']>[0]);
    await this.challenges.seal(
      ctx,
      options.challenge,
      { action, userId, newUser: !sessionUser, email },
      settings.challengeMaxAge,
    );
    return { json: { action, options } };
  }

  /**
   * The address a registration without a session is for: `getUserInfo`'s `user.email` when the
   * provider has one (its `exists` is not used), else the `email` query parameter. Nothing is
   * looked up by default: the answer would not use it.
   */
  private async registrationEmail(
    request: AuthRequest,
    config: WebAuthnConfig,
    address: string | undefined,
  ): Promise<string> {
    let email: unknown = address;
    if (config.getUserInfo) {
      const lookup = async (value: string) => this.adapters.require('getUserByEmail').getUserByEmail(value);
      email = (await config.getUserInfo(request, lookup))?.user?.email;
    }
    if (typeof email !== 'string' || email === '')
      throw new InvalidRequest('Registering a passkey needs an email address (or a signed-in user).');
    return email;
  }

  /**
   * Counts this request per client IP and, when it names one, per address; over either limit →
   * `RateLimited`. Runs before anything else is read, the same for every address.
   */
  private async countRequest(ctx: ProviderContext, config: WebAuthnConfig, address: string | undefined): Promise<void> {
    const rule = resolveWebAuthnRateLimit(config);
    if (!rule) return;
    const prefix = `webauthn:${ctx.provider.id}`;
    const { windowSeconds } = rule;
    const hits: Array<{ key: string; limit: number; windowSeconds: number }> = [];
    // The address is hashed: the counter store never holds addresses.
    if (address)
      hits.push({
        key: `${prefix}:addr:${createHash('sha256').update(address).digest('base64url')}`,
        limit: rule.maxPerAddress,
        windowSeconds,
      });
    const ip = clientIpBucket(ctx.request.ip);
    if (ip) hits.push({ key: `${prefix}:ip:${ip}`, limit: rule.maxPerIp, windowSeconds });
    // Both counters move; the refusal with the longest wait wins.
    await this.limiter.hitAll(hits);
  }
}

/** The `email` query parameter, trimmed and lower-cased, or undefined when absent or empty. */
function requestedAddress(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const email = raw.trim().toLowerCase();
  if (email === '') return undefined;
  // Control characters never belong in an address (and PostgreSQL refuses NUL in text).
  if (email.length > 320 || !EMAIL.test(email) || /[\u0000-\u001f\u007f]/.test(email))
    throw new InvalidRequest('The email address is not valid.');
  return email;
}

function pick<T extends object, K extends keyof T>(value: T | undefined, keys: K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  if (!value) return out;
  for (const k of keys) if (value[k] !== undefined) out[k] = value[k];
  return out;
}
