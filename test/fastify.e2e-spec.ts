/**
 * What only Fastify needs beyond the platform matrix (every e2e suite also runs on Fastify in the
 * e2e-fastify jest project): the body limits Express's parsers apply, the guard clearing a bad
 * session cookie through a Fastify reply, and the refusal of an HTTP adapter the module cannot serve.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { request as httpRequest } from 'node:http';
import { AuthModule } from '../lib/auth.module.js';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import { Credentials } from '../lib/methods/credentials/credentials.provider.js';
import { AUTH_BODY_LIMIT } from '../lib/http/fastify-hooks.js';
import { createTestApp, TEST_SECRET, type TestApp } from './setup/app.js';

function credentials() {
  return Credentials({
    credentials: { email: { type: 'email' }, password: { type: 'password' } },
    authorize: () => null,
  });
}

/** A POST with a chunked body (no Content-Length), read back as status, headers and text. */
function postChunked(
  url: string,
  chunks: string[],
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

describe('Fastify edge', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      platform: 'fastify',
      auth: { trustHost: true, adapter: new MemoryAdapter(), session: { strategy: 'jwt' }, providers: [credentials()] },
    });
  });
  afterAll(() => t?.close());

  // promise: fastify.body-limits
  it('refuses bodies over the limit Express applies: by Content-Length, and while reading a chunked one', async () => {
    const big = JSON.stringify({ a: 'x'.repeat(AUTH_BODY_LIMIT) });
    const sized = await fetch(`${t.url}/auth/signout`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: big,
    });
    expect(sized.status).toBe(413);
    expect(await sized.json()).toMatchObject({ error: 'InvalidRequest' });
    expect(sized.headers.get('x-content-type-options')).toBe('nosniff');

    const chunked = await postChunked(`${t.url}/auth/signout`, [big.slice(0, 60_000), big.slice(60_000)]);
    expect(chunked.status).toBe(413);
    expect(chunked.headers['x-content-type-options']).toBe('nosniff');
    expect(chunked.headers['cache-control']).toMatch(/no-store/);
    expect(JSON.parse(chunked.body)).toMatchObject({ error: 'InvalidRequest' });

    // Under the limit, the body reaches the module (a sign-out without CSRF token: back to the page).
    const small = await postChunked(`${t.url}/auth/signout`, ['{"a":', '"b"}']);
    expect(small.status).toBe(302);
  });

  // promise: fastify.body-limits
  it('refuses JSON in a charset other than UTF-8 (415), as Express does', async () => {
    const res = await fetch(`${t.url}/auth/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=latin1' },
      body: '{}',
    });
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({ error: 'InvalidRequest' });
  });

  it('leaves bodies outside the module to Fastify', async () => {
    const res = await fetch(`${t.url}/public`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=latin1' },
      body: JSON.stringify({ a: 'x'.repeat(AUTH_BODY_LIMIT) }),
    });
    // No POST route there: Fastify's own 404, not the module's refusal.
    expect(res.status).toBe(404);
  });

  it('the guard clears a bad session cookie on a Fastify reply', async () => {
    const res = await fetch(`${t.url}/me`, { headers: { cookie: 'authjs.session-token=not-a-token' } });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'InvalidSession' });
    expect(res.headers.getSetCookie().join()).toMatch(/authjs\.session-token=;/);
  });
});

describe('HTTP adapters', () => {
  // promise: fastify.other-adapters
  it('refuses an adapter other than Express or Fastify at bootstrap, naming it', async () => {
    class OtherAdapter extends ExpressAdapter {
      override getType(): string {
        return 'koa';
      }
    }
    @Module({ imports: [AuthModule.forRoot({ secret: TEST_SECRET, trustHost: true, providers: [credentials()] })] })
    class AppModule {}
    const app = await NestFactory.create(AppModule, new OtherAdapter(), { logger: false });
    await expect(app.init()).rejects.toThrow(/HTTP adapter "koa" is not supported/);
    await app.close().catch(() => undefined);
  });
});
