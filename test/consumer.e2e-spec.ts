/**
 * The consumer test: the library as a new user gets it. Packs it, makes an app from a committed
 * template (test/consumer/esm: Nest 12, ES modules, a strict nodenext + verbatimModuleSyntax
 * tsconfig), installs the tarball, copies the README's quick-start snippets into it as they are
 * written, builds it with tsc, starts it, signs in through a real OpenID Provider and calls the
 * guarded route. A README snippet that does not compile or run fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { TestClient, location } from './setup/http-client.js';
import { followToApp, startOidcProvider, type TestOidcProvider } from './setup/oidc-provider.js';
import { readmeSnippet } from './setup/readme.js';

const root = resolve(import.meta.dirname, '..');

/** A free TCP port on 127.0.0.1 (the app's URL must be known before it starts, for the redirect URI). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/**
 * Packs the library and installs the tarball into `app` (its other packages linked from this
 * repository). Built into a staging folder, not dist/: test/package.e2e-spec.ts rebuilds dist/ and
 * may run at the same time.
 */
function installPacked(app: string): void {
  const stage = join(app, '.stage');
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', join(stage, 'dist')], {
    cwd: root,
    stdio: 'pipe',
  });
  for (const file of ['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE'])
    cpSync(join(root, file), join(stage, file));
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', app], { cwd: stage, stdio: 'pipe' });
  const { filename } = (JSON.parse(out.toString()) as Array<{ filename: string }>)[0]!;
  rmSync(stage, { recursive: true, force: true });
  const modules = join(app, 'node_modules');
  mkdirSync(join(modules, 'nestjs-auth'), { recursive: true });
  execFileSync('tar', ['-xzf', join(app, filename), '-C', join(modules, 'nestjs-auth'), '--strip-components=1']);
  for (const entry of readdirSync(join(root, 'node_modules'))) {
    if (entry === 'nestjs-auth' || entry.startsWith('.')) continue;
    if (!existsSync(join(modules, entry))) symlinkSync(join(root, 'node_modules', entry), join(modules, entry));
  }
}

describe('a new ESM app following the README quick start', () => {
  let app: string;
  let op: TestOidcProvider;
  let server: ChildProcess | undefined;
  let url: string;
  let output = '';

  beforeAll(async () => {
    app = mkdtempSync(join(tmpdir(), 'nestjs-auth-esm-app-'));
    cpSync(join(root, 'test', 'consumer', 'esm'), app, { recursive: true });
    installPacked(app);
    mkdirSync(join(app, 'src'));
    for (const [snippet, file] of [
      ['quickstart-app-module', 'app.module.ts'],
      ['quickstart-profile-controller', 'profile.controller.ts'],
      ['quickstart-main', 'main.ts'],
    ] as const)
      writeFileSync(join(app, 'src', file), readmeSnippet(snippet).code);

    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    op = await startOidcProvider({
      clients: [
        {
          client_id: 'consumer-app',
          client_secret: 'consumer-app-secret-0123456789',
          redirect_uris: [`${url}/auth/callback/company-sso`],
        },
      ],
    });
    const env = {
      ...process.env,
      PORT: String(port),
      AUTH_SECRET: 'consumer-test-secret-0123456789abcdef0123456789',
      AUTH_URL: url,
      AUTH_OIDC_ISSUER: op.issuer,
      AUTH_OIDC_ID: 'consumer-app',
      AUTH_OIDC_SECRET: 'consumer-app-secret-0123456789',
    };
    // Built with the template's strict tsconfig (tsc's own output on failure).
    try {
      execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], {
        cwd: app,
        stdio: 'pipe',
      });
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
      throw new Error(`The quick start does not compile:\n${stdout?.toString() ?? ''}${stderr?.toString() ?? ''}`, {
        cause: error,
      });
    }
    server = spawn(process.execPath, ['dist/main.js'], { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] });
    server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await started(server, () => output);
  }, 240_000);

  afterAll(async () => {
    server?.kill();
    await op?.close();
    if (app) rmSync(app, { recursive: true, force: true });
  });

  it('builds with the strict tsconfig, starts, refuses the guarded route without a session', async () => {
    expect(existsSync(join(app, 'dist', 'app.module.js'))).toBe(true);
    const res = await fetch(`${url}/profile`);
    expect(res.status).toBe(401);
  });

  it('signs in through the OpenID Provider and calls the guarded route', async () => {
    const client = new TestClient(url);
    const csrfToken = await client.csrf();
    const start = await client.post('/auth/signin/company-sso', { csrfToken, callbackUrl: `${url}/profile` });
    expect(start.status).toBe(302);
    const back = await followToApp(client, start, url);
    const done = back.method === 'GET' ? await client.get(back.url.href) : await client.post(back.url.href, back.body);
    expect(done.status).toBe(302);
    expect(location(done).href).toBe(`${url}/profile`);
    const profile = await client.get('/profile');
    expect(profile.status).toBe(200);
    expect(await profile.json()).toEqual({ email: 'ada@example.com' });
    expect(output).not.toMatch(/ERROR/);
  });
});

/** Waits for Nest's "successfully started" log line (printed once the app listens), or fails with the output. */
function started(server: ChildProcess, out: () => string): Promise<void> {
  return new Promise((done, fail) => {
    const check = () => {
      if (/Nest application successfully started/.test(out())) done();
    };
    server.stdout!.on('data', check);
    server.once('exit', (code) => fail(new Error(`The app exited (${code}):\n${out()}`)));
    check();
  });
}
