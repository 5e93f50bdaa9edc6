import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { gzipSync } from 'node:zlib';
import * as o from 'oauth4webapi';
import {
  boundedFetch,
  isLoopback,
  OAUTH_MAX_RESPONSE_BYTES,
  oauthTransport,
  safeUrl,
  type FetchInit,
} from './oauth-http.js';
import { normalized, oauthConfig, startServer, type Answer, type TestServer } from './fixtures/oauth.fixture.js';

const GET: FetchInit = { method: 'GET', headers: { accept: 'application/json' }, redirect: 'manual' };
let server: TestServer;

beforeAll(async () => {
  server = await startServer(({ url }): Answer => {
    switch (url.pathname) {
      case '/small':
        return { body: { ok: true } };
      case '/large':
        return { body: 'x'.repeat(OAUTH_MAX_RESPONSE_BYTES + 1), headers: { 'content-type': 'text/plain' } };
      case '/at-limit':
        return { body: 'y'.repeat(OAUTH_MAX_RESPONSE_BYTES), headers: { 'content-type': 'text/plain' } };
      case '/gzip':
        return {
          body: gzipSync(JSON.stringify({ zipped: true })),
          headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        };
      case '/sized': {
        const body = JSON.stringify({ sized: true });
        return { body, headers: { 'content-type': 'application/json', 'content-length': String(body.length) } };
      }
      case '/sized-large': {
        const body = 'z'.repeat(OAUTH_MAX_RESPONSE_BYTES + 1);
        return { body, headers: { 'content-type': 'text/plain', 'content-length': String(body.length) } };
      }
      case '/moved':
        return { status: 302, headers: { location: '/small' } };
      case '/empty':
        return { status: 204 };
      default:
        return { status: 404, body: { error: 'not_found' } };
    }
  });
});
afterAll(() => server.close());

// promise: oauth.discovery-limits (size, redirects, time limit: every request to a provider goes through boundedFetch)
describe('boundedFetch', () => {
  it('reads a response up to the cap, keeping status and headers', async () => {
    const res = await boundedFetch(`${server.url}/small`, GET);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({ ok: true });
    expect((await (await boundedFetch(`${server.url}/at-limit`, GET)).text()).length).toBe(OAUTH_MAX_RESPONSE_BYTES);
  });

  it('refuses a body over the cap, naming only the origin', async () => {
    await expect(boundedFetch(`${server.url}/large?secret=1`, GET)).rejects.toThrow(
      `the response from ${server.url} is too large`,
    );
  });

  it('passes an unencoded body of a declared length within the cap on as it is, and refuses one declared over it', async () => {
    const res = await boundedFetch(`${server.url}/sized`, GET);
    expect(res.headers.get('content-length')).toBe(String(JSON.stringify({ sized: true }).length));
    expect(await res.json()).toEqual({ sized: true });
    await expect(boundedFetch(`${server.url}/sized-large`, GET)).rejects.toThrow('too large');
    // A chunked body (no declared length) is read and capped here, copied into a new Response.
    const chunked = await boundedFetch(`${server.url}/small`, GET);
    expect(chunked.headers.get('content-length')).toBeNull();
    expect(await chunked.json()).toEqual({ ok: true });
  });

  it('hands on the decoded body without the encoding and length headers that described the wire', async () => {
    const res = await boundedFetch(`${server.url}/gzip`, GET);
    expect(res.headers.get('content-encoding')).toBeNull();
    expect(res.headers.get('content-length')).toBeNull();
    expect(await res.json()).toEqual({ zipped: true });
  });

  it('never follows a redirect, and passes bodiless answers through', async () => {
    const moved = await boundedFetch(`${server.url}/moved`, GET);
    expect(moved.status).toBe(302);
    expect(moved.headers.get('location')).toBe('/small');
    expect((await boundedFetch(`${server.url}/empty`, GET)).status).toBe(204);
  });

  it("goes through the provider's customFetch, with a time limit added to the caller's signal", async () => {
    const seen: Array<{ url: string; signal: AbortSignal | null | undefined }> = [];
    const customFetch = (url: string, init: RequestInit) => {
      seen.push({ url, signal: init.signal });
      return fetch(url.replace('/rewritten', '/small'), init);
    };
    const caller = new AbortController();
    const res = await boundedFetch(`${server.url}/rewritten`, { ...GET, signal: caller.signal }, customFetch);
    expect(await res.json()).toEqual({ ok: true });
    expect(seen).toHaveLength(1);
    expect(seen[0].signal).toBeInstanceOf(AbortSignal);
    expect(seen[0].signal).not.toBe(caller.signal);
    caller.abort();
    expect(seen[0].signal?.aborted).toBe(true);
  });
});

describe('oauthTransport', () => {
  it('allows plain http for loopback hosts only, and fetches through boundedFetch', async () => {
    const config = oauthConfig({
      providers: [
        {
          id: 'idp',
          name: 'IdP',
          type: 'oidc',
          issuer: 'https://op.example',
          clientId: 'c',
          clientSecret: 's',
        } as never,
      ],
    });
    const p = normalized(config, 'idp');
    expect(oauthTransport(o, p, `${server.url}/token`)[o.allowInsecureRequests]).toBe(true);
    expect(oauthTransport(o, p, new URL('http://[::1]:8080/x'))[o.allowInsecureRequests]).toBe(true);
    expect(oauthTransport(o, p, 'http://op.example/token')[o.allowInsecureRequests]).toBe(false);
    const res = await oauthTransport(o, p, server.url)[o.customFetch](`${server.url}/small`, GET);
    expect(await res.json()).toEqual({ ok: true });
    await expect(oauthTransport(o, p, server.url)[o.customFetch](`${server.url}/large`, GET)).rejects.toThrow(
      'too large',
    );
  });
});

describe('isLoopback and safeUrl', () => {
  it('know localhost, 127.0.0.1 and [::1], and nothing else', () => {
    expect(['http://localhost:3000', 'http://127.0.0.1', 'http://[::1]:1'].map(isLoopback)).toEqual([true, true, true]);
    expect(['http://127.0.0.2', 'https://localhost.example.com', 'not a url'].map(isLoopback)).toEqual([
      false,
      false,
      false,
    ]);
    expect(safeUrl('https://op.example/x')?.host).toBe('op.example');
    expect(safeUrl('::')).toBeUndefined();
  });
});
