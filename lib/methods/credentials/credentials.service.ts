import { createHash, randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { AdapterService } from '../../core/adapter.service.js';
import { AUTH_CONFIG } from '../../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../../config/resolved-config.js';
import { CallbackRouteError, CredentialsSignin, InvalidRequest } from '../../errors/auth.errors.js';
import { CREDENTIALS_DEFAULTS, resolveLockout } from './credentials.provider.js';
import type { CredentialsConfig, CredentialsLockoutOptions } from './credentials.types.js';
import type { User } from '../../types/common.types.js';
import type { AuthRequest, AuthResponse } from '../../types/http.types.js';
import { prepareDummyHash } from './password.js';
import { clientIpBucket } from '../../rate-limit/client-ip.js';
import { RateLimiterService } from '../../rate-limit/rate-limiter.service.js';
import type { ProviderContext, ProviderFlow } from '../../core/request-context.js';
import { SignInService } from '../../sign-in/sign-in.service.js';
import { providerOfType } from '../../providers/internal-provider.js';
import { toWebRequest } from '../../core/web-request.js';

/** Longest `code` a `CredentialsSignin` subclass may put in the sign-in page's URL. */
const MAX_CODE_LENGTH = 64;

/**
 * `POST {basePath}/callback/<credentials provider>` (the router has checked CSRF): reads the form
 * fields, enforces the lockout, calls `authorize`, and hands the user to `SignInService`, which
 * starts a JWT or a database session.
 *
 * Brute force: every attempt is counted per identifier and per client IP *before* `authorize` runs
 * (so parallel requests cannot slip past the limit); a success takes its count back. Failures all
 * look the same to the client: `CredentialsSignin` with code `credentials` (or the code of a
 * `CredentialsSignin` subclass `authorize` threw).
 */
@Injectable()
export class CredentialsService implements ProviderFlow, OnApplicationBootstrap {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly adapters: AdapterService,
    private readonly signIns: SignInService,
    private readonly limiter: RateLimiterService,
  ) {}

  /** Credentials arrive as a form post: the router takes only a POST with the CSRF token. */
  readonly callbackIsFormPost = true;

  /** With a credentials provider, make `verifyPassword`'s dummy hash now rather than on the first unknown user. */
  onApplicationBootstrap(): void {
    if (this.config.providers.some((p) => p.type === 'credentials')) void prepareDummyHash();
  }

  /** Handles `POST /callback/<id>`: the session cookie and redirect on success, a typed error otherwise. */
  async callback(ctx: ProviderContext): Promise<AuthResponse> {
    const provider = providerOfType(ctx.provider, 'credentials').config;
    if (this.config.session.strategy === 'database' && this.adapters.raw !== null) {
      // Fails with MissingAdapterMethods before anything is counted or written.
      this.adapters.require('getUserByAccount', 'createUser', 'linkAccount');
    }
    const credentials = readCredentials(ctx.request, provider);
    const lockout = resolveLockout(provider);
    const keys = lockout ? limitKeys(ctx, lockout, credentials) : [];
    await this.limiter.hitAll(keys.map((k) => ({ key: k.key, ...k.rule })));

    const user = await this.authorize(ctx, provider, credentials);
    if (!user) throw new CredentialsSignin('The credentials were refused.');
    await this.forgiveAttempt(keys);

    const id = userId(user, this.config.session.strategy === 'database');
    return this.signIns.completeSignIn(ctx, {
      user: { ...user, id },
      account: { provider: ctx.provider.id, providerAccountId: id, type: 'credentials' } as never,
      credentials,
    });
  }

  /**
   * Calls the provider's `authorize`. `null` → null; a `CredentialsSignin` (subclass) is rethrown
   * with a safe `code`; any other error is logged (its message only: never the credentials) and
   * becomes a generic `CredentialsSignin`.
   */
  private async authorize(
    ctx: ProviderContext,
    provider: CredentialsConfig,
    credentials: Record<string, string>,
  ): Promise<User | null> {
    try {
      const user = await provider.authorize({ ...credentials } as never, toWebRequest(ctx.request, { cookies: true }));
      if (user === null || user === undefined) return null;
      if (typeof user !== 'object') {
        throw new TypeError('authorize() must return a user object or null');
      }
      return user;
    } catch (error) {
      if (error instanceof CredentialsSignin) {
        if (typeof error.code !== 'string' || error.code === '' || error.code.length > MAX_CODE_LENGTH)
          error.code = 'credentials';
        throw error;
      }
      const message = error instanceof Error ? error.message : typeof error;
      this.config.logger.error(
        new CallbackRouteError(`authorize() of provider ${JSON.stringify(ctx.provider.id)} threw: ${message}`),
      );
      throw new CredentialsSignin('The credentials could not be checked.');
    }
  }

  /** A success clears the identifier's failures and takes back this attempt from the IP's count. */
  private async forgiveAttempt(keys: LimitKey[]): Promise<void> {
    await Promise.all(
      keys.map((k) => (k.kind === 'identifier' ? this.limiter.reset(k.key) : this.limiter.release(k.key))),
    );
  }
}

interface LimitKey {
  kind: 'identifier' | 'ip';
  key: string;
  rule: { limit: number; windowSeconds: number };
}

/** The rate-limit keys of this attempt: the identifier (hashed: no addresses in the store) and the client IP. */
function limitKeys(
  ctx: ProviderContext,
  lockout: Required<CredentialsLockoutOptions>,
  credentials: Record<string, string>,
): LimitKey[] {
  const keys: LimitKey[] = [];
  const prefix = `credentials:${ctx.provider.id}`;
  const identifier = credentials[lockout.identifierField]?.normalize('NFKC').trim().toLowerCase();
  if (identifier) {
    const digest = createHash('sha256').update(identifier).digest('base64url');
    keys.push({
      kind: 'identifier',
      key: `${prefix}:id:${digest}`,
      rule: { limit: lockout.maxAttempts, windowSeconds: lockout.windowSeconds },
    });
  }
  const ip = clientIpBucket(ctx.request.ip);
  if (ip)
    keys.push({
      kind: 'ip',
      key: `${prefix}:ip:${ip}`,
      rule: { limit: lockout.maxAttemptsPerIp, windowSeconds: lockout.windowSeconds },
    });
  return keys;
}

/**
 * The submitted values of the provider's `credentials` fields: strings of bounded length only
 * (a repeated field, an object or an oversized value is `InvalidRequest`); other body fields are
 * not passed on.
 */
function readCredentials(request: AuthRequest, provider: CredentialsConfig): Record<string, string> {
  const max = provider.maxInputLength ?? CREDENTIALS_DEFAULTS.maxInputLength;
  const out: Record<string, string> = {};
  for (const name of Object.keys(provider.credentials ?? {})) {
    if (!Object.hasOwn(request.body, name)) continue;
    const value = request.body[name];
    if (typeof value !== 'string') {
      throw new InvalidRequest(`The credentials field ${JSON.stringify(name)} must be a single text value.`);
    }
    if (value.length > max) {
      throw new InvalidRequest(`The credentials field ${JSON.stringify(name)} is longer than ${max} characters.`);
    }
    out[name] = value;
  }
  return out;
}

/** The user's id as a string. Without storage a missing id gets a random one (as Auth.js); with it, it is required. */
function userId(user: User, stored: boolean): string {
  const id = (user as { id?: unknown }).id;
  if ((typeof id === 'string' && id !== '') || (typeof id === 'number' && Number.isFinite(id))) return String(id);
  if (!stored) return randomUUID();
  throw new CallbackRouteError(
    'authorize() returned a user without an `id`; with database sessions the id names the stored user: return it.',
  );
}
