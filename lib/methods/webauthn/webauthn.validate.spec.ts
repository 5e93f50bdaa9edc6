import { describe, expect, it } from '@jest/globals';
import type { InternalProviderOf } from '../../providers/internal-provider.js';
import { Passkey, resolveWebAuthnRateLimit, WEBAUTHN_DEFAULTS, WebAuthn } from './webauthn.provider.js';
import type { WebAuthnConfig, WebAuthnUserConfig } from './webauthn.types.js';
import { isRegistrableSuffix, originProblem, rpIdProblem, validateWebAuthnProvider } from './webauthn.validate.js';

/** The provider as resolve-config hands it over: the user's options merged over the defaults. */
function internal(config: WebAuthnConfig): InternalProviderOf<'webauthn'> {
  const { options, ...defaults } = config;
  // Top-level merge is enough here: the specs override whole objects.
  const merged = { ...defaults, ...options } as InternalProviderOf<'webauthn'>['config'];
  return { id: merged.id, name: merged.name, type: 'webauthn', config: merged };
}

function problemsOf(...configs: WebAuthnConfig[]): string[] {
  const problems: string[] = [];
  for (const c of configs) validateWebAuthnProvider(internal(c), problems, { hasAdapter: true });
  return problems;
}

describe('WebAuthn() and Passkey()', () => {
  it('have Auth.js ids and names, and Passkey requires resident keys and user verification', () => {
    const w = internal(WebAuthn()).config;
    const p = internal(Passkey()).config;
    expect([w.id, w.name, w.type]).toEqual(['webauthn', 'WebAuthn', 'webauthn']);
    expect([p.id, p.name, p.type]).toEqual(['passkey', 'Passkey', 'webauthn']);
    expect([w.residentKey, w.userVerification]).toEqual(['preferred', 'preferred']);
    expect([p.residentKey, p.userVerification]).toEqual(['required', 'required']);
    expect(p.enableConditionalUI).toBe(true);
  });

  it('lets the user override defaults, including the id', () => {
    const p = internal(Passkey({ id: 'pk', relyingParty: { id: 'example.com' } })).config;
    expect(p.id).toBe('pk');
    expect(p.relyingParty?.id).toBe('example.com');
    expect(p.residentKey).toBe('required');
  });
});

