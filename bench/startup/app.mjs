/* global performance, fetch, setTimeout */
// One start-up of the minimal app the startup bench measures (bench/startup.bench.mjs runs it).
// `node app.mjs bare`: a Nest app (Express) with one controller and one route.
// `node app.mjs auth`: the same app with AuthModule (JWT sessions, one OAuth provider, its own
// adapter) and the route guarded by AuthGuard. Prints one JSON line: start-up time (from process
// start to listening, wall clock and CPU), RSS after a full GC, and the peak RSS of the process.
const mode = process.argv[2];
if (mode !== 'bare' && mode !== 'auth') throw new Error('usage: node --expose-gc app.mjs bare|auth');

await import('reflect-metadata');
const { Controller, Get, Module, UseGuards } = await import('@nestjs/common');
const { NestFactory } = await import('@nestjs/core');

class HelloController {
  hello() {
    return { ok: true };
  }
}
Controller()(HelloController);
Get('hello')(HelloController.prototype, 'hello', Object.getOwnPropertyDescriptor(HelloController.prototype, 'hello'));

const imports = [];
if (mode === 'auth') {
  // Resolved by name through this package's own `exports` (the built dist/), as an app would.
  const { AuthModule, AuthGuard, MemoryAdapter } = await import('nestjs-auth');
  const { GitHub } = await import('nestjs-auth/providers');
  UseGuards(AuthGuard)(HelloController);
  imports.push(
    AuthModule.forRoot({
      secret: 'startup-bench-secret-0123456789abcdef0123456789',
      url: 'http://127.0.0.1:3000',
      session: { strategy: 'jwt' },
      providers: [GitHub({ clientId: 'bench', clientSecret: 'bench' })],
      adapter: new MemoryAdapter(),
    }),
  );
}
class AppModule {}
Module({ imports, controllers: [HelloController] })(AppModule);

const app = await NestFactory.create(AppModule, { logger: false });
await app.listen(0, '127.0.0.1');
const startupMs = performance.now();
const cpu = process.cpuUsage();
const cpuMs = (cpu.user + cpu.system) / 1000;
const port = app.getHttpServer().address().port;
const res = await fetch(`http://127.0.0.1:${port}/hello`);
await res.arrayBuffer();
globalThis.gc?.();
const rss = process.memoryUsage().rss;
const peakRss = process.resourceUsage().maxRSS * 1024;
await app.close();
// Which heavy packages the process loaded (when run with --import ./loaded-register.mjs).
// The hook's thread reports asynchronously: give its last messages time to arrive.
if (globalThis.__loadedUrls) await new Promise((resolve) => setTimeout(resolve, 300));
const urls = [...(globalThis.__loadedUrls ?? [])];
const loaded = [
  'typeorm',
  '@nestjs/typeorm',
  'nodemailer',
  '@simplewebauthn/server',
  'jose',
  'oauth4webapi',
  'otplib',
  'uqr',
].filter((name) => urls.some((url) => url.includes(`/node_modules/${name}/`)));
console.log(JSON.stringify({ mode, status: res.status, startupMs, cpuMs, rss, peakRss, loaded }));
