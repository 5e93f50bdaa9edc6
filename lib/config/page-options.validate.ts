import type { PagesOptions } from './auth-options.interface.js';

const HOOKS = ['signIn', 'signOut', 'verifyRequest', 'error'];

/** Problems with `pages`: paths that are not paths, and render hooks that are not functions of a known page. */
export function pageOptionProblems(pages: Partial<PagesOptions> | undefined): string[] {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(pages ?? {})) {
    if (key === 'render') continue;
    if (typeof value !== 'string' || !(value.startsWith('/') || /^https?:\/\//.test(value))) {
      problems.push(
        `pages.${key} must be a path starting with '/' (or an absolute http(s) URL), not ${JSON.stringify(value)}.`,
      );
    }
  }
  const render: unknown = pages?.render;
  if (render === undefined) return problems;
  if (typeof render !== 'object' || render === null || Array.isArray(render)) {
    return [...problems, `pages.render must be an object of functions by page (${HOOKS.join(', ')}).`];
  }
  for (const [key, hook] of Object.entries(render)) {
    if (!HOOKS.includes(key)) problems.push(`unknown page pages.render.${key}: use one of ${HOOKS.join(', ')}.`);
    else if (typeof hook !== 'function') problems.push(`pages.render.${key} must be a function (context) => html.`);
    else if (typeof pages?.[key as keyof PagesOptions] === 'string')
      problems.push(`pages.${key} and pages.render.${key} are both given: keep one (the path would win).`);
  }
  return problems;
}
