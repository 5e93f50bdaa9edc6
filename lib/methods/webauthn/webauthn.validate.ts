import { isIP } from 'node:net';
import type { InternalProviderOf } from '../../providers/internal-provider.js';
import { validateLimitSettings } from '../../rate-limit/limit-settings.validate.js';
import type { RelyingParty, WebAuthnConfig } from './webauthn.types.js';

/**
 * Public suffixes under which nobody owns a registrable domain, for the RP ID check. Not the full
 * Public Suffix List: the common ones a misconfiguration would hit (browsers apply the full list
 * and refuse the ceremony anyway; this catches it at bootstrap instead).
 */
const PUBLIC_SUFFIXES = new Set([
  'com',
  'net',
  'org',
  'io',
  'dev',
  'app',
  'co',
  'uk',
  'de',
  'fr',
  'eu',
  'us',
  'au',
  'jp',
  'info',
  'biz',
  'co.uk',
  'org.uk',
  'ac.uk',
  'gov.uk',
  'com.au',
  'net.au',
  'co.jp',
  'co.nz',
  'com.br',
  'co.in',
  'github.io',
  'gitlab.io',
  'herokuapp.com',
  'vercel.app',
  'netlify.app',
  'pages.dev',
  'workers.dev',
  'web.app',
  'firebaseapp.com',
  'azurewebsites.net',
  'cloudfront.net',
  'appspot.com',
  'onrender.com',
  'fly.dev',
  'ngrok.io',
  'ngrok-free.app',
]);

const REQUIREMENTS = ['required', 'preferred', 'discouraged'];

/** The conditional-UI provider already seen in one bootstrap (keyed by its problems list). */
const conditionalUiSeen = new WeakMap<string[], string>();

/**
 * Bootstrap checks of a WebAuthn provider (`WebAuthn()` / `Passkey()`): the relying party (the RP
 * ID must be a registrable suffix of the host of every origin; origins are bare http(s) origins,
 * https except on localhost), the ceremony settings, and at most one provider with conditional UI.
 * Pushes one message per problem, each saying what to do.
 */
export function validateWebAuthnProvider(
  provider: InternalProviderOf<'webauthn'>,
  problems: string[],
  _ctx: { hasAdapter: boolean },
): void {
  const c: Partial<WebAuthnConfig> = provider.config;
  const where = `providers ${JSON.stringify(provider.id)} (WebAuthn)`;

  const rp = relyingPartyOf(c);
  if (rp !== undefined && (rp === null || typeof rp !== 'object')) {
    problems.push(`${where}: relyingParty must be an object { id, name, origin }.`);
  } else if (rp) {
    validateRelyingParty(rp, where, problems);
  }
  if (c.relyingParty && c.relayingParty) {
    problems.push(`${where}: set relyingParty or Auth.js's relayingParty, not both.`);
  }

  for (const key of ['residentKey', 'userVerification'] as const) {
    if (c[key] !== undefined && !REQUIREMENTS.includes(c[key] as string)) {
      problems.push(`${where}: ${key} must be one of ${REQUIREMENTS.join(', ')}, not ${JSON.stringify(c[key])}.`);
    }
  }
  // Sign-in never lists a user's credentials (that would tell who has an account), so a credential
  // the authenticator does not store (not discoverable) could never sign in.
  const selection = (c.registrationOptions as { authenticatorSelection?: { residentKey?: unknown } } | undefined)
    ?.authenticatorSelection;
  for (const [key, value] of [
    ['residentKey', c.residentKey],
    ['registrationOptions.authenticatorSelection.residentKey', selection?.residentKey],
  ] as const) {
    if (value === 'discouraged') {
      problems.push(
        `${where}: ${key} 'discouraged' would register credentials that cannot sign in: sign-in uses discoverable credentials only (it never lists a user's credentials). Use 'preferred' or 'required'.`,
      );
    }
  }
  if (
    c.challengeMaxAge !== undefined &&
    !(typeof c.challengeMaxAge === 'number' && c.challengeMaxAge > 0 && c.challengeMaxAge <= 3600)
  ) {
    problems.push(
      `${where}: challengeMaxAge must be a number of seconds between 1 and 3600 (it bounds how long a challenge can be used).`,
    );
  }
  if (
    c.supportedAlgorithmIDs !== undefined &&
    !(
      Array.isArray(c.supportedAlgorithmIDs) &&
      c.supportedAlgorithmIDs.length > 0 &&
      c.supportedAlgorithmIDs.every(Number.isInteger)
    )
  ) {
    problems.push(
      `${where}: supportedAlgorithmIDs must be a non-empty array of COSE algorithm ids, e.g. [-8, -7, -257].`,
    );
  }
  for (const key of ['authenticationOptions', 'registrationOptions'] as const) {
    const timeout = (c[key] as { timeout?: unknown } | undefined)?.timeout;
    if (timeout !== undefined && !(typeof timeout === 'number' && timeout > 0)) {
      problems.push(`${where}: ${key}.timeout must be a positive number of milliseconds.`);
    }
  }
  if (c.getUserInfo !== undefined && typeof c.getUserInfo !== 'function') {
    problems.push(`${where}: getUserInfo must be a function (request, lookup) => { user, exists } | null.`);
  }
  validateLimitSettings(c.rateLimit, { where, name: 'rateLimit', counts: ['maxPerAddress', 'maxPerIp'] }, problems);
  if (!c.formFields || typeof c.formFields !== 'object') {
    problems.push(
      `${where}: formFields must be an object of inputs, e.g. { email: { label: 'Email', autocomplete: 'username webauthn' } }.`,
    );
  }

  if (c.enableConditionalUI) {
    const fields = c.formFields && typeof c.formFields === 'object' ? Object.values(c.formFields) : [];
    const hasWebAuthnAutocomplete = fields.some(
      (f) => typeof f?.autocomplete === 'string' && f.autocomplete.split(/\s+/).includes('webauthn'),
    );
    if (!hasWebAuthnAutocomplete) {
      problems.push(
        `${where}: enableConditionalUI needs a form field whose autocomplete contains "webauthn" (e.g. 'username webauthn') (MissingWebAuthnAutocomplete).`,
      );
    }
    const first = conditionalUiSeen.get(problems);
    if (first !== undefined) {
      problems.push(
        `${where}: only one provider may enable conditional UI, and ${JSON.stringify(first)} already does; set enableConditionalUI: false on one of them (DuplicateConditionalUI).`,
      );
    } else {
      conditionalUiSeen.set(problems, provider.id);
    }
  }
}

