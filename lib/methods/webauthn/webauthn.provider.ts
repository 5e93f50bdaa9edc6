import type { WebAuthnConfig, WebAuthnRateLimitOptions, WebAuthnUserConfig } from './webauthn.types.js';

/** Seconds a WebAuthn challenge stays valid, and the browser's timeout in milliseconds. */
export const WEBAUTHN_DEFAULTS = {
  /** @default 300 */
  challengeMaxAge: 300,
  /** @default 300000 */
  timeout: 300_000,
  /** EdDSA, ES256, RS256 (security checklist WA-R9): what every platform authenticator offers. */
  supportedAlgorithmIDs: [-8, -7, -257] as number[],
  /**
   * Limits on `GET /webauthn-options/:provider` (the docs quote them). Every sign-in page load asks
   * once (autofill), hence a per-IP limit well above the email provider's; an address is named
   * only to register, a few times at most.
   */
  rateLimit: {
    /** Requests naming one address (the `email` query parameter, normalised) per window. @default 10 */
    maxPerAddress: 10,
    /** Requests per client IP (IPv6: per /64), with or without an address, per window. @default 100 */
    maxPerIp: 100,
    /** Window length in seconds, from its first request. @default 600 (10 minutes) */
    windowSeconds: 600,
  },
} as const;

/** The options-endpoint limits of a WebAuthn provider with defaults applied, or `null` when turned off. */
export function resolveWebAuthnRateLimit(
  config: Pick<WebAuthnConfig, 'rateLimit'>,
): Required<WebAuthnRateLimitOptions> | null {
  if (config.rateLimit === false) return null;
  const limit = config.rateLimit ?? {};
  const defaults = WEBAUTHN_DEFAULTS.rateLimit;
  return {
    maxPerAddress: limit.maxPerAddress ?? defaults.maxPerAddress,
    maxPerIp: limit.maxPerIp ?? defaults.maxPerIp,
    windowSeconds: limit.windowSeconds ?? defaults.windowSeconds,
  };
}

/**
 * Sign-in with WebAuthn credentials (security keys, platform authenticators, passkeys).
 * Needs an adapter with the authenticator methods (TypeORM or Memory).
 *
 * Defaults: id `webauthn`, name `WebAuthn`, resident key and user verification `preferred`,
 * conditional UI on, an optional email field (the address a new user registers with; sign-in
 * uses discoverable credentials and does not need it), and the options route rate limited
 * ({@link WEBAUTHN_DEFAULTS}`.rateLimit`).
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
