import { Inject, Injectable } from '@nestjs/common';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import { AUTH_DEFAULTS } from '../config/defaults.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { InvalidCheck } from '../errors/auth.errors.js';
import type { ResponseCookie } from '../types/http.types.js';
import { numericDateMs } from '../util/instant.js';
import { createJwtCodec, type JwtCodec } from '../session/jwt.js';
import { MemoryRateLimitStore } from '../rate-limit/memory-rate-limit.store.js';
import { RateLimitStore } from '../rate-limit/rate-limit.store.js';
import type { RequestContext } from '../core/request-context.js';
import { ExpiringMap } from '../util/expiring-map.js';

/** The check cookies: PKCE verifier, OAuth state, OIDC nonce, WebAuthn challenge, a second factor pending. */
export type CheckKind =
  'pkceCodeVerifier' | 'state' | 'nonce' | 'webauthnChallenge' | 'twoFactor' | 'twoFactorDevice' | 'nativeAuthorize';

/** How a check value is sealed. */
export interface SealCheckOptions {
  /** The id of the provider the value is for; `open` refuses it for any other provider. */
  provider: string;
  /** Seconds the cookie (and the sealed value) live. @default 900 */
  maxAge?: number;
  /**
   * Set `SameSite=None; Secure`, for a callback that arrives as a cross-site POST
   * (`response_mode=form_post`), which a `Lax` cookie would not accompany. @default false
   */
  sameSiteNone?: boolean;
  /** Extra data sealed with the value (e.g. the WebAuthn ceremony and registration data). */
  data?: Record<string, unknown>;
}

/** How a check value is opened. */
export interface OpenCheckOptions {
  /**
   * Refuse a second `open` of the same sealed value in this process, until it expires, with
   * `InvalidCheck` ("replayed"). @default false
   */
  consume?: boolean;
  /**
   * Leave the cookie with the client (a check that serves several requests, e.g. a second factor
   * pending while the user retries a code); end it with {@link ChecksService.discard}. @default false
   */
  keep?: boolean;
}

/** An opened check. */
export interface OpenedCheck {
  value: string;
  data?: Record<string, unknown>;
}

/** What is sealed in a check cookie. `kind` keeps a value of one check from serving as another. */
interface CheckPayload {
  value: string;
  provider: string;
  kind: CheckKind;
  data?: Record<string, unknown>;
}

/** Most remembered consumed checks; past it the oldest entry is forgotten (an `ExpiringMap`: expired ids are swept first). */
const CONSUMED_MAX = 50_000;
/** Most codecs kept (one per cookie name and lifetime: a handful in practice). */
const CODECS_MAX = 32;

const LABELS: Record<CheckKind, string> = {
  pkceCodeVerifier: 'PKCE code_verifier',
  state: 'state',
  nonce: 'nonce',
  webauthnChallenge: 'WebAuthn challenge',
  twoFactor: 'second-factor',
  twoFactorDevice: 'remembered device',
  nativeAuthorize: 'app authorization',
};

/**
 * Seals check values (PKCE code_verifier, state, nonce, WebAuthn challenge) into short-lived,
 * encrypted cookies bound to the provider that minted them, and opens them on the callback.
 *
 * A sealed value is a JWE (the session format) keyed with the cookie's name as salt, so a check
 * cookie can never be read as a session or as another check. Opening deletes the cookie on the
 * client; with `consume` the value is also refused if it comes back (replay) within its lifetime.
 * Replay tracking uses the configured `rateLimitStore` when it is shared (e.g. `RedisRateLimitStore`),
 * so a check used on one instance is refused on every other; with the default in-memory store it
 * is per process (in its own bounded map, so a flood of sign-ins cannot evict lockout counters).
 */
