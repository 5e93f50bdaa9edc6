import { lazyModule } from '../../util/lazy-module.js';

/** The WebAuthn server library (`@simplewebauthn/server`). */
export type WebAuthnServer = typeof import('@simplewebauthn/server');

const server = lazyModule<WebAuthnServer>(() => import('@simplewebauthn/server'));

/**
 * `@simplewebauthn/server`, loaded on the first passkey ceremony, so an app without a WebAuthn
 * provider never loads it. A failed load is not remembered: the next ceremony tries again.
 */
export function webauthnServer(): Promise<WebAuthnServer> {
  return server.load();
}
