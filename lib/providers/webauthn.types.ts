import type { Awaitable, User } from '../types/common.types.js';
import type { CommonProviderOptions, InternalProviderOptions } from './provider.types.js';
import type { CredentialInput } from './credentials.types.js';

/** The type of WebAuthn (passkey) providers. */
export type WebAuthnProviderType = 'webauthn';

/** The relying party: this application, as authenticators know it. */
export interface RelyingParty {
  /** The RP ID: a registrable domain suffix of every origin (e.g. `example.com`). */
  id: string;
  /** Human-readable name shown by authenticators. */
  name: string;
  /** Origins allowed to run the ceremonies (e.g. `https://app.example.com`). */
  origin: string | string[];
}

/** A WebAuthn provider (`WebAuthn()` or `Passkey()`). */
export interface WebAuthnConfig extends CommonProviderOptions, InternalProviderOptions {
  type: WebAuthnProviderType;
  /** Relying-party settings; derived from the request URL when absent. */
  relayingParty?: Partial<RelyingParty>;
  /** Lets the browser offer passkeys in the email field's autofill. @default false */
  enableConditionalUI?: boolean;
  /** Form fields shown for registration (the email). */
  formFields: Record<string, CredentialInput>;
  /** Require a discoverable (resident) credential. */
  residentKey?: 'required' | 'preferred' | 'discouraged';
  /** Require user verification (PIN, biometrics). */
  userVerification?: 'required' | 'preferred' | 'discouraged';
  /** Resolves the user a registration is for, from the request (default: the `email` field). */
  getUserInfo?: (request: Request) => Awaitable<{ user: User; exists: boolean } | null>;
  /** Extra options passed to SimpleWebAuthn's generators and verifiers. */
  authenticationOptions?: Record<string, unknown>;
  registrationOptions?: Record<string, unknown>;
  verifyAuthenticationOptions?: Record<string, unknown>;
  verifyRegistrationOptions?: Record<string, unknown>;
}