@Injectable()
export class ChecksService {
  private readonly codecs = new Map<string, JwtCodec>();
  private readonly consumed = new ExpiringMap<string, true>(CONSUMED_MAX);
  /** What {@link consume} needs of each check {@link open} returned: its kind, id and expiry. */
  private readonly ids = new WeakMap<OpenedCheck, { kind: CheckKind; jti: unknown; exp: unknown }>();

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    @Inject(RateLimitStore) private readonly store: RateLimitStore,
  ) {}

  /**
   * Seals `value` and adds the check cookie to `ctx.responseCookies`, with the cookie's configured
   * name and options, `maxAge` and `expires`.
   *
   * @throws TypeError when the value or provider is empty (a bug in the caller, not bad input)
   */
  async seal(ctx: RequestContext, kind: CheckKind, value: string, opts: SealCheckOptions): Promise<void> {
    if (typeof value !== 'string' || value.length === 0)
      throw new TypeError(`The ${LABELS[kind]} value to seal is empty.`);
    if (typeof opts.provider !== 'string' || opts.provider.length === 0)
      throw new TypeError('A check needs the provider it is for.');
    const maxAge = opts.maxAge ?? AUTH_DEFAULTS.checkMaxAge;
    const cookie = ctx.cookies[kind];
    const payload: CheckPayload = {
      value,
      provider: opts.provider,
      kind,
      ...(opts.data !== undefined ? { data: opts.data } : {}),
    };
    const sealed = await this.codec(cookie.name, maxAge).encode({ ...payload });
    const options: ResponseCookie['options'] = {
      ...cookie.options,
      maxAge,
      expires: new Date(Date.now() + maxAge * 1000),
    };
    if (opts.sameSiteNone) {
      options.sameSite = 'none';
      options.secure = true;
    }
    ctx.responseCookies.push({ name: cookie.name, value: sealed, options });
  }

  /**
   * Opens the check cookie of `kind` for `provider` and adds its deletion to
   * `ctx.responseCookies` (whatever the outcome, so a bad cookie does not linger).
   *
   * @throws InvalidCheck when the cookie is missing, cannot be decrypted (tampered, other secret),
   *   has expired, holds another check, was minted for another provider, or (with `consume`) was
   *   already opened. The message says which and why, never the value.
   */
  async open(
    ctx: RequestContext,
    kind: CheckKind,
    provider: string,
    opts: OpenCheckOptions = {},
  ): Promise<OpenedCheck> {
    const cookie = ctx.cookies[kind];
    const label = LABELS[kind];
    const raw = ctx.request.cookies[cookie.name];
    if (!raw)
      throw new InvalidCheck(
        `The ${label} cookie was missing: the sign-in was not started in this browser, or took too long.`,
      );
    if (!opts.keep) ctx.responseCookies.push(this.deletion(cookie.name, cookie.options));

    const result = await this.codec(cookie.name, AUTH_DEFAULTS.checkMaxAge).inspect(raw);
    if (result.status !== 'valid') {
      throw new InvalidCheck(
        result.status === 'expired'
          ? `The ${label} cookie has expired: start the sign-in again.`
          : `The ${label} cookie could not be decrypted: it was altered, or sealed with another secret.`,
      );
    }
    const payload = result.payload as Partial<CheckPayload> & { jti?: unknown; exp?: unknown };
    if (payload.kind !== kind || typeof payload.value !== 'string' || payload.value.length === 0) {
      throw new InvalidCheck(`The ${label} cookie does not hold a ${label} value.`);
    }
    if (payload.provider !== provider) {
      throw new InvalidCheck(`The ${label} cookie was minted for another provider than "${provider}".`);
    }
    if (opts.consume) {
      const now = Date.now();
      const jti = typeof payload.jti === 'string' ? payload.jti : undefined;
      const expiresAt = numericDateMs(payload.exp) ?? now;
      if (!jti) throw new InvalidCheck(`The ${label} cookie has no id, so it cannot be used once only.`);
      if (!(await this.consumeOnce(`${kind}:${jti}`, expiresAt, now, label))) {
        throw new InvalidCheck(`The ${label} cookie was replayed: it was already used.`);
      }
    }
    const isRecord = (v: unknown): v is Record<string, unknown> =>
      typeof v === 'object' && v !== null && !Array.isArray(v);
    const opened = isRecord(payload.data) ? { value: payload.value, data: payload.data } : { value: payload.value };
    this.ids.set(opened, { kind, jti: payload.jti, exp: payload.exp });
    return opened;
  }

  /**
   * Uses up a check this request opened with `keep` (what `open` with `consume` does, without
   * decrypting the cookie again): refused as "replayed" when it was used before, as "expired" when it
   * expired since; the cookie is deleted on the client.
   *
   * @throws TypeError when `opened` is not what {@link open} returned for `kind` (a bug in the caller)
   */
  async consume(ctx: RequestContext, kind: CheckKind, opened: OpenedCheck): Promise<void> {
    const id = this.ids.get(opened);
    if (!id || id.kind !== kind) throw new TypeError(`The ${LABELS[kind]} check to consume was not opened here.`);
    const cookie = ctx.cookies[kind];
    const label = LABELS[kind];
    ctx.responseCookies.push(this.deletion(cookie.name, cookie.options));
    const now = Date.now();
    const expiresAt = numericDateMs(id.exp) ?? now;
    if (expiresAt <= now) throw new InvalidCheck(`The ${label} cookie has expired: start the sign-in again.`);
    if (typeof id.jti !== 'string' || !id.jti)
      throw new InvalidCheck(`The ${label} cookie has no id, so it cannot be used once only.`);
    if (!(await this.consumeOnce(`${kind}:${id.jti}`, expiresAt, now, label)))
      throw new InvalidCheck(`The ${label} cookie was replayed: it was already used.`);
  }

  /** Deletes the check cookie of `kind` on the client (one opened with `keep`). */
  discard(ctx: RequestContext, kind: CheckKind): void {
    const cookie = ctx.cookies[kind];
    ctx.responseCookies.push(this.deletion(cookie.name, cookie.options));
  }

  /**
   * Records a check id as used until it expires; false when it was used before. Shared stores count
   * atomically across instances (the first increment wins); a store that does not answer refuses
   * the check rather than risk a replay.
   */
  private async consumeOnce(id: string, expiresAt: number, now: number, label: string): Promise<boolean> {
    if (this.store instanceof MemoryRateLimitStore) return this.consumed.remember(id, true, expiresAt, now);
    try {
      const { count } = await this.store.increment(`check:${id}`, Math.max(1_000, expiresAt - now));
      return count === 1;
    } catch (error) {
      throw new InvalidCheck(
        `The ${label} cookie could not be checked for replay: the rate-limit store did not answer. Try again.`,
        { cause: error },
      );
    }
  }

  /** The deletion cookie of a check cookie: same attributes, empty value, `maxAge: 0`. */
  private deletion(name: string, options: ResponseCookie['options']): ResponseCookie {
    const { expires: _expires, ...rest } = options;
    return { name, value: '', options: { ...rest, maxAge: 0 } };
  }

  private codec(salt: string, maxAge: number): JwtCodec {
    const key = `${maxAge}\u0000${salt}`;
    let codec = this.codecs.get(key);
    if (!codec) {
      codec = createJwtCodec(this.config.secrets, salt, maxAge);
      if (this.codecs.size >= CODECS_MAX) this.codecs.delete(this.codecs.keys().next().value!);
      this.codecs.set(key, codec);
    }
    return codec;
  }
}
