import { Inject, Injectable } from '@nestjs/common';
import { AUTH_CONFIG } from '../../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../../config/resolved-config.js';
import { AdapterService } from '../../core/adapter.service.js';
import type { RequestContext } from '../../core/request-context.js';
import { wantsJson } from '../../core/web-request.js';
import { InvalidCheck, InvalidTwoFactorCode, RateLimited } from '../../errors/auth.errors.js';
import { loadRenderers } from '../../pages/load-renderers.js';
import { signInErrorMessage } from '../../pages/signin.messages.js';
import { RateLimiterService } from '../../rate-limit/rate-limiter.service.js';
import { MFA } from '../../session/assurance.js';
import { SECOND_FACTORS, type ChallengeFlow, type SecondFactorProvider } from '../../sign-in/sign-in-method.js';
import { SignInService } from '../../sign-in/sign-in.service.js';
import type { AuthResponse } from '../../types/http.types.js';
import { qrSvg } from './qr.js';
import { totpUri } from './totp.js';
import { openTotpSecret } from './totp-secret.js';
import { PendingSignIns, type PendingSignIn } from './two-factor.pending.js';
import { TwoFactors, type SecondFactorMethod } from './two-factors.service.js';
import { RememberedDevices } from './two-factor.device.js';

/** The answer to the second factor's page that the user must not keep in history or caches. */
const PRIVATE = { 'Cache-Control': 'no-store' };

/**
 * `GET` and `POST {basePath}/two-factor`: where a pending sign-in (see `TwoFactorStep`) is completed.
 * `GET` shows the challenge (an authenticator app's code, or a backup code) or, for a user the policy
 * requires to have a second factor and who has none, the enrolment of an app; JSON clients get what
 * the page shows. `POST` checks the code: wrong codes count towards a lockout per user
 * (`twoFactor.maxAttempts` in `lockoutWindow`, `RateLimited` with `Retry-After`); the right one
 * consumes the pending state and ends the sign-in with a new session whose `amr` says what was
 * proved. `cancel=1` drops the pending state (sign in another way).
 */