describe('validateWebAuthnProvider', () => {
  const valid: WebAuthnUserConfig[] = [
    {},
    {
      relyingParty: { id: 'example.com', name: 'Example', origin: ['https://example.com', 'https://app.example.com'] },
    },
    { relyingParty: { id: 'localhost', origin: 'http://localhost:3000' } },
    { relayingParty: { id: 'example.com', origin: 'https://login.example.com' } },
    { relyingParty: { origin: 'https://example.com/' } },
    { rateLimit: false },
    { rateLimit: { maxPerAddress: 5, maxPerIp: 500, windowSeconds: 60 } },
  ];
  it.each(valid)('accepts %j', (config) => {
    expect(problemsOf(Passkey(config))).toEqual([]);
  });

  const invalid: Array<[string, WebAuthnUserConfig, RegExp]> = [
    [
      'an RP ID that does not fit an origin (WA-G1)',
      { relyingParty: { id: 'example.com', origin: 'https://evil.com' } },
      /does not fit origin "https:\/\/evil.com"/,
    ],
    [
      'a suffix that is not label-aligned',
      { relyingParty: { id: 'example.com', origin: 'https://badexample.com' } },
      /does not fit/,
    ],
    ['a public suffix as RP ID', { relyingParty: { id: 'co.uk', origin: 'https://shop.co.uk' } }, /public suffix/],
    ['a top-level RP ID', { relyingParty: { id: 'intranet', origin: 'https://intranet' } }, /top-level/],
    ['an IP address as RP ID', { relyingParty: { id: '127.0.0.1', origin: 'https://127.0.0.1:3000' } }, /IP address/],
    ['an RP ID with a scheme', { relyingParty: { id: 'https://example.com' } }, /bare domain/],
    ['an origin that is not a URL', { relyingParty: { origin: 'example.com' } }, /is not a URL/],
    ['an origin with a path', { relyingParty: { origin: 'https://example.com/app' } }, /bare origin/],
    ['plain http off localhost', { relyingParty: { origin: 'http://example.com' } }, /uses http/],
    ['an empty origin list', { relyingParty: { origin: [] } }, /is empty/],
    ['an unknown userVerification', { userVerification: 'always' as never }, /userVerification must be one of/],
    [
      'conditional UI without a webauthn autocomplete',
      { formFields: { email: { label: 'Email', autocomplete: 'email' } } },
      /MissingWebAuthnAutocomplete/,
    ],
    ['a challenge lifetime of zero', { challengeMaxAge: 0 }, /challengeMaxAge/],
    ['no algorithms', { supportedAlgorithmIDs: [] }, /supportedAlgorithmIDs/],
    [
      'a rate limit that is not an object',
      { rateLimit: 10 as never },
      /`rateLimit` must be an object \{ maxPerAddress, maxPerIp, windowSeconds \} or false/,
    ],
    [
      'a rate limit of zero per address',
      { rateLimit: { maxPerAddress: 0 } },
      /rateLimit.maxPerAddress must be a positive integer/,
    ],
    [
      'a fractional rate limit per IP',
      { rateLimit: { maxPerIp: 2.5 } },
      /rateLimit.maxPerIp must be a positive integer/,
    ],
    [
      'a negative rate-limit window',
      { rateLimit: { windowSeconds: -1 } },
      /rateLimit.windowSeconds must be a positive number/,
    ],
    [
      'non-discoverable credentials',
      { residentKey: 'discouraged' },
      /residentKey 'discouraged' would register credentials that cannot sign in/,
    ],
    [
      'non-discoverable credentials, through registrationOptions',
      { registrationOptions: { authenticatorSelection: { residentKey: 'discouraged' } } },
      /authenticatorSelection.residentKey 'discouraged'/,
    ],
    [
      'an unknown rate-limit setting',
      { rateLimit: { perAddress: 3 } as never },
      /rateLimit.perAddress is not a setting/,
    ],
  ];
  it.each(invalid)('reports %s', (_name, config, message) => {
    const problems = problemsOf(Passkey(config));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(message);
  });

  it('allows conditional UI on one provider only (DuplicateConditionalUI)', () => {
    const problems = problemsOf(WebAuthn(), Passkey());
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/"passkey".*only one provider may enable conditional UI.*"webauthn"/);
    expect(problemsOf(WebAuthn({ enableConditionalUI: false }), Passkey())).toEqual([]);
  });

  it('resolves the options-endpoint limits from one set of defaults', () => {
    expect(resolveWebAuthnRateLimit({})).toEqual({ maxPerAddress: 10, maxPerIp: 100, windowSeconds: 600 });
    expect(resolveWebAuthnRateLimit({})).toEqual(WEBAUTHN_DEFAULTS.rateLimit);
    expect(resolveWebAuthnRateLimit({ rateLimit: { maxPerIp: 7 } })).toEqual({
      ...WEBAUTHN_DEFAULTS.rateLimit,
      maxPerIp: 7,
    });
    expect(resolveWebAuthnRateLimit({ rateLimit: false })).toBeNull();
  });

  it('checks RP ID suffixes on label boundaries', () => {
    expect(isRegistrableSuffix('example.com', 'example.com')).toBe(true);
    expect(isRegistrableSuffix('example.com', 'a.b.example.com')).toBe(true);
    expect(isRegistrableSuffix('example.com', 'notexample.com')).toBe(false);
    expect(rpIdProblem('Example.com')).toMatch(/lower-case/);
    expect(originProblem('https://user:pw@example.com')).toMatch(/bare origin/);
  });
});
