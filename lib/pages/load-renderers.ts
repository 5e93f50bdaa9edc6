import { lazyModule } from '../util/lazy-module.js';

/** The page renderers (pages/renderers.ts). */
export type Renderers = typeof import('./renderers.js');

const renderers = lazyModule<Renderers>(() => import('./renderers.js'));

/**
 * The built-in pages, loaded on the first page served (sign-in, error, account, a magic link's
 * confirmation, the passkey script): an API-only app or one with its own `pages` never loads them.
 * A failed load is not remembered (the next page tries again) and rejects in the caller's request,
 * which answers it like any other server error.
 */
export function loadRenderers(): Promise<Renderers> {
  return renderers.load();
}
