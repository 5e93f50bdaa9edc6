import { randomBytes } from 'node:crypto';
import type { PageRenderContext, RenderablePage } from '../config/page-render.types.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import type { RequestContext } from '../core/request-context.js';
import type { PageHookParams } from '../pages/page.types.js';
import { signInErrorMessage, stableErrorType } from '../pages/signin.messages.js';
import { escapeAttr } from '../util/html-escape.js';

/** What the page-specific part of a render hook's context holds. */
type HookValues = Pick<PageRenderContext, 'email' | 'step'> & { error?: string; errorProvider?: string };

/**
 * The page parameters that run `pages.render.<page>` when it is configured: the hook gets the
 * module's values (CSRF token, typed error, messages, a CSP nonce) and the built-in content, and
 * returns the content to show. A hook that throws or returns no string is logged, and the built-in
 * content is shown: the page never fails because of it.
 */
export function renderHook(
  config: ResolvedAuthConfig,
  ctx: RequestContext,
  page: RenderablePage,
  values: HookValues = {},
): PageHookParams {
  const hook = config.pages.render?.[page];
  if (!hook) return {};
  const nonce = randomBytes(16).toString('base64');
  const error = values.error
    ? {
        type: stableErrorType(values.error),
        message: signInErrorMessage(values.error, config.messages),
        ...(values.errorProvider ? { provider: values.errorProvider } : {}),
      }
    : undefined;
  return {
    nonce,
    replaceBody: (html) => {
      try {
        const out = hook({
          page,
          csrfToken: ctx.csrfToken,
          callbackUrl: ctx.callbackUrl,
          authUrl: ctx.authUrl,
          error,
          email: values.email,
          step: values.step,
          providers: config.providers.map((p) => ({
            id: p.id,
            name: p.name,
            type: p.type,
            signinUrl: `${ctx.authUrl}/signin/${p.id}`,
            callbackUrl: `${ctx.authUrl}/callback/${p.id}`,
          })),
          messages: config.messages,
          nonce,
          html,
          escape: escapeAttr,
        });
        if (typeof out !== 'string') throw new TypeError(`it returned ${out === null ? 'null' : typeof out}, not HTML`);
        return out;
      } catch (e) {
        const failure = new Error(
          `pages.render.${page} failed, so the built-in page was shown: ${e instanceof Error ? e.message : String(e)}`,
        );
        failure.name = 'PageRenderError';
        config.logger.error(failure);
        return html;
      }
    },
  };
}
