/**
 * The consumer test: the library as a new user gets it. Packs it once, makes an app from each
 * committed template (test/consumer/esm: Nest 12, ES modules, a strict nodenext +
 * verbatimModuleSyntax tsconfig; test/consumer/cjs: Nest 12, CommonJS, a strict nodenext tsconfig
 * without "type": "module", jest + ts-jest), installs the tarball, copies the README's quick-start snippets into it as they are
 * written, builds it with tsc, starts it, signs in through a real OpenID Provider and calls the
 * guarded route. A README snippet that does not compile or run fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
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

/** Installs the tarball into `app` (its other packages linked from this repository). */
function installPacked(app: string, tarball: string): void {
  const modules = join(app, 'node_modules');
  mkdirSync(join(modules, 'nestjs-auth'), { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', join(modules, 'nestjs-auth'), '--strip-components=1']);
  for (const entry of readdirSync(join(root, 'node_modules'))) {
    if (entry === 'nestjs-auth' || entry.startsWith('.')) continue;
    if (!existsSync(join(modules, entry))) symlinkSync(join(root, 'node_modules', entry), join(modules, entry));
  }
}

/** Packs the library once for both templates (the tarball stays in its own temporary folder). */
let packed: string | undefined;
function pack(): string {
  if (packed) return packed;
  const dir = mkdtempSync(join(tmpdir(), 'nestjs-auth-pack-'));
  const stage = join(dir, '.stage');
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', join(stage, 'dist')], {
    cwd: root,
    stdio: 'pipe',
  });
  // The rest of `npm run build`: one file per entry, plus shared chunks.
  execFileSync(process.execPath, [join(root, 'scripts', 'bundle-dist.mjs'), join(stage, 'dist')], {
    cwd: root,
    stdio: 'pipe',
  });
  for (const file of ['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE'])
    cpSync(join(root, file), join(stage, file));
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: stage, stdio: 'pipe' });
  const { filename } = (JSON.parse(out.toString()) as Array<{ filename: string }>)[0]!;
  rmSync(stage, { recursive: true, force: true });
  packed = join(dir, filename);
  return packed;
}

afterAll(() => {
  if (packed) rmSync(dirname(packed), { recursive: true, force: true });
});

/** Runs a command in the app; its own output in the error on failure. */
function run(app: string, args: string[], what: string, env?: NodeJS.ProcessEnv): string {
  try {
    return execFileSync(process.execPath, args, { cwd: app, stdio: 'pipe', env: env ?? process.env }).toString();
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(`${what}:\n${stdout?.toString() ?? ''}${stderr?.toString() ?? ''}`, { cause: error });
  }
}

describe.each([
  { template: 'esm', title: 'a new ESM app (nodenext, "type": "module") following the README quick start' },
  {
    template: 'cjs',
    title: 'a new CommonJS app (nodenext without "type": "module", jest) following the README quick start',
  },
])('$title', ({ template }) => {
  let app: string;
  let op: TestOidcProvider;
  let server: ChildProcess | undefined;
  let url: string;
  let env: NodeJS.ProcessEnv;
  let output = '';

  beforeAll(async () => {
    app = mkdtempSync(join(tmpdir(), `nestjs-auth-${template}-app-`));
    cpSync(join(root, 'test', 'consumer', template), app, { recursive: true });
    installPacked(app, pack());
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
    env = {
      ...process.env,
      PORT: String(port),
      AUTH_SECRET: 'consumer-test-secret-0123456789abcdef0123456789',
      AUTH_URL: url,
      AUTH_OIDC_ISSUER: op.issuer,
      AUTH_OIDC_ID: 'consumer-app',
      AUTH_OIDC_SECRET: 'consumer-app-secret-0123456789',
    };
    // Built with the template's strict tsconfig (tsc's own output on failure).
    // (tsconfig.build.json where the template has one, as `nest new` makes: src/ only, no tests).
    const tsconfig = existsSync(join(app, 'tsconfig.build.json')) ? 'tsconfig.build.json' : 'tsconfig.json';
    run(
      app,
      [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', tsconfig],
      'The quick start does not compile',
    );
    server = spawn(process.execPath, ['dist/main.js'], { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] });
    server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await started(server, () => output, url);
  }, 240_000);

  afterAll(async () => {
    server?.kill();
    await op?.close();
    if (app) rmSync(app, { recursive: true, force: true });
  });

  it('builds with the strict tsconfig, starts, refuses the guarded route without a session', async () => {
    // Compiled as the template's scaffold says: require() in the CommonJS app, import in the ESM one.
    const compiled = readFileSync(join(app, 'dist', 'app.module.js'), 'utf8');
    expect(compiled).toMatch(template === 'cjs' ? /require\("nestjs-auth"\)/ : /from 'nestjs-auth'/);
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

  if (template === 'cjs')
    it('passes its own jest suite (ts-jest, CommonJS) against the built app', async () => {
      server?.kill();
      await new Promise((done) => server!.once('exit', done));
      server = undefined;
      const jest = join(root, 'node_modules', 'jest', 'bin', 'jest.js');
      // Throws with jest's output if the suite fails (a non-zero exit).
      run(app, [jest, '--ci', '--colors=false'], "The template's jest suite fails", env);
    }, 120_000);
});

/**
 * Waits until the app answers HTTP: Nest logs "successfully started" from init(), a moment before
 * listen() binds the port, so the log line alone is not enough. Fails with the output if it exits.
 */
async function started(server: ChildProcess, out: () => string, url: string): Promise<void> {
  let exited: Error | undefined;
  server.once('exit', (code) => (exited = new Error(`The app exited (${code}):\n${out()}`)));
  for (;;) {
    if (exited) throw exited;
    try {
      await fetch(`${url}/auth/csrf`);
      return;
    } catch {
      await new Promise((next) => setTimeout(next, 100));
    }
  }
}
