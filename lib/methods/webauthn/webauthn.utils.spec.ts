import { describe, expect, it } from '@jest/globals';
import { Passkey } from './webauthn.provider.js';
import type { WebAuthnConfig } from './webauthn.types.js';
import {
  checkCredentialId,
  inferAction,
  parseRequestedAction,
  isUserHandleOf,
  parseCallbackBody,
  refuseCrossOrigin,
  resolveRelyingParty,
  storedCredentialId,
  userHandle,
  wireCredentialId,
} from './webauthn.utils.js';

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

function config(options: Partial<WebAuthnConfig> = {}): WebAuthnConfig {
  const { options: _o, ...defaults } = Passkey();
  return { ...defaults, ...options } as WebAuthnConfig;
}

describe('user handles', () => {
  it('are 32 bytes, stable per user and secret, and checked under every secret (rotation)', () => {
    const handle = Buffer.from(userHandle('secret-a', 'user-1')).toString('base64url');
    expect(Buffer.from(handle, 'base64url')).toHaveLength(32);
    expect(isUserHandleOf(handle, 'user-1', ['secret-a'])).toBe(true);
    expect(isUserHandleOf(handle, 'user-1', ['secret-new', 'secret-a'])).toBe(true);
    expect(isUserHandleOf(handle, 'user-2', ['secret-a'])).toBe(false);
    expect(isUserHandleOf(handle, 'user-1', ['secret-b'])).toBe(false);
    expect(isUserHandleOf('not base64url!', 'user-1', ['secret-a'])).toBe(false);
    expect(isUserHandleOf('', 'user-1', ['secret-a'])).toBe(false);
  });
});

describe('credential ids', () => {
  it('round-trip between base64url (wire) and base64 (storage, as Auth.js)', () => {
    const wire = Buffer.from([0xfb, 0xff, 0x01, 0x02]).toString('base64url');
    expect(storedCredentialId(wire)).toBe('+/8BAg==');
    expect(wireCredentialId(storedCredentialId(wire))).toBe(wire);
  });
  it('are refused above 1023 bytes, empty or not base64url', () => {
    expect(checkCredentialId(Buffer.alloc(1023, 1).toString('base64url'))).toBeTruthy();
    for (const bad of [Buffer.alloc(1024, 1).toString('base64url'), '', 'a+b/', 12, undefined]) {
      expect(() => checkCredentialId(bad)).toThrow(expect.objectContaining({ type: 'WebAuthnVerificationError' }));
    }
  });
});

describe('parseCallbackBody', () => {
  const assertion = {
    id: 'AAAA',
    rawId: 'AAAA',
    type: 'public-key',
    response: { clientDataJSON: 'eyJ9', authenticatorData: 'AAAA', signature: 'AAAA' },
  };
  it('takes data as an object or a JSON string', () => {
    expect(parseCallbackBody({ action: 'authenticate', data: assertion }).action).toBe('authenticate');
    expect(parseCallbackBody({ action: 'authenticate', data: JSON.stringify(assertion) }).response.id).toBe('AAAA');
  });
  it.each([
    ['an unknown action', { action: 'login', data: assertion }],
    ['no data', { action: 'authenticate' }],
    ['data that is not JSON', { action: 'authenticate', data: '{' }],
    ['an array', { action: 'authenticate', data: [] }],
    ['rawId different from id', { action: 'authenticate', data: { ...assertion, rawId: 'BBBB' } }],
    [
      'a numeric signature',
      { action: 'authenticate', data: { ...assertion, response: { ...assertion.response, signature: 5 } } },
    ],
    ['a registration without attestationObject', { action: 'register', data: assertion }],
    [
      'a userHandle object',
      { action: 'authenticate', data: { ...assertion, response: { ...assertion.response, userHandle: {} } } },
    ],
    ['a huge string', { action: 'authenticate', data: 'x'.repeat(70_000) }],
  ])('refuses %s with WebAuthnVerificationError', (_name, body) => {
    expect(() => parseCallbackBody(body as Record<string, unknown>)).toThrow(
      expect.objectContaining({ type: 'WebAuthnVerificationError' }),
    );
  });
});

describe('refuseCrossOrigin', () => {
  it('refuses crossOrigin: true and a topOrigin, accepts a same-origin ceremony', () => {
    expect(() => refuseCrossOrigin(b64url({ type: 'webauthn.get', crossOrigin: false }))).not.toThrow();
    expect(() => refuseCrossOrigin(b64url({ crossOrigin: true }))).toThrow(/cross-origin/);
    expect(() => refuseCrossOrigin(b64url({ topOrigin: 'https://evil.example' }))).toThrow(/cross-origin/);
    expect(() => refuseCrossOrigin(Buffer.from('nope').toString('base64url'))).toThrow(/not JSON/);
  });
});

describe('resolveRelyingParty', () => {
  it('falls back to the request origin, and uses every configured origin', () => {
    expect(resolveRelyingParty(config(), 'http://localhost:3000')).toEqual({
      id: 'localhost',
      name: 'localhost:3000',
      origins: ['http://localhost:3000'],
    });
    const rp = resolveRelyingParty(
      config({ relyingParty: { id: 'example.com', origin: ['https://example.com/', 'https://app.example.com'] } }),
      'https://app.example.com',
    );
    expect(rp.origins).toEqual(['https://example.com', 'https://app.example.com']);
  });
  it('refuses an RP ID that does not fit the request origin (Configuration)', () => {
    expect(() => resolveRelyingParty(config({ relyingParty: { id: 'example.com' } }), 'https://evil.com')).toThrow(
      expect.objectContaining({ type: 'Configuration' }),
    );
  });
});

describe('inferAction (which ceremony)', () => {
  // Only the request decides: nothing about the address it names (no oracle).
  it.each([
    ['authenticate', false, 'authenticate'],
    ['authenticate', true, 'authenticate'],
    ['register', false, 'register'],
    ['register', true, 'register'],
    [undefined, false, 'authenticate'],
  ] as const)('action %s, signed in %s → %s', (requested, signedIn, expected) => {
    expect(inferAction(requested, signedIn)).toBe(expected);
  });
  it('asks a signed-in request without action to say which it wants', () => {
    expect(() => inferAction(undefined, true)).toThrow(expect.objectContaining({ type: 'InvalidRequest' }));
  });
  it('takes register, authenticate or nothing as action', () => {
    expect(parseRequestedAction(undefined)).toBeUndefined();
    expect(parseRequestedAction('register')).toBe('register');
    for (const bad of ['', 'delete', 'Register', ['register']]) {
      expect(() => parseRequestedAction(bad)).toThrow(expect.objectContaining({ type: 'InvalidRequest' }));
    }
  });
});
