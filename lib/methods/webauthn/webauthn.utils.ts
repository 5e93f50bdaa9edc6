import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { AuthConfigurationError, InvalidRequest, WebAuthnVerificationError } from '../../errors/auth.errors.js';
import { WEBAUTHN_DEFAULTS } from './webauthn.provider.js';
import type { WebAuthnConfig } from './webauthn.types.js';
import { isRegistrableSuffix, relyingPartyOf } from './webauthn.validate.js';

/** WebAuthn L3 §7.1 step 25: longer credential ids are refused. */
export const MAX_CREDENTIAL_ID_BYTES = 1023;

/** The biggest `data` the callback parses (a response with attestation certificates fits easily). */
const MAX_RESPONSE_CHARS = 64 * 1024;

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** The relying party of one request: configured values, else the request's own origin. */
export interface ResolvedRelyingParty {
  id: string;
  name: string;
  origins: string[];
}

/**
 * The relying party for a request. Configured origins are used as given (every one of them, not
 * only the first as Auth.js does); without them the request's origin is the only one allowed.
 * Throws a Configuration error when the RP ID does not fit an origin (possible only when the
 * origin comes from the request).
 */
export function resolveRelyingParty(config: WebAuthnConfig, requestOrigin: string): ResolvedRelyingParty {
  const rp = relyingPartyOf(config) ?? {};
  const url = new URL(requestOrigin);
  const id = rp.id ?? url.hostname;
  const configured = rp.origin === undefined ? [] : Array.isArray(rp.origin) ? rp.origin : [rp.origin];
  const origins = configured.length ? configured.map((o) => new URL(o).origin) : [url.origin];
  for (const origin of origins) {
    if (!isRegistrableSuffix(id, new URL(origin).hostname)) {
      throw new AuthConfigurationError([
        `WebAuthn provider ${JSON.stringify(config.id)}: the RP ID ${JSON.stringify(id)} does not fit the origin ${JSON.stringify(origin)}; set relyingParty.origin (or the url option) to the public origin.`,
      ]);
    }
  }
  return { id, name: rp.name ?? url.host, origins };
}

/**
 * The WebAuthn user handle of a user: an HMAC of the user id under the secret, so it is stable,
 * carries no personal data, and the server can recompute it to check that an assertion's
 * `userHandle` belongs to the credential's owner without storing anything.
 */
export function userHandle(secret: string, userId: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(createHmac('sha256', secret).update(`nestjs-auth:webauthn-user-handle:${userId}`).digest());
}

/** True when `handle` (base64url) is the user handle of `userId` under any of the secrets (rotation). */
export function isUserHandleOf(handle: string, userId: string, secrets: readonly string[]): boolean {
  if (!BASE64URL.test(handle)) return false;
  const given = Buffer.from(handle, 'base64url');
  let match = false;
  for (const secret of secrets) {
    const expected = userHandle(secret, userId);
    // Compare every secret's value, equal lengths only: no early exit that would time the match.
    if (given.length === expected.length && timingSafeEqual(given, expected)) match = true;
  }
  return match;
}

/** A credential id as stored (standard base64, as Auth.js stores it) from its base64url form. */
export function storedCredentialId(base64url: string): string {
  return Buffer.from(base64url, 'base64url').toString('base64');
}

/** A stored (standard base64) credential id as WebAuthn JSON wants it (base64url). */
export function wireCredentialId(stored: string): string {
  return Buffer.from(stored, 'base64').toString('base64url');
}

/** Checks a base64url credential id: well-formed and at most 1023 bytes. */
export function checkCredentialId(id: unknown): string {
  if (typeof id !== 'string' || id.length === 0 || !BASE64URL.test(id)) {
    throw new WebAuthnVerificationError('The credential id is missing or not base64url.');
  }
  const bytes = Buffer.from(id, 'base64url').length;
  if (bytes === 0 || bytes > MAX_CREDENTIAL_ID_BYTES) {
    throw new WebAuthnVerificationError(
      `The credential id is ${bytes} bytes long; at most ${MAX_CREDENTIAL_ID_BYTES} are allowed.`,
    );
  }
  return id;
}

/** The ceremony the browser ran. */
export type WebAuthnAction = 'register' | 'authenticate';

/**
 * The browser's response from the callback body `{ action, data }`: `data` as an object (JSON
 * body) or a JSON string (form body, as Auth.js's client sends it). Checks the shape enough that
 * SimpleWebAuthn only ever sees strings where it expects them.
 */
