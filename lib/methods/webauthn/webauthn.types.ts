import type { Awaitable, User } from '../../types/common.types.js';
import type { AuthRequest } from '../../types/http.types.js';
import type { CommonProviderOptions, InternalProviderOptions } from '../../providers/provider.types.js';
import type { CredentialInput } from '../../providers/provider.types.js';

/** The type of WebAuthn (passkey) providers. */
export type WebAuthnProviderType = 'webauthn';

/** How strongly the ceremonies ask for a resident key or user verification (WebAuthn's enum). */
export type WebAuthnRequirement = 'required' | 'preferred' | 'discouraged';

/** The relying party: this application, as authenticators know it. */
export interface RelyingParty {
  /**
   * The RP ID: a registrable domain suffix of the host of every origin (e.g. `example.com` for
   * `https://app.example.com`). Credentials are bound to it: changing it orphans every passkey.
   * @default the hostname of the request (or of the `url` option)
   */
  id: string;
  /** Human-readable name shown by authenticators. @default the host of the request */
  name: string;
  /**
   * Every origin allowed to run the ceremonies (scheme, host and port, no path), e.g.
   * `['https://example.com', 'https://app.example.com']`. Exact matches only: no wildcards.
   * @default the origin of the request (or of the `url` option)
   */
  origin: string | string[];
}

/** Options passed to SimpleWebAuthn's `generateRegistrationOptions()` (besides those the flow sets). */
export interface WebAuthnRegistrationOptions {
  /** Milliseconds the browser waits for the user. @default 300000 */
  timeout?: number;
  /** Attestation conveyance. @default 'none' (consumer passkeys; no attestation trust decisions) */
  attestationType?: 'direct' | 'enterprise' | 'none';
  /** Merged over the `residentKey` / `userVerification` the provider sets. */
  authenticatorSelection?: {
    authenticatorAttachment?: 'platform' | 'cross-platform';
    residentKey?: WebAuthnRequirement;
    requireResidentKey?: boolean;
    userVerification?: WebAuthnRequirement;
  };
  /** Hint for the browser's prompt. */
  preferredAuthenticatorType?: 'securityKey' | 'localDevice' | 'remoteDevice';
  /** Client extensions, passed through. */
  extensions?: Record<string, unknown>;
}

/** Options passed to SimpleWebAuthn's `generateAuthenticationOptions()` (besides those the flow sets). */
export interface WebAuthnAuthenticationOptions {
  /** Milliseconds the browser waits for the user. @default 300000 */
  timeout?: number;
  /** Overrides the provider's `userVerification` for sign-in prompts. */
  userVerification?: WebAuthnRequirement;
  /** Client extensions, passed through. */
  extensions?: Record<string, unknown>;
}

/** Who a registration is for, as `getUserInfo` resolves it. */
export interface WebAuthnUserInfo {
  /**
   * The user to register. Only `email` is used: the options are those of a new user with that
   * address whether or not it has an account, so they cannot tell the two apart.
   */
  user: User;
  /**
   * True when the user is already stored. Not used (kept for configs from Auth.js): an address
   * that has an account fails at verification with `AccountNotLinked`.
   */
  exists: boolean;
}

/**
 * How many `GET /webauthn-options/:provider` requests are answered, in fixed windows. A request
 * past either limit is refused with `RateLimited` (429, `Retry-After`), whatever the address.
 */
export interface WebAuthnRateLimitOptions {
  /** Requests naming one address (the `email` query parameter, normalised) in one window. @default 10 */
  maxPerAddress?: number;
  /** Requests per client IP (IPv6: per /64), with or without an address, in one window. @default 100 */
  maxPerIp?: number;
  /** Length of a window in seconds, from its first request. @default 600 (10 minutes) */
  windowSeconds?: number;
}

/** A WebAuthn provider (`WebAuthn()` or `Passkey()`). */
export interface WebAuthnConfig extends CommonProviderOptions, InternalProviderOptions {
  type: WebAuthnProviderType;
  /**
   * Relying-party settings, validated at bootstrap (the RP ID must be a registrable suffix of the
   * host of every origin). Each field falls back to the request's URL (see {@link RelyingParty}).
   */
  relyingParty?: Partial<RelyingParty>;
  /** Auth.js's spelling of `relyingParty`, accepted for configs moved over from Auth.js. */
  relayingParty?: Partial<RelyingParty>;
  /**
   * Offers the user's passkeys in the email field's autofill (conditional mediation). At most one
   * provider may enable it. @default true (as in Auth.js)
   */
  enableConditionalUI?: boolean;
  /**
   * Fields shown on the sign-in page for registration (the email). With conditional UI, one field's
   * `autocomplete` must contain `webauthn`.
   * @default { email: { label: 'Email', type: 'email', autocomplete: 'username webauthn' } }
   */
  formFields: Record<string, CredentialInput>;
  /**
   * Whether credentials must be discoverable (stored on the authenticator, so sign-in needs no email).
   * Sign-in only ever uses discoverable credentials, so `'discouraged'` is refused at bootstrap, and
   * with `'preferred'` a registration the browser reports as not discoverable (`credProps.rk`
   * false) is refused.
   * @default 'preferred' (WebAuthn), 'required' (Passkey)
   */
  residentKey?: WebAuthnRequirement;
  /**
   * User verification (PIN, biometrics). Only `'required'` makes the server refuse responses
   * without the UV flag; with `'preferred'` a security key without a PIN signs in on possession alone.
   * @default 'preferred' (WebAuthn), 'required' (Passkey)
   */
  userVerification?: WebAuthnRequirement;
  /**
   * Seconds a challenge stays valid (the challenge cookie's lifetime). Keep it at least the
   * ceremonies' `timeout`. @default 300
   */
  challengeMaxAge?: number;
  /**
   * COSE algorithm ids offered at registration and accepted at verification.
   * @default [-8, -7, -257] (EdDSA, ES256, RS256)
   */
  supportedAlgorithmIDs?: number[];
  /**
   * Checks that a sign-in's `userHandle` is the one this library gave the credential's owner
   * (WebAuthn §7.2 step 6). Turn it off only for passkeys registered by Auth.js, whose user
   * handles are random and unrecorded. @default true
   */
  verifyUserHandle?: boolean;
  /**
   * Resolves the address a registration is for when nobody is signed in; only `user.email` is used.
   * Return `null` to refuse, and then for every address alike, or the refusal tells which exist.
   * @default the `email` query parameter (nothing is looked up)
   */
  getUserInfo?: (
    request: AuthRequest,
    lookup: (email: string) => Promise<User | null>,
  ) => Awaitable<WebAuthnUserInfo | null>;
  /**
   * Limits on the options endpoint per address and per client IP, or `false` for none. Counters
   * live in the module's rate-limit store (`rateLimitStore`, in memory by default).
   * @default { maxPerAddress: 10, maxPerIp: 100, windowSeconds: 600 }
   */
  rateLimit?: WebAuthnRateLimitOptions | false;
  /** Passed to `generateAuthenticationOptions()`. */
  authenticationOptions?: WebAuthnAuthenticationOptions;
  /** Passed to `generateRegistrationOptions()`. */
  registrationOptions?: WebAuthnRegistrationOptions;
}

/** What `WebAuthn()` / `Passkey()` accept: every field optional. */
export type WebAuthnUserConfig = Partial<Omit<WebAuthnConfig, 'type' | 'options'>>;
