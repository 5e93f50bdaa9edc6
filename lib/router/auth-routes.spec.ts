import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import { ACCOUNT_GET_PATHS, AccountRoutes } from '../account/account-routes.js';
import { AUTH_SERVICES } from '../auth.providers.js';
import { RequestErrorLog } from '../core/error-log.js';
import { UnknownAction } from '../errors/auth.errors.js';
import { AuthControllerBase } from '../http/auth.controller.js';
import { Credentials } from '../methods/credentials/credentials.provider.js';
import {
  applyCookies,
  createAuthTestbed,
  everyProvider,
  type AuthTestbed,
} from '../sign-in/fixtures/auth-testbed.fixture.js';
import { AuthRouterService } from './auth-router.service.js';
import { AUTH_ROUTE_PATHS, AUTH_ROUTES, type RoutedAction } from './auth-routes.js';

const ACTIONS = Object.keys(AUTH_ROUTE_PATHS) as RoutedAction[];
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;

/** "METHOD path" of every route the controller mounts (Nest's own metadata), the catch-all left out. */
function controllerRoutes(): string[] {
  const out: string[] = [];
  const proto = AuthControllerBase.prototype as unknown as Record<string, unknown>;
  for (const name of Object.getOwnPropertyNames(proto)) {
    const handler = proto[name];
    if (typeof handler !== 'function') continue;
    const path = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
    const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
    if (path === undefined || method === undefined || method === RequestMethod.ALL) continue;
    out.push(`${RequestMethod[method]} ${path}`);
  }
  return out.sort();
}

/** The same, from the table: what each row's segment looks like in the controller's syntax. */
function tableRoutes(): string[] {
  return AUTH_ROUTES.flatMap(({ action, method, segment }) => {
    const base = AUTH_ROUTE_PATHS[action];
    if (segment === 'provider') return [`${method} ${base}/:provider`];
    if (segment === 'account-path')
      return method === 'GET'
        ? [`GET ${base}`, `GET ${base}/:a`, `GET ${base}/:a/:b`]
        : [`POST ${base}/:a`, `POST ${base}/:a/:b`];
    return [`${method} ${base}`];
  }).sort();
}

describe('the action table as data (AUTH_ROUTES)', () => {
  let bed: AuthTestbed;
  let reported: unknown[];
  beforeEach(async () => {
    // Every part of the account API offered: passwords need a `passwordStore`.
    const providers = everyProvider().map((p) =>
      (p as { id?: string }).id === 'credentials'
        ? Credentials({
            credentials: { username: {}, password: {} },
            authorize: async (c) => (c.password === 'right' ? { id: 'u1', name: String(c.username) } : null),
            passwordStore: { getPasswordHash: () => null, setPasswordHash: () => undefined },
          })
        : p,
    );
    // Two-factor and native apps on, so their routes (and the account API) are mounted like every other.
    bed = await createAuthTestbed(
      {
        providers,
        twoFactor: {},
        nativeApps: { clients: [{ clientId: 'app', redirectUris: ['com.example.app:/cb'] }] },
        accessToken: { issuer: 'https://api.example.test/auth' },
        apiKeys: {},
      },
      AUTH_SERVICES,
    );
    reported = [];
    jest.spyOn(bed.get(RequestErrorLog), 'report').mockImplementation((error) => void reported.push(error));
  });

  /** True when the router refused `method action[/segment]` as a route it does not have. */
  async function unsupported(method: string, action: RoutedAction, segment?: string, jar = {}): Promise<boolean> {
    reported = [];
    const path = `/${AUTH_ROUTE_PATHS[action]}${segment ? `/${segment}` : ''}`;
    await bed.get(AuthRouterService).handle(bed.request(method, path, { cookies: jar }), action, segment);
    return reported.some((e) => e instanceof UnknownAction && / is not supported\.$/.test(e.message));
  }

  it('has a row for every action, and no row twice', () => {
    expect(new Set(AUTH_ROUTES.map((r) => r.action))).toEqual(new Set(ACTIONS));
    const keys = AUTH_ROUTES.map((r) => `${r.action} ${r.method}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("is exactly the controller's routes", () => {
    expect(controllerRoutes()).toEqual(tableRoutes());
  });

  it('is exactly what the router dispatches (every action and method, with the segment the table says)', async () => {
    const answered: string[] = [];
    for (const action of ACTIONS.filter((a) => a !== 'account' && a !== 'webauthn-client')) {
      // The router reads the second segment only where a route has one (the controller mounts no other).
      const anyProvider = AUTH_ROUTES.some((r) => r.action === action && r.segment === 'provider');
      for (const method of METHODS) {
        const row = AUTH_ROUTES.find((r) => r.action === action && r.method === method);
        const provider = (row ? row.segment === 'provider' : anyProvider) ? 'idp' : undefined;
        if (!(await unsupported(method, action, provider))) answered.push(`${method} ${action}`);
        // A route with a provider segment needs one: without it, it is not a route.
        if (row?.segment === 'provider')
          expect({ method, action, unsupported: await unsupported(method, action) }).toMatchObject({
            unsupported: true,
          });
      }
    }
    const expected = AUTH_ROUTES.filter((r) => r.action !== 'account' && r.action !== 'webauthn-client').map(
      (r) => `${r.method} ${r.action}`,
    );
    expect(answered.sort()).toEqual(expected.sort());
  });

  it('covers the account API through AccountRoutes.paths(): every GET path and registered action, nothing else', async () => {
    // A signed-in browser: the account routes answer nothing else.
    let jar: Record<string, string> = {};
    const router = bed.get(AuthRouterService);
    const csrf = await router.handle(bed.request('GET', '/csrf'), 'csrf');
    jar = applyCookies(jar, csrf.cookies);
    const signIn = await router.handle(
      bed.request('POST', '/callback/credentials', {
        cookies: jar,
        body: { csrfToken: (csrf.json as { csrfToken: string }).csrfToken, username: 'ada', password: 'right' },
      }),
      'callback',
      'credentials',
    );
    jar = applyCookies(jar, signIn.cookies);
    expect(jar['authjs.session-token']).toBeDefined();

    const { get, post } = bed.get(AccountRoutes).paths();
    expect(get).toBe(ACCOUNT_GET_PATHS);
    expect(post).toEqual(expect.arrayContaining(['email', 'password', 'passkeys/delete', 'delete']));
    for (const path of get)
      expect({ path, unsupported: await unsupported('GET', 'account', path, jar) }).toEqual({
        path,
        unsupported: false,
      });
    for (const path of post)
      expect({ path, unsupported: await unsupported('POST', 'account', path, jar) }).toEqual({
        path,
        unsupported: false,
      });
    // The other method on each, and a path neither list has, are refused.
    for (const path of get.filter((p) => !post.includes(p)))
      expect({ path, unsupported: await unsupported('POST', 'account', path, jar) }).toEqual({
        path,
        unsupported: true,
      });
    for (const path of post.filter((p) => !get.includes(p)))
      expect({ path, unsupported: await unsupported('GET', 'account', path, jar) }).toEqual({
        path,
        unsupported: true,
      });
    expect(await unsupported('GET', 'account', 'nope', jar)).toBe(true);
    expect(await unsupported('PUT', 'account', 'email', jar)).toBe(true);
  });
});
