import { Inject, Injectable } from '@nestjs/common';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import {
  InvalidRequest,
  isClientError,
  RateLimited,
  ReauthenticationRequired,
  UnknownAction,
} from '../errors/auth.errors.js';
import type { RequestContext } from '../core/request-context.js';
import { AuthEvents } from '../core/auth-events.js';
import { csrfRefusal } from '../core/csrf.js';
import { RequestErrorLog } from '../core/error-log.js';
import { clientIpBucket } from '../rate-limit/client-ip.js';
import { RateLimiterService } from '../rate-limit/rate-limiter.service.js';
import { assertRecentSignIn } from '../session/recent-sign-in.js';
import { ApiKeys, type CreatedApiKey } from '../tokens/api-keys.service.js';
import { WaysInGate, type WayInChange } from '../sign-in/ways-in.gate.js';
import { SessionIssuer } from '../session/session-issuer.js';
import { SessionList } from '../session/session-list.js';
import { SessionReader } from '../session/session-reader.js';
import type { AuthUser, SessionState } from '../session/session.types.js';
import { toWebRequest } from '../core/web-request.js';
import type { AuthResponse, ResponseCookie } from '../types/http.types.js';
import { EmailChangeService } from './email-change.service.js';
import { Passkeys } from './passkeys.js';
import { PasswordChangeService } from './password-change.service.js';
import { AccountManagementService } from '../sign-in/account-management.service.js';
import { accountPage, emailConfirmPage, isJsonRequest, type AccountSections } from './account-page.js';
import { isOAuthAccount, oauthProvidersOf } from '../methods/oauth/index.js';
import { TwoFactors, type TotpEnrolment } from '../methods/two-factor/index.js';
import { loadRenderers } from '../pages/load-renderers.js';

/** The signed-in request an account action works with. */
export interface AccountRequest {
  ctx: RequestContext;
  user: AuthUser;
  state: Extract<SessionState, { status: 'active' }>;
}

/**
 * What an account action asks of its session before it runs (`AccountRoutes.list()` lists them;
 * `test/ways-in.e2e-spec.ts` holds every action to its check from outside):
 * - `{ wayIn }`: it adds, changes or removes a way into the account: through the {@link WaysInGate};
 * - `'recent'`: sensitive without touching a way in (ending sessions, deleting the account): a
 *   recent sign-in;
 * - `'link'`: the single-use link it carries is the proof (confirming an email change that was
 *   started through the gate).
 */
export type AccountActionCheck = { wayIn: WayInChange } | 'recent' | 'link';

/** One state-changing action: its answer (JSON), the page's notice, and what it asks of the session. */
interface AccountAction {
  check: AccountActionCheck;
  run(
    req: AccountRequest,
    body: Record<string, unknown>,
  ): Promise<{ json: unknown; notice?: string; redirect?: string; cookies?: ResponseCookie[]; html?: string }>;
}

/**
 * The paths below `{basePath}/account` that `GET` answers ('' is the page itself); `email/confirm`
 * is a page for a browser only. `account-routes.spec.ts` holds `handle` to this list.
 */
export const ACCOUNT_GET_PATHS: readonly string[] = Object.freeze([
  '',
  'passkeys',
  'sessions',
  'accounts',
  'email/confirm',
  'two-factor',
  'api-keys',
]);

/** State-changing requests per user and per client IP in a window (each sends a mail, a hash, a write). */
const LIMIT = { perUser: 30, perIp: 100, windowSeconds: 600 };

/**
 * `{basePath}/account` and below: the account page (`GET /account`), its JSON twin for SPAs (the
 * same URL with `Accept: application/json`) and the actions, all `POST`: forms are redirected back
 * to the page with `?notice=` or `?error=`, JSON requests get JSON (`{ error, message }` with
 * 401/403/429/400 on failure). Every action needs the session, the CSRF token (`csrfToken` in the
 * body or the `X-CSRF-Token` header) and passes the rate limit; sensitive ones a recent sign-in
 * (`account.recentSignInMaxAge`): refused with `ReauthenticationRequired`, and a form is sent to
 * sign in again and come back to the page.
 */
