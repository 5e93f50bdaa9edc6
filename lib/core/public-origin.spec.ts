import { describe, expect, it } from '@jest/globals';
import { publicOrigin, resolvePublicUrl } from './public-origin.js';

const configured = { url: new URL('https://app.example.com'), trustHost: false };
const trusting = { url: undefined, trustHost: true };
const neither = { url: undefined, trustHost: false };
const req = (target: string, headers: Record<string, string> = { host: 'app.example.com' }, encrypted = false) => ({
  target,
  headers,
  encrypted,
});

describe('publicOrigin', () => {
  it('is the configured url, whatever the headers say', () => {
    expect(
      publicOrigin(
        req('/', { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' }),
        configured,
      ),
    ).toBe('https://app.example.com');
  });
  it('follows trusted headers with trustHost', () => {
    expect(publicOrigin(req('/', { host: 'a.test:8080' }), trusting)).toBe('http://a.test:8080');
    expect(publicOrigin(req('/', { host: 'a.test' }, true), trusting)).toBe('https://a.test');
    expect(
      publicOrigin(
        req('/', { host: 'a.test', 'x-forwarded-host': 'B.test, c.test', 'x-forwarded-proto': 'HTTPS' }),
        trusting,
      ),
    ).toBe('https://b.test');
    expect(publicOrigin(req('/', { host: 'a.test', 'x-forwarded-proto': 'gopher' }), trusting)).toBe('http://a.test');
    expect(publicOrigin(req('/', { host: '[::1]:3000' }), trusting)).toBe('http://[::1]:3000');
  });
  it('refuses without url and trustHost', () => {
    expect(() => publicOrigin(req('/'), neither)).toThrow(expect.objectContaining({ type: 'UntrustedHost' }));
  });
  it.each([[''], ['bad host'], ['a.test/x'], ['a@b.test'], ['a.test:99999999'], ['a.test\r\nx: y']])(
    'refuses the malformed Host %p',
    (host) => {
      expect(() => publicOrigin(req('/', { host }), trusting)).toThrow(
        expect.objectContaining({ type: 'InvalidRequest' }),
      );
    },
  );
});

describe('resolvePublicUrl', () => {
  it('puts the path and query of an origin-form target on the public origin', () => {
    expect(resolvePublicUrl(req('/auth/signin?x=1'), configured).href).toBe('https://app.example.com/auth/signin?x=1');
  });
  it('keeps protocol-relative and backslashed paths on the origin', () => {
    for (const target of ['//evil.example/auth', '/\\evil.example/auth', '/%2F%2Fevil.example']) {
      expect(resolvePublicUrl(req(target), configured).origin).toBe('https://app.example.com');
    }
  });
  it('accepts an absolute-form target naming the public host', () => {
    expect(resolvePublicUrl(req('https://app.example.com/auth/csrf?a=b'), configured).href).toBe(
      'https://app.example.com/auth/csrf?a=b',
    );
    expect(resolvePublicUrl(req('http://app.example.com/auth/csrf'), configured).href).toBe(
      'https://app.example.com/auth/csrf',
    );
    expect(resolvePublicUrl(req('http://a.test:8080/x', { host: 'a.test:8080' }), trusting).href).toBe(
      'http://a.test:8080/x',
    );
  });
  it.each([
    'http://evil.example/auth/signin',
    'https://evil.example/auth/signin',
    'http://app.example.com:8443/auth/signin',
    'http://app.example.com@evil.example/',
    'http://evil.example@app.example.com/',
    'http://@app.example.com/',
    'ftp://app.example.com/auth',
    'javascript:alert(1)',
    'http://[::1/',
    'auth/signin',
    '*',
    '',
    `/${'a'.repeat(20_000)}`,
  ])('refuses the target %p with InvalidRequest', (target) => {
    expect(() => resolvePublicUrl(req(target), configured)).toThrow(
      expect.objectContaining({ type: 'InvalidRequest' }),
    );
  });
  it('refuses an absolute-form target naming another host than the trusted Host', () => {
    expect(() => resolvePublicUrl(req('http://evil.example/x', { host: 'a.test' }), trusting)).toThrow(
      expect.objectContaining({ type: 'InvalidRequest' }),
    );
  });
});