/** The relying-party settings of a provider config (either spelling). */
export function relyingPartyOf(c: Partial<WebAuthnConfig>): Partial<RelyingParty> | undefined {
  return c.relyingParty ?? c.relayingParty;
}

function validateRelyingParty(rp: Partial<RelyingParty>, where: string, problems: string[]): void {
  if (rp.name !== undefined && (typeof rp.name !== 'string' || rp.name.trim() === '')) {
    problems.push(`${where}: relyingParty.name must be a non-empty string (shown by authenticators).`);
  }
  let rpId: string | undefined;
  if (rp.id !== undefined) {
    const problem = typeof rp.id === 'string' ? rpIdProblem(rp.id) : 'must be a string';
    if (problem) problems.push(`${where}: relyingParty.id ${JSON.stringify(rp.id)} ${problem}.`);
    else rpId = rp.id;
  }
  if (rp.origin === undefined) return;
  const origins = Array.isArray(rp.origin) ? rp.origin : [rp.origin];
  if (origins.length === 0) {
    problems.push(
      `${where}: relyingParty.origin is empty; list the origins that show the sign-in page, e.g. ['https://example.com'].`,
    );
    return;
  }
  for (const origin of origins) {
    const problem = originProblem(origin);
    if (problem) {
      problems.push(`${where}: relyingParty.origin ${JSON.stringify(origin)} ${problem}.`);
      continue;
    }
    const host = new URL(origin as string).hostname;
    if (rpId !== undefined && !isRegistrableSuffix(rpId, host)) {
      problems.push(
        `${where}: relyingParty.id ${JSON.stringify(rpId)} does not fit origin ${JSON.stringify(origin)}: the RP ID must be the origin's host or a parent domain of it (e.g. 'example.com' for 'https://app.example.com').`,
      );
    }
    if (rp.id === undefined && isIP(host)) {
      problems.push(
        `${where}: origin ${JSON.stringify(origin)} has an IP address as host, which browsers refuse as RP ID; use a domain name (or localhost in development).`,
      );
    }
  }
}

/** Why a string is not a usable RP ID, or undefined when it is. */
export function rpIdProblem(id: string): string | undefined {
  if (id !== id.toLowerCase() || id.trim() !== id || id === '')
    return 'must be a lower-case domain name without spaces';
  if (id.includes('://') || id.includes('/') || id.includes(':'))
    return 'must be a bare domain (no scheme, port or path), e.g. "example.com"';
  if (isIP(id))
    return 'is an IP address, which browsers refuse as RP ID; use a domain name (or localhost in development)';
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(id))
    return 'is not a valid domain name';
  if (PUBLIC_SUFFIXES.has(id))
    return 'is a public suffix, which nobody can register; use your own domain (e.g. "example.com")';
  if (!id.includes('.') && id !== 'localhost')
    return 'is a top-level name; use a registrable domain such as "example.com" (or localhost in development)';
  return undefined;
}

/** Why a string is not an allowed origin, or undefined when it is. */
export function originProblem(origin: unknown): string | undefined {
  if (typeof origin !== 'string') return 'must be a string URL such as "https://example.com"';
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return 'is not a URL; write it as "https://example.com"';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must use https (or http on localhost)';
  if (url.origin !== origin.replace(/\/$/, ''))
    return `must be a bare origin (scheme, host, port; no path, query or credentials): did you mean ${JSON.stringify(url.origin)}?`;
  if (url.protocol === 'http:' && !isLocalhost(url.hostname))
    return 'uses http, which browsers only allow for WebAuthn on localhost; use https';
  return undefined;
}

/** True when `rpId` equals `host` or is a parent domain of it (label-aligned). */
export function isRegistrableSuffix(rpId: string, host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h === rpId || h.endsWith(`.${rpId}`);
}

function isLocalhost(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost');
}