export function parseCallbackBody(
  body: Record<string, unknown>,
):
  | { action: 'register'; response: RegistrationResponseJSON }
  | { action: 'authenticate'; response: AuthenticationResponseJSON } {
  const action = body.action;
  if (action !== 'register' && action !== 'authenticate') {
    throw new WebAuthnVerificationError('The callback needs action=register or action=authenticate.');
  }
  let data = body.data;
  if (typeof data === 'string') {
    if (data.length > MAX_RESPONSE_CHARS) throw new WebAuthnVerificationError('The WebAuthn response is too large.');
    try {
      data = JSON.parse(data);
    } catch {
      throw new WebAuthnVerificationError('The WebAuthn response is not JSON.');
    }
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) {
    throw new WebAuthnVerificationError("The callback needs `data`: the browser's WebAuthn response.");
  }
  const d = data as Record<string, unknown>;
  const response = d.response as Record<string, unknown> | undefined;
  if (
    d.type !== 'public-key' ||
    typeof d.id !== 'string' ||
    d.rawId !== d.id ||
    !response ||
    typeof response !== 'object'
  ) {
    throw new WebAuthnVerificationError('The WebAuthn response is malformed (id, rawId, type, response).');
  }
  const strings =
    action === 'register'
      ? ['clientDataJSON', 'attestationObject']
      : ['clientDataJSON', 'authenticatorData', 'signature'];
  for (const key of strings) {
    if (typeof response[key] !== 'string' || !BASE64URL.test(response[key] as string)) {
      throw new WebAuthnVerificationError(`The WebAuthn response's ${key} is missing or not base64url.`);
    }
  }
  if (
    response.userHandle !== undefined &&
    response.userHandle !== null &&
    (typeof response.userHandle !== 'string' || !BASE64URL.test(response.userHandle))
  ) {
    throw new WebAuthnVerificationError("The WebAuthn response's userHandle is not base64url.");
  }
  if (
    response.transports !== undefined &&
    !(
      Array.isArray(response.transports) &&
      response.transports.length <= 16 &&
      response.transports.every((t) => typeof t === 'string' && t.length < 32)
    )
  ) {
    throw new WebAuthnVerificationError("The WebAuthn response's transports are malformed.");
  }
  checkCredentialId(d.id);
  const normalised = {
    ...d,
    clientExtensionResults: isObject(d.clientExtensionResults) ? d.clientExtensionResults : {},
  };
  return action === 'register'
    ? { action, response: normalised as unknown as RegistrationResponseJSON }
    : { action, response: normalised as unknown as AuthenticationResponseJSON };
}

/**
 * WA-R4/WA-A5: SimpleWebAuthn parses `crossOrigin`/`topOrigin` but does not refuse them. The
 * library is not meant to run inside another site's iframe, so both are refused.
 */
export function refuseCrossOrigin(clientDataJSON: string): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8'));
  } catch {
    throw new WebAuthnVerificationError('The WebAuthn clientDataJSON is not JSON.');
  }
  if (!isObject(parsed)) throw new WebAuthnVerificationError('The WebAuthn clientDataJSON is not an object.');
  if (parsed.crossOrigin === true || parsed.topOrigin !== undefined) {
    throw new WebAuthnVerificationError('The WebAuthn ceremony ran in a cross-origin frame, which is not allowed.');
  }
}

/**
 * Which ceremony to run. What the request asks for, never what storage holds: a ceremony chosen by
 * whether an address has an account would tell anyone who asks (Auth.js answers `register` for a
 * new address and `authenticate` for a known one). Without `action` an anonymous request signs in
 * (a discoverable credential); registering takes `action=register`. A signed-in request must say
 * which it wants.
 */
export function inferAction(requested: WebAuthnAction | undefined, signedIn: boolean): WebAuthnAction {
  if (requested) return requested;
  if (signedIn) throw new InvalidRequest('Signed in: ask for action=register to add a passkey.');
  return 'authenticate';
}

/** The `action` query parameter: `register`, `authenticate`, or absent. */
export function parseRequestedAction(raw: unknown): WebAuthnAction | undefined {
  if (raw === undefined || raw === 'register' || raw === 'authenticate') return raw;
  throw new InvalidRequest('action must be "register" or "authenticate" (or absent to sign in).');
}

/** The provider settings the flow uses, with defaults applied. */
export function ceremonySettings(config: WebAuthnConfig) {
  const userVerification = config.userVerification ?? 'preferred';
  return {
    residentKey: config.residentKey ?? 'preferred',
    userVerification,
    requireUserVerification: userVerification === 'required',
    challengeMaxAge: config.challengeMaxAge ?? WEBAUTHN_DEFAULTS.challengeMaxAge,
    supportedAlgorithmIDs: config.supportedAlgorithmIDs ?? [...WEBAUTHN_DEFAULTS.supportedAlgorithmIDs],
    verifyUserHandle: config.verifyUserHandle !== false,
  };
}

/**
 * Runs a SimpleWebAuthn verification; anything it throws is a verification failure. Its message
 * says why (origin, RP ID, flags, counter), except for challenge mismatches, whose message would
 * quote both challenges into the logs; the original error is not kept as `cause` for that reason.
 */
export async function verifyOrRefuse<T>(verify: () => Promise<T>): Promise<T> {
  try {
    return await verify();
  } catch (error) {
    const message = String((error as Error)?.message ?? 'invalid response');
    const reason = /challenge/i.test(message)
      ? 'the challenge is not the one issued for this ceremony'
      : message.slice(0, 300);
    throw new WebAuthnVerificationError(`The WebAuthn response was refused: ${reason}.`);
  }
}

/** The value of `fn()`, or null when it throws (for best-effort reads and clean-ups). */
export async function orNull<T>(fn: () => T | PromiseLike<T>): Promise<T | null> {
  try {
    return await fn();
  } catch {
    return null;
  }
}

/** Stored transports (`usb,nfc`) as WebAuthn JSON lists them. */
export function splitTransports(transports: string | null | undefined): string[] | undefined {
  return transports ? transports.split(',').filter(Boolean) : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * What a passkey ceremony proved (RFC 8176): a hardware-bound key (`hwk`), and with user
 * verification (PIN, biometrics) the user too, two factors at once (`mfa`).
 */
export function passkeyAmr(userVerified: boolean | undefined): string[] {
  return userVerified === true ? ['hwk', 'user', 'mfa'] : ['hwk'];
}
