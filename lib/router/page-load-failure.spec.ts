// A page whose renderers fail to load (a missing chunk, a broken install) answers like any other
// server error on its route, logged once, never as an unhandled rejection; the error page itself
// then answers a 500 instead of sending the browser back to itself.
import { describe, expect, it, jest } from '@jest/globals';

const failure = new Error('Cannot find module renderers-XXXX.js');
jest.unstable_mockModule('../pages/load-renderers.js', () => ({ loadRenderers: () => Promise.reject(failure) }));
const { AUTH_SERVICES } = await import('../auth.providers.js');
const { createAuthTestbed, everyProvider, ORIGIN } = await import('../sign-in/fixtures/auth-testbed.fixture.js');
const { AuthRouterService } = await import('./auth-router.service.js');

describe('a page whose renderers fail to load', () => {
  it('is a server error of its route: the error page for a page, a 500 for the error page, a 400 for the script', async () => {
    const errors: unknown[] = [];
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const bed = await createAuthTestbed(
        { providers: everyProvider([]), logger: { error: (e: unknown) => errors.push(e) } },
        AUTH_SERVICES,
      );
      const router = bed.get(AuthRouterService);
      const send = (path: string, action: Parameters<typeof router.handle>[1]) =>
        router.handle(bed.request('GET', path), action);

      for (const [path, action] of [
        ['/signin', 'signin'],
        ['/signout', 'signout'],
        ['/verify-request', 'verify-request'],
      ] as const)
        expect((await send(path, action)).redirect).toBe(`${ORIGIN}/auth/error?error=Configuration`);
      const error = await send('/error', 'error');
      expect(error).toMatchObject({ status: 500, body: { contentType: 'text/plain; charset=utf-8' } });
      expect(error.redirect).toBeUndefined();
      expect(error.body?.content).toMatch(/server configuration/);
      expect((await send('/webauthn-client.js', 'webauthn-client')).status).toBe(400);
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
      expect(errors).toContain(failure);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
