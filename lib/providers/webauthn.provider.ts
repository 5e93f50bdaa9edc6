import type { WebAuthnConfig, WebAuthnUserConfig } from './webauthn.types.js';

/** Seconds a WebAuthn challenge stays valid, and the browser's timeout in milliseconds. */
export const WEBAUTHN_DEFAULTS = {
  /** @default 300 */
  challengeMaxAge: 300,
  /** @default 300000 */
  timeout: 300_000,
  /** EdDSA, ES256, RS256 (security checklist WA-R9): what every platform authenticator offers. */
  supportedAlgorithmIDs: [-8, -7, -257] as number[],
} as const;

/**
 * Sign-in with WebAuthn credentials (security keys, platform authenticators, passkeys).
 * Needs an adapter with the authenticator methods (TypeORM or Memory).
 *
 * Defaults: id `webauthn`, name `WebAuthn`, resident key and user verification `preferred`,
 * conditional UI on, an optional email field (the address a new user registers with; sign-in
 * uses discoverable credentials and does not need it).
 *
 * @example
 * ```ts
 * WebAuthn({ relyingParty: { id: 'example.com', name: 'Example', origin: ['https://example.com'] } })
 * ```
 */
export function WebAuthn(config: WebAuthnUserConfig = {}): WebAuthnConfig {
  return {
    id: 'webauthn',
    name: 'WebAuthn',
    type: 'webauthn',
    enableConditionalUI: true,
    // Not required: only registration uses it; sign-in is with a discoverable passkey.
    formFields: { email: { label: 'Email', type: 'email', autocomplete: 'username webauthn' } },
    residentKey: 'preferred',
    userVerification: 'preferred',
    challengeMaxAge: WEBAUTHN_DEFAULTS.challengeMaxAge,
    supportedAlgorithmIDs: [...WEBAUTHN_DEFAULTS.supportedAlgorithmIDs],
    authenticationOptions: { timeout: WEBAUTHN_DEFAULTS.timeout },
    registrationOptions: { timeout: WEBAUTHN_DEFAULTS.timeout, attestationType: 'none' },
    options: config as Record<string, unknown>,
  };
}

/**
 * Passkeys: WebAuthn with discoverable credentials and user verification required, so a passkey
 * alone is a two-factor sign-in (possession + PIN/biometrics) and users sign in without typing
 * an email. Defaults: id `passkey`, name `Passkey`; everything else as {@link WebAuthn}.
 */
export function Passkey(config: WebAuthnUserConfig = {}): WebAuthnConfig {
  return {
    ...WebAuthn(config),
    id: 'passkey',
    name: 'Passkey',
    residentKey: 'required',
    userVerification: 'required',
  };
}
