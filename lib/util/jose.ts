import { lazyModule } from './lazy-module.js';

/** The JOSE library (`jose`). */
export type Jose = typeof import('jose');

const jose = lazyModule<Jose>(() => import('jose'));

/**
 * `jose`, loaded on first use: an ID token's signature or a provider's JWKS (OAuth/OIDC callbacks,
 * back-channel logout) or a `private_key_jwt` key to import. Its ~46 module files cost tens of
 * milliseconds at start-up, and an app with JWT sessions needs none of them (session tokens are
 * encrypted and decrypted with `node:crypto`). The only place that may load it: util/jose.spec.ts
 * fails on any other import of it in lib/. A failed load is not remembered: the next use tries again.
 */
export function loadJose(): Promise<Jose> {
  return jose.load();
}
