import type * as o from 'oauth4webapi';
import type { ProviderContext } from '../../core/request-context.js';
import type { NormalizedOAuthProvider } from './oauth.normalize.js';
import { safeUrl } from './oauth-http.js';

/** True when this deployment sends the provider back to a redirect proxy (and is not the proxy itself). */
export function proxying(ctx: ProviderContext, p: NormalizedOAuthProvider): boolean {
  return p.redirectProxyUrl !== undefined && !onProxy(ctx, p);
}

/** True when this request reached the redirect proxy deployment itself. */
export function onProxy(ctx: ProviderContext, p: NormalizedOAuthProvider): boolean {
  return p.redirectProxyUrl !== undefined && safeUrl(p.redirectProxyUrl)?.origin === ctx.origin;
}

/** The redirect URI sent in both requests: the proxy's callback when proxying, else ours. */
export function redirectUri(ctx: ProviderContext, p: NormalizedOAuthProvider): string {
  return proxying(ctx, p) ? `${p.redirectProxyUrl}/callback/${p.id}` : ctx.providerCallbackUrl;
}

/**
 * The provider as custom `request` handlers see it: the normalised config with `signinUrl`,
 * `callbackUrl` (the redirect URI this flow sent) and the endpoint URLs discovery found.
 */
export function handlerProvider(ctx: ProviderContext, p: NormalizedOAuthProvider, as: o.AuthorizationServer) {
  const withUrl = <E extends { url?: URL }>(endpoint: E | undefined, discovered: string | undefined) =>
    endpoint?.url || !discovered
      ? endpoint
      : { ...(endpoint ?? ({ params: {} } as unknown as E)), url: new URL(discovered) };
  return {
    ...p,
    signinUrl: ctx.signinUrl,
    callbackUrl: redirectUri(ctx, p),
    token: withUrl(p.token, as.token_endpoint),
    userinfo: withUrl(p.userinfo, as.userinfo_endpoint),
  };
}
