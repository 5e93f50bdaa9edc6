/**
 * On Express, each of the module's routes refuses a path outside `basePath` before testing its own
 * expression (`gateRoutes`, lib/http/express.edge.ts): a request to an app route registered after
 * them (an app that imports AuthModule before its feature modules) is tested against the prefix once
 * instead of against each of the module's ~30 routes (`npm run bench:route-order`). What this holds:
 * the gate answers every request as the routes did without it (a differential run on one real Nest
 * app, before and after, with Express's defaults and with case-sensitive, strict routing), and the
 * module gates its routes in an app laid out that way. Express only: Fastify's router is a radix tree.
 */
import { All, Controller, Get, type INestApplication, Module, Param, Post, Req } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { AuthModule, Credentials, MemoryAdapter } from '../lib/index.js';
import { gateRoutes } from '../lib/http/express.edge.js';
import { TEST_SECRET } from './setup/app.js';

type Layer = { route?: { path?: string }; name?: string; match: unknown };
type ExpressInstance = {
  router: { stack: Layer[]; caseSensitive?: boolean; strict?: boolean };
  set(name: string, value: unknown): void;
};

/** A new Express app from the `express` that @nestjs/platform-express itself loads. */
function expressOfNest(): ExpressInstance {
  const platform = createRequire(import.meta.url).resolve('@nestjs/platform-express');
  return (createRequire(platform)('express') as () => ExpressInstance)();
}

const express = (app: INestApplication) => app.getHttpAdapter().getInstance() as unknown as ExpressInstance;
const described = (stack: Layer[]) => stack.map((l) => l.route?.path ?? `<${l.name}>`);
/** The paths of the routes whose match is their own (gated), not the router's. */
const gated = (stack: Layer[]) => stack.filter((l) => Object.hasOwn(l, 'match')).map((l) => l.route?.path);

/** What a handler answers: which one, and what Express gave it. */
const seen = (handler: string, req: { params: unknown; url: string; originalUrl: string; method: string }) => ({
  handler,
  params: req.params,
  method: req.method,
  originalUrl: req.originalUrl,
});
type Req_ = Parameters<typeof seen>[1];

// Shaped like the module's controller: fixed paths, a provider segment, two levels of account
// path, GET and POST on one path, a catch-all for the base path itself.
@Controller('auth')
class LikeAuthController {
  @Get('providers') providers(@Req() req: Req_) {
    return seen('providers', req);
  }
  @Get('session') session(@Req() req: Req_) {
    return seen('session GET', req);
  }
  @Post('session') sessionPost(@Req() req: Req_) {
    return seen('session POST', req);
  }
  @Post('signin/:provider') signIn(@Req() req: Req_, @Param('provider') provider: string) {
    return { ...seen('signin', req), provider };
  }
  @Get('account/:a/:b') account(@Req() req: Req_) {
    return seen('account/:a/:b', req);
  }
  @Get('webauthn-client.js') script(@Req() req: Req_) {
    return seen('script', req);
  }
  @All() root(@Req() req: Req_) {
    return seen('root', req);
  }
}

@Controller()
class FeatureController {
  @Get('hello') hello(@Req() req: Req_) {
    return seen('hello', req);
  }
  // The app's own route under the module's prefix, registered after it.
  @Get('auth/me') me(@Req() req: Req_) {
    return seen('app auth/me', req);
  }
  @All('auth/{*rest}') rest(@Req() req: Req_) {
    return seen('app catch-all', req);
  }
}

@Module({ controllers: [LikeAuthController] })
class LikeAuthModule {}
@Module({ controllers: [FeatureController] })
class FeatureModule {}
@Module({ imports: [LikeAuthModule, FeatureModule] })
class DifferentialApp {}

const TARGETS = [
  '/auth',
  '/auth/',
  '/AUTH/Providers',
  '/auth/providers',
  '/auth/providers/',
  '/auth//providers',
  '/auth/session',
  '/auth/signin/github',
  '/auth/signin/git%2Fhub',
  '/auth/signin/',
  '/auth/account/a/b',
  '/auth/account/a%20b/c?x=1',
  '/auth/webauthn-client.js',
  '/auth/me',
  '/auth/nope',
  '/auth%2Fproviders',
  '/authx',
  '/hello',
  '/hello/',
  '/nothing',
];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS'];

