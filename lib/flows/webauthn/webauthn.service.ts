import { createHash, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { AdapterAuthenticator, AdapterUser } from '../../adapters/adapter.interface.js';
import { AdapterService } from '../../core/adapter.service.js';
import { AdapterConflictError, AdapterError, AuthConfigurationError, AuthError, InvalidRequest, WebAuthnVerificationError } from '../../errors/auth.errors.js';
import { resolveWebAuthnRateLimit } from '../../providers/webauthn.provider.js';
import type { WebAuthnConfig } from '../../providers/webauthn.types.js';
import type { User } from '../../types/common.types.js';
import { ChecksService } from '../../sign-in/checks.service.js';
import { clientIpBucket } from '../../rate-limit/client-ip.js';
import { RateLimiterService } from '../../rate-limit/rate-limiter.service.js';
import type { AuthRequest, AuthResponse } from '../../types/http.types.js';
import type { ProviderContext, ProviderFlow } from '../../core/request-context.js';
import { SessionService, type AuthUser } from '../../session/session.service.js';
import { SignInService } from '../../sign-in/sign-in.service.js';
import {
  ceremonySettings,
  checkCredentialId,
  inferAction,
  isUserHandleOf,
  parseCallbackBody,
  parseRequestedAction,
  refuseCrossOrigin,
  resolveRelyingParty,
  storedCredentialId,
  userHandle,
  wireCredentialId,
  type ResolvedRelyingParty,
  type WebAuthnAction,
} from './webauthn.utils.js';

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** What the challenge cookie carries besides the challenge (sealed: the client cannot change it). */
interface ChallengeData {
  action: WebAuthnAction;
  /**
   * register: the user the credential is for (the signed-in user, or the id the new user will get).
   * authenticate: the user whose credentials were offered (allowCredentials), when one was known.
   */
  userId?: string;
  /** register: true when nobody was signed in: the credential is for a new user with `email`. */
  newUser?: boolean;
  email?: string;
}

/**
 * Passkeys and other WebAuthn credentials: `GET /webauthn-options/:provider` starts a ceremony,
 * `POST /callback/:provider` finishes it. SimpleWebAuthn verifies the signatures; this class adds
 * what it leaves to the relying party (security checklist §6): single-use challenges bound to
 * the ceremony and user, credential ids unique and at most 1023 bytes, `expectedRPID` always set,
 * cross-origin frames refused, the `userHandle` checked against the credential's owner, the
 * backup-eligibility of a credential fixed, and the counter moved with a compare-and-set.
 * Any failed check is a `WebAuthnVerificationError` raised before anything is written.
 */
@Injectable()
export class WebAuthnService implements ProviderFlow {
  constructor(
    private readonly adapters: AdapterService,
    private readonly sessions: SessionService,
    private readonly signIns: SignInService,
    private readonly checks: ChecksService,
    private readonly limiter: RateLimiterService,
  ) {}

  /**
   * `GET {basePath}/webauthn-options/:provider?action=register|authenticate&email=`.
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
  async options(ctx: ProviderContext): Promise<AuthResponse> {
    const config = this.providerConfig(ctx);
    const settings = ceremonySettings(config);
    const rp = resolveRelyingParty(config, ctx.origin);
    const adapter = this.adapters.require('getUserByEmail', 'listAuthenticatorsByUserId');

    const requested = parseRequestedAction(ctx.request.query.action);
    const address = requestedAddress(ctx.request.query.email);
    await this.countRequest(ctx, config, address);
    const sessionUser = await this.sessions.getCurrentUser(ctx);
    const action = inferAction(requested, Boolean(sessionUser));

    if (action === 'authenticate') {
      // Only a signed-in user's own credentials are listed (re-authentication); the email of an
      // anonymous request is not used, so no address decides what is offered.
      const credentials = sessionUser ? await adapter.listAuthenticatorsByUserId(sessionUser.id) : [];
      const options = await generateAuthenticationOptions({
        ...pick(config.authenticationOptions, ['timeout', 'extensions']),
        rpID: rp.id,
        userVerification: config.authenticationOptions?.userVerification ?? settings.userVerification,
        allowCredentials: credentials.map((a) => ({ id: wireCredentialId(a.credentialID), transports: splitTransports(a.transports) })),
      } as Parameters<typeof generateAuthenticationOptions>[0]);
      // Bind the sign-in to the user only when their credentials were offered (WA-A1).
      await this.seal(ctx, options.challenge, { action, userId: credentials.length ? sessionUser!.id : undefined }, settings.challengeMaxAge);
      return { json: { action, options } };
    }

    // A signed-in user adds a passkey; anyone else registers as a new user with the address asked
    // for (only the address: a name or id read for an existing address would show in the answer).
    const email = sessionUser ? undefined : await this.registrationEmail(ctx.request, config, address);
    const userId = sessionUser ? sessionUser.id : randomUUID();
    const existing = sessionUser ? await adapter.listAuthenticatorsByUserId(sessionUser.id) : [];
    const userName = sessionUser ? (sessionUser.email ?? sessionUser.name ?? 'user') : email!;
    const options = await generateRegistrationOptions({
      ...pick(config.registrationOptions, ['timeout', 'attestationType', 'extensions', 'preferredAuthenticatorType']),
      rpID: rp.id,
      rpName: rp.name,
      userID: userHandle(ctx.config.secrets[0], userId),
      userName,
      userDisplayName: sessionUser?.name ?? userName,
      excludeCredentials: existing.map((a) => ({ id: wireCredentialId(a.credentialID), transports: splitTransports(a.transports) })),
      authenticatorSelection: {
        residentKey: settings.residentKey,
        requireResidentKey: settings.residentKey === 'required',
        userVerification: settings.userVerification,
        ...config.registrationOptions?.authenticatorSelection,
      },
      supportedAlgorithmIDs: settings.supportedAlgorithmIDs,
    } as Parameters<typeof generateRegistrationOptions>[0]);
    await this.seal(ctx, options.challenge, { action, userId, newUser: !sessionUser, email }, settings.challengeMaxAge);
    return { json: { action, options } };
  }

  /** `POST {basePath}/callback/:provider` with `{ action, data }`: verifies, then signs in. */
  async callback(ctx: ProviderContext): Promise<AuthResponse> {
    const config = this.providerConfig(ctx);
    if (ctx.request.method !== 'POST') throw new InvalidRequest('WebAuthn responses are sent with POST.');
    // Every method either ceremony may need, checked before anything is read or written.
    this.adapters.require(
      'getAuthenticator', 'createAuthenticator', 'updateAuthenticatorCounter', 'getAccount', 'getUserByAccount',
      'getUserByEmail', 'createUser', 'linkAccount',
    );
    const parsed = parseCallbackBody(ctx.request.body);
    const challenge = await this.openChallenge(ctx, parsed.action);
    const rp = resolveRelyingParty(config, ctx.origin);
    return parsed.action === 'register'
      ? this.register(ctx, config, rp, parsed.response, challenge)
      : this.authenticate(ctx, config, rp, parsed.response, challenge);
  }

  private async register(
    ctx: ProviderContext,
    config: WebAuthnConfig,
    rp: ResolvedRelyingParty,
    response: RegistrationResponseJSON,
    challenge: { value: string; data: ChallengeData },
  ): Promise<AuthResponse> {
    const adapter = this.adapters.require('getAuthenticator', 'createAuthenticator');
    const settings = ceremonySettings(config);
    const { data } = challenge;
    if (!data.userId) throw new WebAuthnVerificationError('The registration challenge names no user; start again.');

    // The session must be the one the ceremony started with: the credential's user handle was made
    // for that user (or for the new user's id).
    const current = await this.sessions.getCurrentUser(ctx);
    if (data.newUser ? current !== null : current?.id !== data.userId) {
      throw new WebAuthnVerificationError('The session changed during the passkey registration; start again.');
    }

    refuseCrossOrigin(response.response.clientDataJSON);
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
      throw new WebAuthnVerificationError('This authenticator cannot store a passkey (a discoverable credential); use another one.');
    }
    const info = verification.registrationInfo;
    const credentialId = checkCredentialId(info.credential.id);
    if (credentialId !== response.id) throw new WebAuthnVerificationError('The credential id of the response does not match the authenticator data.');

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

  private async authenticate(
    ctx: ProviderContext,
    config: WebAuthnConfig,
    rp: ResolvedRelyingParty,
    response: AuthenticationResponseJSON,
    challenge: { value: string; data: ChallengeData },
  ): Promise<AuthResponse> {
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
        throw new WebAuthnVerificationError('The passkey\'s user handle does not belong to the passkey\'s owner.');
      }
    }

    refuseCrossOrigin(response.response.clientDataJSON);
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
    const { newCounter, credentialDeviceType } = verification.authenticationInfo;
    // WA-A8: backup eligibility is fixed at creation; a change means another authenticator.
    if (authenticator.credentialDeviceType !== credentialDeviceType) {
      throw new WebAuthnVerificationError('The passkey\'s backup eligibility changed since it was registered.');
    }

    return this.signIns.completeSignIn(ctx, {
      user: { id: authenticator.userId },
      account: { provider: config.id, providerAccountId: authenticator.providerAccountId, type: 'webauthn' },
      // After the signIn callback accepted the user and before the session starts: a refused
      // sign-in leaves the counter alone; a lost compare-and-set leaves no session.
      afterUser: async () => {
        try {
          await adapter.updateAuthenticatorCounter(stored, newCounter, authenticator.counter);
        } catch (error) {
          // MemoryAdapter and TypeOrmAdapter say so; for other adapters, look whether it moved.
          const lost =
            (error instanceof AdapterConflictError && error.conflict === 'authenticator.counter') ||
            (error instanceof AdapterError && (await orNull(() => adapter.getAuthenticator(stored)))?.counter !== authenticator.counter);
          if (lost) {
            throw new WebAuthnVerificationError('The passkey was used concurrently; its counter moved. Sign in again.', { cause: error });
          }
          throw error;
        }
      },
    });
  }

  /** Seals the challenge into the single-use challenge cookie. */
  private async seal(ctx: ProviderContext, challenge: string, data: ChallengeData, maxAge: number): Promise<void> {
    await this.checks.seal(ctx, 'webauthnChallenge', challenge, { provider: ctx.provider.id, data: data as unknown as Record<string, unknown>, maxAge });
  }

  /**
   * Opens and consumes the challenge cookie (ChecksService refuses a second use of the same cookie
   * in this process). Every failure (missing, tampered, expired, other provider, other ceremony,
   * already used) is a `WebAuthnVerificationError`.
   */
  private async openChallenge(ctx: ProviderContext, action: WebAuthnAction): Promise<{ value: string; data: ChallengeData }> {
    let opened: { value: string; data?: unknown };
    try {
      opened = await this.checks.open(ctx, 'webauthnChallenge', ctx.provider.id, { consume: true });
    } catch (error) {
      if (error instanceof AuthError && !(error instanceof AdapterError)) {
        throw new WebAuthnVerificationError('The WebAuthn challenge is missing, expired or invalid; start again.', { cause: error });
      }
      throw error;
    }
    const data = (opened.data ?? {}) as ChallengeData;
    if (typeof opened.value !== 'string' || data.action !== action) {
      throw new WebAuthnVerificationError(`The WebAuthn challenge was issued for another ceremony than ${action}; start again.`);
    }
    return { value: opened.value, data };
  }

  /**
   * The address a registration without a session is for: `getUserInfo`'s `user.email` when the
   * provider has one (its `exists` is not used), else the `email` query parameter. Nothing is
   * looked up by default: the answer would not use it.
   */
  private async registrationEmail(request: AuthRequest, config: WebAuthnConfig, address: string | undefined): Promise<string> {
    let email: unknown = address;
    if (config.getUserInfo) {
      const lookup = async (value: string) => this.adapters.require('getUserByEmail').getUserByEmail(value);
      email = (await config.getUserInfo(request, lookup))?.user?.email;
    }
    if (typeof email !== 'string' || email === '') throw new InvalidRequest('Registering a passkey needs an email address (or a signed-in user).');
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
    if (address) hits.push({ key: `${prefix}:addr:${createHash('sha256').update(address).digest('base64url')}`, limit: rule.maxPerAddress, windowSeconds });
    const ip = clientIpBucket(ctx.request.ip);
    if (ip) hits.push({ key: `${prefix}:ip:${ip}`, limit: rule.maxPerIp, windowSeconds });
    // Both counters move; the refusal with the longest wait wins.
    await this.limiter.hitAll(hits);
  }

  private async unlinkQuietly(account: { provider: string; providerAccountId: string }): Promise<void> {
    if (!this.adapters.has('unlinkAccount')) return;
    await orNull(() => this.adapters.require('unlinkAccount').unlinkAccount(account));
  }

  private providerConfig(ctx: ProviderContext): WebAuthnConfig {
    return ctx.provider.config as unknown as WebAuthnConfig;
  }
}