@Injectable()
export class TwoFactorChallenge implements ChallengeFlow {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly factors: TwoFactors,
    private readonly pending: PendingSignIns,
    private readonly signIns: SignInService,
    private readonly limiter: RateLimiterService,
    private readonly adapters: AdapterService,
    @Inject(SECOND_FACTORS) private readonly others: readonly SecondFactorProvider[],
    private readonly devices: RememberedDevices,
  ) {}

  /**
   * What the user can prove the second factor with: an app's code, backup codes, and the other
   * methods' (a passkey). `own`: the app's and backup codes' methods, when already known.
   */
  private async methodsOf(pending: PendingSignIn, own?: readonly string[]): Promise<string[]> {
    const { userId } = pending;
    own ??= await this.factors.methods(userId);
    const others = await Promise.all(
      this.others.map(async (f) => ((await f.available(userId, pending.amr)) ? f.method : null)),
    );
    return [...own, ...others.filter((m): m is string => m !== null && !own.includes(m))];
  }

  /**
   * `GET /two-factor`: the challenge (or the enrolment), as a page or JSON. `shown`: the method the
   * page asks for after a code was sent (by email), and where it went.
   */
  async page(ctx: RequestContext, error?: string, shown?: { method: string; sentTo?: string }): Promise<AuthResponse> {
    if (ctx.request.query.cancel === '1') {
      this.pending.discard(ctx);
      return { redirect: `${ctx.authUrl}/signin` };
    }
    const pending = await this.pending.open(ctx);
    const methods = await this.methodsOf(pending);
    if (!methods.length) return this.enrolPage(ctx, pending, error);
    // `?options=passkey`: what the browser needs to start that method's ceremony (JSON). A method
    // whose options send something (a mail) is asked with a POST, never here.
    const other = this.others.find((f) => f.method === ctx.request.query.options && !f.sends);
    if (other) {
      if (!methods.includes(other.method))
        throw new InvalidTwoFactorCode('This way of proving your second factor is not set up.');
      return { json: { method: other.method, options: await other.options(ctx, pending.userId) }, headers: PRIVATE };
    }
    if (wantsJson(ctx.request))
      return {
        json: { csrfToken: ctx.csrfToken, methods, expires: new Date(pending.until).toISOString() },
        headers: PRIVATE,
      };
    const codes = methods.filter(isCodeMethod);
    const requested = [shown?.method, ctx.request.body.method, ctx.request.query.method].find(
      (m): m is CodeMethod => isCodeMethod(m) && codes.includes(m),
    );
    const method: CodeMethod = requested ?? (codes.includes('totp') ? 'totp' : (codes[0] ?? 'totp'));
    // The email code's field shows once a code was asked for (this request, or the one it answers).
    const emailForm = method === 'email-code' && (shown !== undefined || requested === 'email-code');
    const { renderTwoFactorChallengePage } = await loadRenderers();
    const action = `${ctx.authUrl}/two-factor`;
    return {
      status: error ? 400 : 200,
      headers: PRIVATE,
      html: renderTwoFactorChallengePage({
        action,
        csrfToken: ctx.csrfToken,
        methods: codes.filter((m) => m !== 'email-code' || emailForm),
        method,
        ...(methods.includes('passkey') ? { passkey: { scriptUrl: `${ctx.authUrl}/webauthn-client.js` } } : {}),
        ...(codes.includes('email-code') ? { emailCode: shown?.sentTo ? { sentTo: shown.sentTo } : {} } : {}),
        ...(this.devices.enabled ? { rememberDays: Math.round(this.config.twoFactor!.rememberDevice / 86_400) } : {}),
        switchUrl: (m) => (m === 'totp' ? action : `${action}?method=${m}`),
        cancelUrl: `${action}?cancel=1`,
        ...(error ? { error } : {}),
        theme: this.config.theme,
        messages: this.config.messages,
      }),
    };
  }

  /** The enrolment a required second factor starts with: a secret kept in the pending state until confirmed. */
  private async enrolPage(ctx: RequestContext, pending: PendingSignIn, error?: string): Promise<AuthResponse> {
    let sealed = pending.enrolSecret;
    let secret = sealed ? openTotpSecret(sealed, this.config.secrets) : null;
    if (!sealed || !secret) {
      const label = await this.labelOf(pending.userId);
      const made = this.factors.newSecret(label, ctx.origin);
      sealed = made.sealed;
      secret = made.secret;
      await this.pending.seal(ctx, { ...pending, enrolSecret: sealed });
    }
    const label = await this.labelOf(pending.userId);
    const issuer = this.config.twoFactor!.issuer ?? new URL(ctx.origin).hostname;
    const uri = totpUri({ issuer, label: label || issuer, secret });
    const svg = await qrSvg(uri, { label: 'QR code', className: 'qr-code' });
    if (wantsJson(ctx.request))
      return {
        json: { csrfToken: ctx.csrfToken, methods: [], enrol: { secret, uri, qrSvg: svg } },
        headers: PRIVATE,
      };
    const { renderTwoFactorEnrolPage } = await loadRenderers();
    return {
      status: error ? 400 : 200,
      headers: PRIVATE,
      html: renderTwoFactorEnrolPage({
        action: `${ctx.authUrl}/two-factor`,
        csrfToken: ctx.csrfToken,
        qrSvg: svg,
        uri,
        secret,
        required: true,
        nameField: false,
        cancelUrl: `${ctx.authUrl}/two-factor?cancel=1`,
        ...(error ? { error } : {}),
        theme: this.config.theme,
        messages: this.config.messages,
      }),
    };
  }

  async submit(ctx: RequestContext): Promise<AuthResponse> {
    const json = wantsJson(ctx.request);
    const body = ctx.request.body;
    if (body.cancel === '1' || body.cancel === true) {
      this.pending.discard(ctx);
      return { redirect: `${ctx.authUrl}/signin` };
    }
    const pending = await this.pending.open(ctx);
    const key = `two-factor:user:${pending.userId}`;
    const settings = this.config.twoFactor!;
    // "Email me a code": the method sends one (its own limit), and the page asks for it.
    const sender = this.others.find((f) => f.sends && f.method === body.method);
    if (sender && (body.send === '1' || body.send === true)) {
      if (!(await this.methodsOf(pending)).includes(sender.method))
        throw new InvalidTwoFactorCode('This way of proving your second factor is not set up.');
      const sent = (await sender.options(ctx, pending.userId)) as { to?: string };
      if (json) return { json: { method: sender.method, ...sent }, headers: PRIVATE };
      return this.page(ctx, undefined, { method: sender.method, ...(sent.to ? { sentTo: sent.to } : {}) });
    }
    try {
      // Every attempt is counted before it is checked (so concurrent guesses cannot pass the limit);
      // the right code clears the count.
      await this.limiter.hit(key, { limit: settings.maxAttempts, windowSeconds: settings.lockoutWindow });
      const proved = await this.prove(ctx, pending, body);
      await this.limiter.reset(key);
      // Once only: of two requests with one pending state, one gets the session (and one stores
      // the app of a required enrolment: the write comes after, on every instance).
      await this.pending.consume(ctx, pending);
      if (proved.enrolStep !== undefined)
        proved.backupCodes = await this.factors.enrolConfirmed(pending.userId, pending.enrolSecret!, proved.enrolStep);
      const user = await this.adapters.require('getUser').getUser(pending.userId);
      if (!user) throw new InvalidCheck('The account of this sign-in no longer exists: sign in again.');
      const response = await this.signIns.finishSignIn(ctx, {
        user,
        account: pending.account,
        ...(pending.profile ? { profile: pending.profile } : {}),
        isNewUser: pending.isNewUser,
        amr: [...pending.amr, ...proved.amr, MFA],
        ...(pending.providerSid ? { providerSid: pending.providerSid } : {}),
        callbackUrl: pending.callbackUrl,
      });
      // "Don't ask again on this device", once the session exists: for a factor the user already had.
      if (remembers(body.remember) && proved.enrolStep === undefined) await this.devices.remember(ctx, pending.userId);
      if (!proved.backupCodes) return response;
      // A required enrolment: the backup codes are shown once, then the sign-in goes on.
      if (json)
        return {
          ...response,
          json: { url: response.redirect, backupCodes: proved.backupCodes },
          redirect: undefined,
          headers: PRIVATE,
        };
      const { renderBackupCodesPage } = await loadRenderers();
      return {
        cookies: response.cookies,
        headers: PRIVATE,
        html: renderBackupCodesPage({
          codes: proved.backupCodes,
          continueUrl: response.redirect!,
          regenerated: false,
          theme: this.config.theme,
          messages: this.config.messages,
        }),
      };
    } catch (error) {
      // A wrong code or a lockout is shown on the page it was typed into; JSON clients get the error.
      if (json || !(error instanceof InvalidTwoFactorCode || error instanceof RateLimited)) throw error;
      const response = await this.page(ctx, signInErrorMessage(error.type, this.config.messages));
      return error instanceof RateLimited
        ? { ...response, status: 429, headers: { ...response.headers, 'Retry-After': String(error.retryAfter) } }
        : response;
    }
  }

  /** Checks what the request proves: the method's references, and the backup codes of a new enrolment. */
  private async prove(
    ctx: RequestContext,
    pending: PendingSignIn,
    body: Record<string, unknown>,
  ): Promise<{ amr: string[]; enrolStep?: number; backupCodes?: string[] }> {
    const method = typeof body.method === 'string' && body.method ? body.method : 'totp';
    // The user's factors, read once: an app's code or a backup code is checked against the rows that
    // listed it (the adapter's compare-and-set or delete decides its use), without asking the other
    // methods whether they are available.
    const factors = await this.factors.factorsOf(pending.userId);
    const own = this.factors.methodsIn(factors);
    if (own.includes(method as SecondFactorMethod) && !this.others.some((f) => f.method === method))
      return { amr: [await this.factors.verify(pending.userId, method as SecondFactorMethod, body.code, factors)] };
    const methods = await this.methodsOf(pending, own);
    if (!methods.length) {
      // Enrolment required at sign-in: the app's first code proves it, and it is stored.
      if (!pending.enrolSecret)
        throw new InvalidTwoFactorCode('Open the two-factor page first: it shows the code to scan.');
      return { amr: ['otp'], enrolStep: await this.factors.checkEnrolment(pending.enrolSecret, body.code) };
    }
    if (!methods.includes(method))
      throw new InvalidTwoFactorCode('This way of proving your second factor is not set up.');
    // Another method's factor (a passkey) checks its own answer; the app's code and backup codes are ours.
    const other = this.others.find((f) => f.method === method);
    if (other) return { amr: await other.verify(ctx, pending.userId, body) };
    return { amr: [await this.factors.verify(pending.userId, method as SecondFactorMethod, body.code, factors)] };
  }

  /** What the authenticator app shows the account as: the user's address, else their name. */
  private async labelOf(userId: string): Promise<string> {
    const user = await this.adapters.require('getUser').getUser(userId);
    return user?.email ?? user?.name ?? '';
  }
}

/** The page's "Don't ask again on this device" box (form: `'1'`; JSON: `true` too). */
function remembers(value: unknown): boolean {
  return value === '1' || value === true;
}

/** The methods whose proof is a code typed into the page's form. */
type CodeMethod = 'totp' | 'backup-code' | 'email-code';

function isCodeMethod(m: unknown): m is CodeMethod {
  return m === 'totp' || m === 'backup-code' || m === 'email-code';
}
