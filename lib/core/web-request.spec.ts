import { describe, expect, it } from '@jest/globals';
import type { AuthRequest } from '../types/http.types.js';
import { toWebRequest } from './web-request.js';

const request = (over: Partial<AuthRequest> = {}): AuthRequest =>
  ({
    method: 'POST',
    url: new URL('https://app.example/auth/callback/credentials'),
    headers: {
      cookie: 'authjs.csrf-token=x',
      'user-agent': 'ua',
      'content-length': '42',
      connection: 'keep-alive',
      'x-bad': 'line\nbreak',
    },
    cookies: {},
    query: {},
    body: { email: 'a@example.com', csrfToken: 't' },
    ...over,
  }) as AuthRequest;

describe('toWebRequest', () => {
  it('carries the URL, the headers, and the body as JSON', async () => {
    const web = toWebRequest(request(), { cookies: true });
    expect(web.url).toBe('https://app.example/auth/callback/credentials');
    expect(web.method).toBe('POST');
    expect(web.headers.get('user-agent')).toBe('ua');
    expect(web.headers.get('cookie')).toBe('authjs.csrf-token=x');
    expect(web.headers.get('content-type')).toBe('application/json');
    expect(await web.json()).toEqual({ email: 'a@example.com', csrfToken: 't' });
  });

  it('drops hop-by-hop headers and values fetch refuses', () => {
    const web = toWebRequest(request(), { cookies: true });
    expect(web.headers.get('connection')).toBeNull();
    expect(web.headers.get('x-bad')).toBeNull();
  });

  it('leaves the cookies and the omitted fields out when asked', async () => {
    const web = toWebRequest(request(), { cookies: false, omit: ['csrfToken'] });
    expect(web.headers.get('cookie')).toBeNull();
    expect(await web.json()).toEqual({ email: 'a@example.com' });
  });
});
