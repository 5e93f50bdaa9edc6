import type { InternalProvider, ResolvedAuthConfig } from '../config/resolved-config.js';
import { clientText } from '../core/error-log.js';
import type { RequestContext } from '../core/request-context.js';
import { UnknownAction } from '../errors/auth.errors.js';
import { loadRenderers } from '../pages/load-renderers.js';
import type { AuthRequest, AuthResponse } from '../types/http.types.js';
import { renderHook } from './page-render.js';
import type { SignInFormRenderer } from '../pages/page.types.js';

// The answers of the page routes (GET signin, signout, verify-request, error, the passkey script):
// the built-in pages, or redirects to the app's own `pages`. The renderers load on the first page
// (loadRenderers), so a redirect to the app's page never loads them.

/** What the registered methods add to the built-in sign-in page (the router asks them). */
export interface SignInPageParts {
  /** The forms the methods contribute, by provider type. */
  forms?: Readonly<Record<string, SignInFormRenderer>>;
  /** A configured provider's forms run in the browser script (`{basePath}/webauthn-client.js`). */
  browserScript?: boolean;
}

/**
 * `GET /signin`: the built-in page, or a redirect to `pages.signIn` with the callback URL, error and
 * code.
 */
export async function signInPage(
  config: ResolvedAuthConfig,
  ctx: RequestContext,
  { forms: methodForms = {}, browserScript = false }: SignInPageParts = {},
): Promise<AuthResponse> {
  const { query } = ctx.request;
  if (config.pages.signIn) {
    const params: Record<string, string> = { callbackUrl: ctx.callbackUrl };
    if (query.error) params.error = query.error.slice(0, 64);
    if (query.code) params.code = query.code.slice(0, 64);
    if (query.provider) params.provider = query.provider.slice(0, 64);
    if (query.email) params.email = query.email.slice(0, 320);
    return { redirect: pageUrl(ctx, config.pages.signIn, params) };
  }
  const { renderSignInPage } = await loadRenderers();
  return {
    html: renderSignInPage({
      providers: config.providers.map((p) => ({
        ...publicProvider(ctx, p),
        style: p.config.style as never,
        credentials: p.config.credentials as never,
        formFields: p.config.formFields as never,
        enableConditionalUI: p.config.enableConditionalUI as boolean | undefined,
      })),
      methodForms,
      csrfToken: ctx.csrfToken,
      callbackUrl: ctx.callbackUrl,
      error: query.error?.slice(0, 64),
      code: query.code?.slice(0, 64),
      errorProvider: query.provider?.slice(0, 64),
      email: query.email?.slice(0, 320),
      step: query.step?.slice(0, 16),
      signInUrl: `${ctx.authUrl}/signin`,
      theme: config.theme,
      messages: config.messages,
      ...renderHook(config, ctx, 'signIn', {
        email: query.email?.slice(0, 320),
        step: query.step?.slice(0, 16),
        error: query.error?.slice(0, 64),
        errorProvider: query.provider?.slice(0, 64),
      }),
      webauthnScriptUrl: browserScript ? `${ctx.authUrl}/webauthn-client.js` : undefined,
      forgotPasswordUrl: config.pages.forgotPassword ? pageUrl(ctx, config.pages.forgotPassword, {}) : undefined,
    }),
  };
}

/** `GET /signout`: the confirmation page, or a redirect to `pages.signOut`. */
export async function signOutPage(config: ResolvedAuthConfig, ctx: RequestContext): Promise<AuthResponse> {
  const error = ctx.request.query.error?.slice(0, 64);
  if (config.pages.signOut) return { redirect: pageUrl(ctx, config.pages.signOut, error ? { error } : {}) };
  const { renderSignOutPage } = await loadRenderers();
  return {
    html: renderSignOutPage({
      csrfToken: ctx.csrfToken,
      callbackUrl: ctx.callbackUrl,
      signOutUrl: `${ctx.authUrl}/signout`,
      error,
      theme: config.theme,
      messages: config.messages,
      ...renderHook(config, ctx, 'signOut'),
    }),
  };
}

/**
 * `GET /verify-request`: "check your email", or a redirect to `pages.verifyRequest` with the query.
 * `maxAge`: the link's lifetime in seconds, as the flow of `?provider=` tells it.
 */
export async function verifyRequestPage(
  config: ResolvedAuthConfig,
  ctx: RequestContext,
  maxAge?: number,
): Promise<AuthResponse> {
  if (config.pages.verifyRequest) return { redirect: pageUrl(ctx, config.pages.verifyRequest, ctx.request.query) };
  const { query } = ctx.request;
  const { renderVerifyRequestPage } = await loadRenderers();
  return {
    html: renderVerifyRequestPage({
      url: ctx.origin,
      theme: config.theme,
      email: query.email?.slice(0, 320),
      maxAge: typeof maxAge === 'number' ? maxAge : undefined,
      signInUrl: `${ctx.authUrl}/signin`,
      messages: config.messages,
      ...renderHook(config, ctx, 'verifyRequest', { email: query.email?.slice(0, 320) }),
    }),
  };
}

/** `GET /error`: the error page for `?error=` (never a 5xx: see `errorPageStatus`), or `pages.error`. */
export async function errorPage(config: ResolvedAuthConfig, ctx: RequestContext): Promise<AuthResponse> {
  const type = typeof ctx.request.query.error === 'string' ? ctx.request.query.error.slice(0, 64) : undefined;
  if (config.pages.error) return { redirect: pageUrl(ctx, config.pages.error, type ? { error: type } : {}) };
  const { errorPageStatus, renderErrorPage } = await loadRenderers();
  return {
    status: errorPageStatus(type),
    html: renderErrorPage({
      error: type,
      url: ctx.origin,
      signInUrl: `${ctx.authUrl}/signin`,
      theme: config.theme,
      messages: config.messages,
      ...renderHook(config, ctx, 'error', { error: type }),
    }),
  };
}

/** `GET {basePath}/webauthn-client.js`: the browser half of passkeys, the same for everyone. */
export async function webauthnClient(config: ResolvedAuthConfig, request: AuthRequest): Promise<AuthResponse> {
  if (request.method !== 'GET' && request.method !== 'HEAD')
    throw new UnknownAction(
      `${clientText(request.method, 16)} ${config.basePath}/webauthn-client.js is not supported.`,
    );
  const script = (await loadRenderers()).webAuthnClientScript(config.messages);
  return {
    headers: { 'Cache-Control': 'public, max-age=3600' },
    body: { contentType: script.contentType, content: script.body },
  };
}

/** A provider as `GET /providers` and the sign-in page show it. */
export function publicProvider(ctx: RequestContext, p: InternalProvider) {
  return {
    id: p.id,
    name: p.name,
    type: p.type,
    signinUrl: `${ctx.authUrl}/signin/${p.id}`,
    callbackUrl: `${ctx.authUrl}/callback/${p.id}`,
  };
}

/** A configured page (absolute, or a path on the origin) with `params` in its query. */
function pageUrl(ctx: RequestContext, page: string, params: Record<string, string>): string {
  const url = new URL(page, ctx.origin);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.href;
}