@Injectable()
export class AccountRoutes {
  private readonly actions = new Map<string, AccountAction>();

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly reader: SessionReader,
    private readonly issuer: SessionIssuer,
    private readonly sessions: SessionList,
    private readonly passkeys: Passkeys,
    private readonly emailChange: EmailChangeService,
    private readonly passwords: PasswordChangeService,
    private readonly limiter: RateLimiterService,
    private readonly errorLog: RequestErrorLog,
    private readonly accounts: AccountManagementService,
    private readonly gate: WaysInGate,
    private readonly events: AuthEvents,
    private readonly twoFactors: TwoFactors,
    private readonly apiKeys: ApiKeys,
  ) {
    this.register('passkeys/rename', 'recent', async ({ user }, b) => ({
      json: { passkey: await this.passkeys.rename(user.id, textOf(b.credentialID), nullable(b.name)) },
      notice: 'passkey-renamed',
    }));
    this.register('passkeys/delete', { wayIn: 'remove-passkey' }, async ({ user }, b) => {
      await this.passkeys.delete(user.id, textOf(b.credentialID));
      return { json: { ok: true }, notice: 'passkey-removed' };
    });
    this.register('email', { wayIn: 'change-email' }, async ({ ctx, user }, b) => {
      const sent = await this.emailChange.request(user.id, b.email, this.links(ctx));
      return { json: { ok: true, email: sent.email, expires: sent.expires }, notice: 'email-sent' };
    });
    // Following the link is the proof (of the new address); the session says whose account changes.
    this.register('email/confirm', 'link', async ({ ctx, user }, b) => {
      const done = await this.emailChange.confirm(user.id, b.token, b.email, this.links(ctx));
      return { json: { ok: true, email: done.email }, notice: 'email-changed' };
    });
    this.register('sessions/end', 'recent', async ({ user }, b) => {
      await this.sessions.end(user.id, b.id);
      this.events.emit('accountChange', { action: 'session.end', userId: user.id, detail: { id: textOf(b.id) } });
      return { json: { ok: true }, notice: 'session-ended' };
    });
    this.register('sessions/end-others', 'recent', async ({ user, state }) => {
      const ended = await this.sessions.endOthers(state);
      this.events.emit('accountChange', { action: 'sessions.end-others', userId: user.id });
      return { json: { ok: true, ended }, notice: 'sessions-ended' };
    });
    this.register('accounts/unlink', { wayIn: 'unlink-account' }, async ({ user }, b) => {
      const key = { provider: b.provider as string, providerAccountId: b.providerAccountId as string };
      await this.accounts.unlinkAccount(user.id, key);
      this.events.emit('accountChange', {
        action: 'account.unlink',
        userId: user.id,
        detail: { provider: key.provider },
      });
      return { json: { ok: true }, notice: 'account-unlinked' };
    });
    this.register('delete', 'recent', async ({ ctx, user }, b) => {
      if (b.confirm !== 'yes' && b.confirm !== true)
        throw new InvalidRequest("Deleting the account needs `confirm: true` (the form's checkbox).");
      await this.accounts.deleteAccount(user.id);
      this.events.emit('accountChange', { action: 'user.delete', userId: user.id });
      // The session went with the user; clear the cookie (a JWT is revoked when revocation is on).
      const cookies = await this.issuer.signOut(ctx).catch(() => undefined);
      return { json: { ok: true }, redirect: ctx.origin, cookies };
    });
    this.register('password', { wayIn: 'set-password' }, async ({ user }, b) => {
      await this.passwords.set(user.id, b.newPassword, b.currentPassword, { requireCurrent: true });
      return { json: { ok: true }, notice: 'password-set' };
    });
    this.register('two-factor/totp', { wayIn: 'add-second-factor' }, async ({ ctx, user }) => {
      const enrolment = await this.twoFactors.startTotp(user.id, user.email ?? user.name ?? '', ctx.origin);
      return { json: enrolment, html: await this.enrolPage(ctx, enrolment) };
    });
    this.register('two-factor/confirm', { wayIn: 'add-second-factor' }, async ({ ctx, user }, b) => {
      const backupCodes = await this.twoFactors.confirmTotp(user.id, b.id, b.code, b.name);
      return {
        json: { backupCodes },
        notice: 'two-factor-added',
        ...(backupCodes ? { html: await this.backupCodesPage(ctx, backupCodes, false) } : {}),
      };
    });
    this.register('two-factor/rename', 'recent', async ({ user }, b) => ({
      json: { app: await this.twoFactors.rename(user.id, b.id, b.name) },
      notice: 'two-factor-renamed',
    }));
    this.register('two-factor/remove', { wayIn: 'remove-second-factor' }, async ({ user }, b) => {
      await this.twoFactors.remove(user, b.id);
      return { json: { removed: true }, notice: 'two-factor-removed' };
    });
    // A browser's form gets a page that shows the new key once; JSON gets `{ key, apiKey }`.
    this.register('api-keys/create', { wayIn: 'add-api-key' }, async ({ ctx, user }, b) => {
      const created = await this.apiKeys.create(user.id, { name: b.name, scopes: b.scopes, expires: b.expires });
      return { json: created, notice: 'api-key-created', ...(await this.newApiKeyPage(ctx, created, false)) };
    });
    this.register('api-keys/rotate', { wayIn: 'add-api-key' }, async ({ ctx, user }, b) => {
      const rotated = await this.apiKeys.rotate(user.id, b.id);
      return { json: rotated, notice: 'api-key-rotated', ...(await this.newApiKeyPage(ctx, rotated, true)) };
    });
    this.register('api-keys/revoke', 'recent', async ({ user }, b) => {
      await this.apiKeys.revoke(user.id, b.id);
      return { json: { ok: true }, notice: 'api-key-revoked' };
    });
    this.register('two-factor/backup-codes', { wayIn: 'add-second-factor' }, async ({ ctx, user }) => {
      const backupCodes = await this.twoFactors.regenerateBackupCodes(user.id);
      return { json: { backupCodes }, html: await this.backupCodesPage(ctx, backupCodes, true) };
    });
  }

  /**
   * Adds (or replaces) an action: how the integrations of other parts plug in. `check` says what
   * the session must show first; an action that touches a way in names its change.
   */
  register(path: string, check: AccountActionCheck, run: AccountAction['run']): void {
    this.actions.set(path, { check, run });
  }

  /** Every state-changing action (`POST {basePath}/account/{path}`) with the check it runs behind. */
  list(): Array<{ path: string; check: AccountActionCheck }> {
    return [...this.actions].map(([path, { check }]) => ({ path, check }));
  }

  /**
   * Every path this instance answers: the `GET` ones ({@link ACCOUNT_GET_PATHS}) and the registered
   * `POST` actions (tests that must reach every route, such as the route fuzzer, read it).
   */
  paths(): { get: readonly string[]; post: readonly string[] } {
    return { get: ACCOUNT_GET_PATHS, post: [...this.actions.keys()] };
  }

  /** Answers `{basePath}/account/{path}` (`path` empty for the page itself). Never throws. */
  async handle(ctx: RequestContext, path: string): Promise<AuthResponse> {
    const json = isJsonRequest(ctx.request);
    try {
      const req = await this.signedIn(ctx);
      const method = ctx.request.method;
      this.assertOffered(path);
      if (method === 'GET' || method === 'HEAD') {
        if (path === '') {
          const { passkeys, emailChange, passwords } = this;
          return await accountPage(this.config, { passkeys, emailChange, passwords }, req, json, (r) =>
            this.sections(r),
          );
        }
        if (path === 'passkeys') return { json: { passkeys: await this.passkeys.list(req.user.id) } };
        if (path === 'sessions') return { json: { sessions: await this.sessions.list(req.user.id, req.state) } };
        if (path === 'accounts') return { json: { accounts: await this.accounts.listAccounts(req.user.id) } };
        if (path === 'two-factor') return { json: await this.twoFactorSection(req.user) };
        if (path === 'api-keys') return { json: { apiKeys: await this.apiKeys.list(req.user.id) } };
        if (path === 'email/confirm' && !json) return await emailConfirmPage(this.config, ctx);
        throw new UnknownAction(`GET ${this.config.basePath}/account/${path.slice(0, 64)} is not supported.`);
      }
      const action = method === 'POST' ? this.actions.get(path) : undefined;
      if (!action)
        throw new UnknownAction(`${method} ${this.config.basePath}/account/${path.slice(0, 64)} is not supported.`);
      if (!ctx.csrfVerified)
        throw csrfRefusal(ctx, 'The CSRF token was missing or wrong: send `csrfToken` (GET /csrf) or X-CSRF-Token.');
      await this.count(ctx, req.user.id);
      if (action.check === 'recent')
        assertRecentSignIn(await this.reader.signedInAt(req.state), this.config.account.recentSignInMaxAge);
      else if (action.check !== 'link') await this.gate.check(req.state, action.check.wayIn);
      const result = await action.run(req, ctx.request.body);
      const cookies = result.cookies;
      if (json) return { json: result.json, cookies };
      // A page of its own (an app's QR code, backup codes shown once): never cached.
      if (result.html)
        return { html: result.html, cookies, headers: { 'Cache-Control': 'no-store', 'X-Frame-Options': 'DENY' } };
      const target = new URL(result.redirect ?? this.pageUrl(ctx));
      if (result.notice && !result.redirect) target.searchParams.set('notice', result.notice);
      return { redirect: target.href, cookies };
    } catch (error) {
      return this.failure(ctx, error, json);
    }
  }

  /**
   * A part the app does not configure answers like an unknown route (a client error, logged as a
   * warning), not as a configuration fault on every request: email change without an email
   * provider, passwords without `passwordStore`, sessions with JWTs and no `jwtRevocation`.
   */
  private assertOffered(path: string): void {
    const section = path.split('/')[0];
    const { session } = this.config;
    const offered =
      section === 'email'
        ? this.emailChange.available
        : section === 'password'
          ? Boolean(this.passwords.store)
          : section === 'sessions'
            ? session.strategy === 'database' || session.jwtRevocation
            : section === 'passkeys'
              ? this.passkeys.enabled
              : section === 'two-factor'
                ? this.config.twoFactor !== null
                : section === 'api-keys'
                  ? this.config.apiKeys !== null
                  : true;
    if (!offered)
      throw new UnknownAction(`${this.config.basePath}/account/${section} is not offered by this app's configuration.`);
  }

  /** The sections of the page other parts own: sessions, linked accounts, deletion, two-factor, API keys. */
  private async sections({ user, state }: AccountRequest): Promise<AccountSections> {
    // Not available (JWT sessions without revocation, an adapter that cannot list): left out.
    const sessions = await this.sessions.list(user.id, state).catch(() => undefined);
    const linked = await this.accounts.listAccounts(user.id).catch(() => undefined);
    const oauth = oauthProvidersOf(this.config);
    const accounts = linked && {
      linked: linked.filter(isOAuthAccount),
      linkable: oauth.filter((p) => !linked.some((a) => a.provider === p.id)).map((p) => ({ id: p.id, name: p.name })),
    };
    return {
      sessions,
      accounts: accounts && (accounts.linked.length || accounts.linkable.length) ? accounts : undefined,
      canDelete: true,
      ...(this.config.twoFactor ? { twoFactor: await this.twoFactorSection(user) } : {}),
      ...(this.config.apiKeys ? { apiKeys: await this.apiKeysSection(user) } : {}),
    };
  }

  /** The user's API keys as the page shows them (never a key), with what the create form offers. */
  private async apiKeysSection(user: AuthUser): Promise<NonNullable<AccountSections['apiKeys']>> {
    const allowed = this.config.accessToken.scopes;
    return {
      keys: await this.apiKeys.list(user.id),
      scopes: allowed ? [...allowed] : null,
      max: this.config.apiKeys!.maxPerUser,
    };
  }

  /** The user's second factors as the page and `GET /account/two-factor` show them (never a secret). */
  private async twoFactorSection(user: AuthUser): Promise<NonNullable<AccountSections['twoFactor']>> {
    const [{ apps, backupCodesLeft }, required] = await Promise.all([
      this.twoFactors.status(user.id),
      this.twoFactors.required(user),
    ]);
    return {
      factors: apps.map(({ id, name, createdAt, lastUsedAt }) => ({ id, name, createdAt, lastUsedAt })),
      backupCodesLeft,
      required,
    };
  }

  /** The page that adds an authenticator app: its QR code, its secret, the field for the first code. */
  private async enrolPage(ctx: RequestContext, enrolment: TotpEnrolment): Promise<string> {
    const { renderTwoFactorEnrolPage } = await loadRenderers();
    const accountUrl = `${ctx.authUrl}/account`;
    return renderTwoFactorEnrolPage({
      action: `${accountUrl}/two-factor/confirm`,
      csrfToken: ctx.csrfToken,
      hidden: { id: enrolment.id },
      qrSvg: enrolment.qrSvg,
      uri: enrolment.uri,
      secret: enrolment.secret,
      required: false,
      nameField: true,
      cancelUrl: accountUrl,
      theme: this.config.theme,
      messages: this.config.messages,
    });
  }

  /**
   * The page that shows a new API key once, for a browser's form (`{}` for JSON: the key is in the
   * JSON answer, and an API-only app never loads the pages).
   */
  private async newApiKeyPage(
    ctx: RequestContext,
    created: CreatedApiKey,
    rotated: boolean,
  ): Promise<{ html?: string }> {
    if (isJsonRequest(ctx.request)) return {};
    const { renderNewApiKeyPage } = await loadRenderers();
    return {
      html: renderNewApiKeyPage({
        key: created.key,
        name: created.apiKey.name,
        rotated,
        continueUrl: this.pageUrl(ctx),
        theme: this.config.theme,
        messages: this.config.messages,
      }),
    };
  }

  /** The page that shows new backup codes, once; "Continue" goes back to the page, which says what happened. */
  private async backupCodesPage(ctx: RequestContext, codes: string[], regenerated: boolean): Promise<string> {
    const { renderBackupCodesPage } = await loadRenderers();
    const notice = regenerated ? 'backup-codes-regenerated' : 'two-factor-added';
    return renderBackupCodesPage({
      codes,
      continueUrl: `${ctx.authUrl}/account?notice=${notice}`,
      regenerated,
      theme: this.config.theme,
      messages: this.config.messages,
    });
  }

  private async signedIn(ctx: RequestContext): Promise<AccountRequest> {
    const state = await this.reader.read({
      cookies: ctx.request.cookies,
      authorization: ctx.request.headers.authorization,
      secure: ctx.secure,
    });
    // An API key manages nothing of the account: a script's key must not make or change keys.
    if (state.status !== 'active' || state.strategy === 'api-key') throw new SessionRequiredError();
    return { ctx, user: state.user, state };
  }

  private async count(ctx: RequestContext, userId: string): Promise<void> {
    const hits = [{ key: `account:user:${userId}`, limit: LIMIT.perUser, windowSeconds: LIMIT.windowSeconds }];
    const ip = clientIpBucket(ctx.request.ip);
    if (ip) hits.push({ key: `account:ip:${ip}`, limit: LIMIT.perIp, windowSeconds: LIMIT.windowSeconds });
    await this.limiter.hitAll(hits);
  }

  private failure(ctx: RequestContext, error: unknown, json: boolean): AuthResponse {
    const noSession = error instanceof SessionRequiredError;
    if (!noSession) this.errorLog.report(error);
    const type = noSession ? 'SessionRequired' : isClientError(error) ? error.type : 'Configuration';
    const message = noSession
      ? 'Sign in first.'
      : isClientError(error)
        ? error.message
        : 'There was a problem with the server configuration. Check the server logs.';
    if (json) {
      const status = noSession
        ? 401
        : error instanceof ReauthenticationRequired
          ? 403
          : error instanceof RateLimited
            ? 429
            : error instanceof UnknownAction
              ? 404
              : type === 'Configuration'
                ? 500
                : 400;
      const headers: Record<string, string> =
        error instanceof RateLimited ? { 'Retry-After': String(error.retryAfter) } : {};
      return { status, headers, json: { error: type, message } };
    }
    // A page: sign in (again) and come back here; or back to the page with the error.
    if (noSession || error instanceof ReauthenticationRequired) {
      const back = ctx.request.method === 'GET' ? ctx.request.url.href : this.pageUrl(ctx);
      const signIn = new URL(this.config.pages.signIn ?? `${ctx.authUrl}/signin`, ctx.origin);
      signIn.searchParams.set('callbackUrl', back);
      if (!noSession) signIn.searchParams.set('error', type);
      return { redirect: signIn.href };
    }
    const target = new URL(this.pageUrl(ctx));
    target.searchParams.set('error', type);
    return { redirect: target.href };
  }

  private pageUrl(ctx: RequestContext): string {
    return `${ctx.authUrl}/account`;
  }

  private links(ctx: RequestContext) {
    return { authUrl: ctx.authUrl, request: toWebRequest(ctx.request, { cookies: false, omit: ['csrfToken'] }) };
  }
}

/** No signed-in session: 401 for JSON, the sign-in page for a browser. */
class SessionRequiredError extends Error {}

/** A text field of the body, or '' for anything else (an object, an array, a number). */
function textOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** A form's optional text field: `null` when absent. */
function nullable(value: unknown): string | null {
  return value === undefined || value === null ? null : (value as string);
}
