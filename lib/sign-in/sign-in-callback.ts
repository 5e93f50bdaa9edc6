import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { toAbsolute } from '../core/callback-url.js';
import type { RequestContext } from '../core/request-context.js';
import { AccessDenied, AuthError } from '../errors/auth.errors.js';

/**
 * Thrown by the `signIn` callback path when it returned a URL: the router turns it into a
 * redirect (not an error page).
 */
export class SignInRedirect extends Error {
  constructor(readonly url: string) {
    super('The signIn callback redirected.');
  }
}

/**
 * The `signIn` callback, with the same rules for every flow: `false` refuses (`AccessDenied`), a
 * thrown AuthError passes through, any other throw refuses, a string redirects (through the
 * `redirect` callback, so it stays on this origin by default).
 */
export async function runSignInCallback(
  config: ResolvedAuthConfig,
  ctx: Pick<RequestContext, 'origin'>,
  params: Parameters<ResolvedAuthConfig['callbacks']['signIn']>[0],
): Promise<void> {
  let result: boolean | string;
  try {
    result = await config.callbacks.signIn(params);
  } catch (error) {
    if (error instanceof AuthError) throw error;
    throw new AccessDenied('The signIn callback threw; the sign-in was refused.', { cause: error });
  }
  if (typeof result === 'string') {
    const target = toAbsolute(await config.callbacks.redirect({ url: result, baseUrl: ctx.origin }), ctx.origin);
    throw new SignInRedirect(target);
  }
  if (!result) throw new AccessDenied('The signIn callback refused this user.');
}