/**
 * Runs a SimpleWebAuthn verification; anything it throws is a verification failure. Its message
 * says why (origin, RP ID, flags, counter), except for challenge mismatches, whose message would
 * quote both challenges into the logs; the original error is not kept as `cause` for that reason.
 */
async function verifyOrRefuse<T>(verify: () => Promise<T>): Promise<T> {
  try {
    return await verify();
  } catch (error) {
    const message = String((error as Error)?.message ?? 'invalid response');
    const reason = /challenge/i.test(message) ? 'the challenge is not the one issued for this ceremony' : message.slice(0, 300);
    throw new WebAuthnVerificationError(`The WebAuthn response was refused: ${reason}.`);
  }
}

/** True when the browser reports the new credential as not discoverable (`credProps.rk === false`). */
function isNotDiscoverable(response: RegistrationResponseJSON): boolean {
  const results = response.clientExtensionResults as { credProps?: { rk?: unknown } } | undefined;
  return results?.credProps?.rk === false;
}

/** The `email` query parameter, trimmed and lower-cased, or undefined when absent or empty. */
function requestedAddress(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const email = raw.trim().toLowerCase();
  if (email === '') return undefined;
  // Control characters never belong in an address (and PostgreSQL refuses NUL in text).
  if (email.length > 320 || !EMAIL.test(email) || /[\u0000-\u001f\u007f]/.test(email)) throw new InvalidRequest('The email address is not valid.');
  return email;
}

/** The value of `fn()`, or null when it throws (for best-effort reads and clean-ups). */
async function orNull<T>(fn: () => T | PromiseLike<T>): Promise<T | null> {
  try {
    return await fn();
  } catch {
    return null;
  }
}

function splitTransports(transports: string | null | undefined): string[] | undefined {
  return transports ? transports.split(',').filter(Boolean) : undefined;
}

function pick<T extends object, K extends keyof T>(value: T | undefined, keys: K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  if (!value) return out;
  for (const k of keys) if (value[k] !== undefined) out[k] = value[k];
  return out;
}

