/** The WebAuthn server library (`@simplewebauthn/server`). */
export type WebAuthnServer = typeof import('@simplewebauthn/server');

let loading: Promise<WebAuthnServer> | undefined;

/**
 * `@simplewebauthn/server`, loaded on the first passkey ceremony, so an app without a WebAuthn
 * provider never loads it. A failed load is not remembered: the next ceremony tries again.
 */
export function webauthnServer(): Promise<WebAuthnServer> {
  loading ??= import('@simplewebauthn/server').catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}