async function answers(base: string): Promise<string[]> {
  const out: string[] = [];
  for (const target of TARGETS)
    for (const method of METHODS) {
      const response = await fetch(`${base}${target}`, {
        method,
        redirect: 'manual',
        ...(method === 'POST' ? { headers: { 'content-type': 'application/json' }, body: '{}' } : {}),
      });
      out.push(`${method} ${target} → ${response.status} ${await response.text()}`);
    }
  return out;
}

describe.each([
  ['Express defaults', {} as Record<string, boolean>],
  ['case-sensitive, strict routing', { 'case sensitive routing': true, 'strict routing': true }],
])('groupRoutes answers as the routes one by one did (%s)', (_, settings) => {
  let app: INestApplication;
  let base: string;
  beforeAll(async () => {
    // Set before the adapter touches the app: Express reads them once, when it makes its router.
    const instance = expressOfNest();
    for (const [name, value] of Object.entries(settings)) instance.set(name, value);
    app = await NestFactory.create(DifferentialApp, new ExpressAdapter(instance), { logger: false });
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  });
  afterAll(() => app?.close());

  it('the same status and body for every target and method; the routes stay where they were', async () => {
    const { stack, caseSensitive, strict } = express(app).router;
    // The settings reached the router (Express reads them when it makes it, on the first route).
    expect({ caseSensitive: caseSensitive === true, strict: strict === true }).toEqual({
      caseSensitive: settings['case sensitive routing'] === true,
      strict: settings['strict routing'] === true,
    });
    const before = described(stack);
    expect(gated(stack)).toEqual([]);
    const ungated = await answers(base);

    gateRoutes(express(app) as never, '/auth');

    // Every route under the prefix is gated, the app's own among them; none moved, none else changed.
    expect(described(stack)).toEqual(before);
    expect(gated(stack)).toEqual(before.filter((p) => p === '/auth' || p.startsWith('/auth/')));
    expect(gated(stack)).toHaveLength(9);
    expect(await answers(base)).toEqual(ungated);
    // Not vacuous: the run reached the module-like routes, the app's, OPTIONS and not-found answers.
    const all = ungated.join('\n');
    expect(all).toMatch(/"handler":"signin"/);
    expect(all).toMatch(/"handler":"app auth\/me"/);
    expect(all).toMatch(/OPTIONS \/auth\/providers → 200 \{"handler":"app catch-all"/);
    expect(all).toMatch(/OPTIONS \/hello → 404 /);
    expect(all).toMatch(/→ 404 /);
  });
});

@Controller('users')
class UsersController {
  @Get() list() {
    return ['ada'];
  }
}
@Module({ controllers: [UsersController] })
class UsersModule {}

describe('AuthModule imported before the feature modules, on Express', () => {
  let app: INestApplication;
  let base: string;
  beforeAll(async () => {
    @Module({
      imports: [
        AuthModule.forRoot({
          secret: TEST_SECRET,
          url: 'http://127.0.0.1:3000',
          providers: [Credentials({ credentials: { username: {}, password: {} }, authorize: async () => null })],
          adapter: new MemoryAdapter(),
        }),
        UsersModule,
      ],
    })
    class AppModule {}
    app = await NestFactory.create(AppModule, { logger: false });
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  });
  afterAll(() => app?.close());

  it("gates every route of the module's, and every route still answers", async () => {
    const stack = express(app).router.stack;
    const paths = described(stack);
    // The module's routes come first (AuthModule is imported first), each gated; the app's is not.
    expect(paths.indexOf('/users')).toBeGreaterThan(paths.indexOf('/auth/providers'));
    expect(gated(stack)).toEqual(paths.filter((p) => p.startsWith('/auth') && p !== '/auth/{*rest}'));
    expect(gated(stack).length).toBeGreaterThanOrEqual(25);
    expect((await fetch(`${base}/users`)).status).toBe(200);
    const providers = await fetch(`${base}/auth/providers`);
    expect(await providers.json()).toMatchObject({ credentials: { type: 'credentials' } });
    expect((await (await fetch(`${base}/auth/csrf`)).json()) as object).toHaveProperty('csrfToken');
    expect((await fetch(`${base}/auth/nope`)).status).toBe(400);
  });
});
