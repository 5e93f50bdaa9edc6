/** The page renderers (pages/renderers.ts). */
export type Renderers = typeof import('./renderers.js');

let loading: Promise<Renderers> | undefined;

/**
 * The built-in pages, loaded on the first page served (sign-in, error, account, a magic link's
 * confirmation, the passkey script): an API-only app or one with its own `pages` never loads them.
 * A failed load is not remembered (the next page tries again) and rejects in the caller's request,
 * which answers it like any other server error.
 */
export function loadRenderers(): Promise<Renderers> {
  loading ??= import('./renderers.js').catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}
