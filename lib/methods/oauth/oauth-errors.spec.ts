import { beforeAll, describe as suite, expect, it } from '@jest/globals';
import * as o from 'oauth4webapi';
import { InvalidCheck, InvalidProvider, OAuthCallbackError } from '../../errors/auth.errors.js';
import { loadOAuth4WebApi } from '../../util/oauth4webapi.js';
import { describe, mapProtocolError } from './oauth-errors.js';

suite('describe', () => {
  it("is an error's message cut to 300 characters, and says nothing of what is not an Error", () => {
    expect(describe(new Error('boom'))).toBe('boom');
    expect(describe(new Error('x'.repeat(400)))).toHaveLength(300);
    expect(describe('a secret string')).toBe('unknown error');
    expect(describe({ message: 'not an Error' })).toBe('unknown error');
  });
});

suite('mapProtocolError', () => {
  // In the library an oauth4webapi error comes from the module a flow loaded; here the spec makes them.
  beforeAll(() => loadOAuth4WebApi());

  it('keeps the library’s own errors as they are', () => {
    const own = new InvalidProvider('no such provider');
    expect(mapProtocolError(own, 'IdP')).toBe(own);
  });

  it('names the OAuth error code of a refused request, never its description', () => {
    const refused = new o.ResponseBodyError('refused', {
      cause: { error: 'invalid_grant', error_description: 'code abc123 was used' },
      response: new Response(null, { status: 400 }),
    });
    const mapped = mapProtocolError(refused, 'IdP');
    expect(mapped).toBeInstanceOf(OAuthCallbackError);
    expect(mapped.message).toBe('IdP refused the request (invalid_grant).');
    expect(mapped.message).not.toContain('abc123');
    expect(mapped.cause).toEqual({ error: 'invalid_grant', status: 400 });
  });

  it('maps a refused access token (WWW-Authenticate) without its challenge parameters', () => {
    const challenge = new o.WWWAuthenticateChallengeError('challenge', {
      cause: [{ scheme: 'bearer', parameters: { error: 'invalid_token' } }],
      response: new Response(null, { status: 401 }),
    });
    expect(mapProtocolError(challenge, 'IdP').message).toBe(
      'IdP refused the access token (WWW-Authenticate challenge).',
    );
  });

  it('turns a nonce mismatch into InvalidCheck and other processing errors into OAuthCallbackError', () => {
    const nonce = new o.OperationProcessingError('unexpected JWT "nonce" (nonce) claim value', {
      code: o.JWT_CLAIM_COMPARISON,
      cause: { claim: 'nonce' },
    });
    const mappedNonce = mapProtocolError(nonce, 'IdP');
    expect(mappedNonce).toBeInstanceOf(InvalidCheck);
    expect(mappedNonce.message).toBe('The ID token nonce does not match the nonce cookie.');

    const audience = new o.OperationProcessingError('unexpected JWT "aud" (audience) claim value', {
      code: o.JWT_CLAIM_COMPARISON,
      cause: { claim: 'aud' },
    });
    const mappedAudience = mapProtocolError(audience, 'IdP');
    expect(mappedAudience).toBeInstanceOf(OAuthCallbackError);
    expect(mappedAudience.message).toBe(`IdP's response was rejected: unexpected JWT "aud" (audience) claim value.`);

    const unsupported = new o.UnsupportedOperationError('unsupported JWS algorithm');
    expect(mapProtocolError(unsupported, 'IdP').message).toBe(
      `IdP's response was rejected: unsupported JWS algorithm.`,
    );
  });

  it('wraps anything else (a transport failure) with its message as the cause', () => {
    const failure = new TypeError('fetch failed');
    const mapped = mapProtocolError(failure, 'IdP');
    expect(mapped).toBeInstanceOf(OAuthCallbackError);
    expect(mapped.message).toBe('Could not complete sign-in with IdP: fetch failed');
    expect(mapped.cause).toBe(failure);
  });
});
