import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  readFileSync,
  mkdtempSync,
  mkdirSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  existsSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname ?? '.', '..');

/** What an app that brings its own adapter and uses neither email nor passkeys need not install. */
const HEAVY = new Set(['typeorm', '@nestjs/typeorm', 'nodemailer', '@simplewebauthn/server']);

/** Links this repository's installed packages into `modules`, all but `except` (scoped ones one by one). */
function linkModules(modules: string, except: Set<string>): void {
  for (const entry of readdirSync(join(root, 'node_modules'))) {
    if (entry === '.bin' || entry === 'nestjs-auth' || entry.startsWith('.')) continue;
    if (entry.startsWith('@')) {
      mkdirSync(join(modules, entry), { recursive: true });
      for (const name of readdirSync(join(root, 'node_modules', entry))) {
        const target = join(modules, entry, name);
        if (!except.has(`${entry}/${name}`) && !existsSync(target))
          symlinkSync(join(root, 'node_modules', entry, name), target);
      }
    } else if (!except.has(entry) && !existsSync(join(modules, entry))) {
      symlinkSync(join(root, 'node_modules', entry), join(modules, entry));
    }
  }
}

/** Runs an ES module in `cwd`; its last line of output, parsed as JSON. */
function run(cwd: string, file: string, source: string): unknown {
  writeFileSync(join(cwd, file), source);
  const out = execFileSync('node', [file], { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    .toString()
    .trim();
  return JSON.parse(out.split('\n').pop()!);
}

/**
 * The package as a user gets it: `npm run build` + `npm pack`, unpacked into a throwaway app
 * outside the repository, imported by name through its `exports` map.
 */
describe('the packed package', () => {
  let app: string;
  let lean: string;
  let files: string[];

  beforeAll(() => {
    app = mkdtempSync(join(tmpdir(), 'nestjs-auth-consumer-'));
    execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'pipe' });
    const out = execFileSync('npm', ['pack', '--json', '--pack-destination', app], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    }).toString();
    const packed = JSON.parse(out)[0] as { filename: string; files: Array<{ path: string }> };
    files = packed.files.map((f) => f.path);
    const modules = join(app, 'node_modules');
    mkdirSync(join(modules, 'nestjs-auth'), { recursive: true });
    execFileSync('tar', [
      '-xzf',
      join(app, packed.filename),
      '-C',
      join(modules, 'nestjs-auth'),
      '--strip-components=1',
    ]);
    // The app's other dependencies (Nest, TypeORM, ...): linked from this repository's install.
    linkModules(modules, new Set());
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module', private: true }));
    // A second app with its own adapter, which installed neither the optional peers (TypeORM,
    // @nestjs/typeorm) nor, to prove they are not loaded either, nodemailer and the WebAuthn server.
    // A directory of its own (not under the first app, whose node_modules would be found above it),
    // with its own copy of the package (Node resolves a symlink's imports from its real place).
    lean = mkdtempSync(join(tmpdir(), 'nestjs-auth-lean-'));
    mkdirSync(join(lean, 'node_modules'));
    cpSync(join(modules, 'nestjs-auth'), join(lean, 'node_modules', 'nestjs-auth'), { recursive: true });
    linkModules(join(lean, 'node_modules'), HEAVY);
    writeFileSync(join(lean, 'package.json'), JSON.stringify({ name: 'lean', type: 'module', private: true }));
  }, 180_000);

  afterAll(() => {
    if (app) rmSync(app, { recursive: true, force: true });
    if (lean) rmSync(lean, { recursive: true, force: true });
  });

  it('ships only dist, README, CHANGELOG and LICENSE, with type declarations', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'dist/index.js',
        'dist/index.d.ts',
        'README.md',
        'CHANGELOG.md',
        'LICENSE',
        'package.json',
      ]),
    );
    expect(files.filter((f) => !/^(dist\/|README\.md$|CHANGELOG\.md$|LICENSE$|package\.json$)/.test(f))).toEqual([]);
    expect(files.some((f) => f.endsWith('.spec.js'))).toBe(false);
  });

  it('ships source maps that resolve: sources inlined, no declaration maps pointing at lib/', () => {
    const maps = files.filter((f) => f.endsWith('.js.map'));
    // One map per shipped module (the bundle: an entry file per export plus shared chunks).
    expect(maps.sort()).toEqual(
      files
        .filter((f) => f.endsWith('.js'))
        .map((f) => `${f}.map`)
        .sort(),
    );
    expect(maps).toContain('dist/index.js.map');
    for (const map of maps) {
      const { sources, sourcesContent } = JSON.parse(
        readFileSync(join(app, 'node_modules', 'nestjs-auth', map), 'utf8'),
      ) as { sources: string[]; sourcesContent?: Array<string | null> };
      expect({ map, inlined: sourcesContent?.filter((c) => typeof c === 'string').length }).toEqual({
        map,
        inlined: sources.length,
      });
    }
    expect(files.filter((f) => f.endsWith('.d.ts.map'))).toEqual([]);
  });

  it('declares the packages its public types import', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<
      string,
      Record<string, unknown>
    >;
    const declared = new Set([
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}),
    ]);
    const imported = new Set<string>();
    for (const file of files.filter((f) => f.endsWith('.d.ts'))) {
      const text = readFileSync(join(app, 'node_modules', 'nestjs-auth', file), 'utf8')
        .replace(/\/\*[^]*?\*\//g, '') // comments (examples name other packages)
        .replace(/^\s*\/\/.*$/gm, '');
      for (const [, spec] of text.matchAll(/from '([^'.][^']*)'|import\('([^'.][^']*)'\)/g))
        if (spec && !spec.startsWith('node:'))
          imported.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
    }
    expect(imported.size).toBeGreaterThan(3);
    const typesOf = (name: string) => `@types/${name.replace(/^@/, '').replace('/', '__')}`;
    expect([...imported].filter((name) => !declared.has(name) && !declared.has(typesOf(name)))).toEqual([]);
  });

  it('is importable by name from an app outside the repository, and starts', () => {
    writeFileSync(
      join(app, 'main.mjs'),
      `import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AuthModule, AuthGuard, Adapter } from 'nestjs-auth';
class AppModule {}
Module({ imports: [AuthModule.forRoot({ secret: 'x'.repeat(40), providers: [] })] })(AppModule);
const app = await NestFactory.create(AppModule, { logger: false });
await app.listen(0, '127.0.0.1');
const res = await fetch('http://127.0.0.1:' + app.getHttpServer().address().port + '/auth/csrf');
console.log(JSON.stringify({ status: res.status, guard: typeof AuthGuard, adapter: typeof Adapter }));
await app.close();
`,
    );
    const out = execFileSync('node', ['main.mjs'], { cwd: app, stdio: ['ignore', 'pipe', 'pipe'] })
      .toString()
      .trim();
    expect(JSON.parse(out.split('\n').pop()!)).toEqual({ status: 200, guard: 'function', adapter: 'symbol' });
  });

  it("keeps the classes' names: Nest logs AuthModule (not AuthModule2), every exported class is named as exported", () => {
    const result = run(
      app,
      'names.mjs',
      `import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import * as pkg from 'nestjs-auth';
const isClass = (v) => typeof v === 'function' && /^class[\\s{]/.test(Function.prototype.toString.call(v));
// What a bundler makes of a class's name (AuthModule2, _TokenCipher); an alias keeps its own name.
const decorated = (k, name) => name === '_' + k || (name.startsWith(k) && /^\\d+$/.test(name.slice(k.length)));
const renamed = Object.entries(pkg).filter(([k, v]) => isClass(v) && decorated(k, v.name)).map(([k, v]) => k + ' is ' + v.name);
const logs = [];
const logger = { log: (m) => logs.push(String(m)), error() {}, warn() {}, debug() {}, verbose() {}, fatal() {} };
class AppModule {}
Module({ imports: [pkg.AuthModule.forRoot({ secret: 'x'.repeat(40), providers: [] })] })(AppModule);
const nest = await NestFactory.createApplicationContext(AppModule, { logger });
await nest.close();
console.log(JSON.stringify({ renamed, modules: logs.filter((l) => l.includes('dependencies initialized')) }));
`,
    ) as { renamed: string[]; modules: string[] };
    expect(result.renamed).toEqual([]);
    expect(result.modules).toContain('AuthModule dependencies initialized');
    expect(result.modules.filter((l) => /\w2 dependencies/.test(l))).toEqual([]);
  });

  it('loads the built-in pages from their own chunk on the first page served, whichever page that is', () => {
    const chunks = readdirSync(join(app, 'node_modules', 'nestjs-auth', 'dist', 'chunks'));
    expect(chunks.filter((f) => /^renderers-\w+\.js$/.test(f))).toHaveLength(1);
    const index = readFileSync(join(app, 'node_modules', 'nestjs-auth', 'dist', 'index.js'), 'utf8');
    expect(index).not.toMatch(/function (renderSignInPage|renderAccountPage|renderPage|webAuthnClientScript)\b/);
    writeFileSync(
      join(app, 'first-page.mjs'),
      `import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AuthModule, Credentials, MemoryAdapter, Passkey } from 'nestjs-auth';
const renderers = () => [...globalThis.__loadedUrls].filter((u) => /\\/chunks\\/renderers-/.test(u)).length;
const settle = () => new Promise((r) => setTimeout(r, 100));
const credentials = Credentials({ credentials: { username: { label: 'Name' } }, authorize: ({ username }) => ({ id: '1', name: String(username) }) });
class AppModule {}
Module({ imports: [AuthModule.forRoot({ secret: 'x'.repeat(40), trustHost: true, session: { strategy: 'jwt' }, adapter: new MemoryAdapter(), providers: [credentials, Passkey()] })] })(AppModule);
const app = await NestFactory.create(AppModule, { logger: false });
await app.listen(0, '127.0.0.1');
const origin = 'http://127.0.0.1:' + app.getHttpServer().address().port;
const csrf = await fetch(origin + '/auth/csrf');
let cookie = csrf.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
await settle();
const before = renderers();
const first = process.argv[2];
if (first === '/account') {
  const body = new URLSearchParams({ csrfToken: (await csrf.json()).csrfToken, username: 'ada' });
  const signIn = await fetch(origin + '/auth/callback/credentials', { method: 'POST', body, redirect: 'manual', headers: { cookie, origin } });
  cookie = [cookie, ...signIn.headers.getSetCookie().map((c) => c.split(';')[0])].join('; ');
}
const res = await fetch(origin + '/auth' + first, { redirect: 'manual', headers: { cookie } });
const text = await res.text();
await settle();
console.log(JSON.stringify({ before, status: res.status, page: /<html|SimpleWebAuthnBrowser/.test(text), after: renderers() }));
await app.close();
`,
    );
    const register = join(root, 'bench', 'startup', 'loaded-register.mjs');
    for (const [first, status] of [
      ['/signin', 200],
      ['/error?error=Verification', 403],
      ['/account', 200],
      ['/webauthn-client.js', 200],
    ] as const) {
      const out = execFileSync('node', ['--import', register, 'first-page.mjs', first], {
        cwd: app,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
        .toString()
        .trim();
      expect({ first, ...JSON.parse(out.split('\n').pop()!) }).toEqual({
        first,
        before: 0,
        status,
        page: true,
        after: 1,
      });
    }
  });

  it('resolves nestjs-auth/providers by name (ESM import, CommonJS require, types), the catalogue only there', () => {
    const esm = run(
      app,
      'providers.mjs',
      `import * as main from 'nestjs-auth';
import * as providers from 'nestjs-auth/providers';
import { GitHub, oauthProviderCatalog } from 'nestjs-auth/providers';
const both = Object.keys(providers).filter((name) => name in main);
console.log(JSON.stringify({ id: GitHub({ clientId: 'a', clientSecret: 'b' }).id, catalogue: Object.keys(oauthProviderCatalog).length, exports: Object.keys(providers).length, both, mainGitHub: 'GitHub' in main, mainEmail: typeof main.Email }));
`,
    );
    expect(esm).toEqual({
      id: 'github',
      catalogue: 93,
      exports: 94,
      both: [],
      mainGitHub: false,
      mainEmail: 'function',
    });
    // A CommonJS app: Node's require(esm) through the same `exports` entry.
    const cjs = run(
      app,
      'providers.cjs',
      `const { Google } = require('nestjs-auth/providers');
console.log(JSON.stringify({ id: Google({ clientId: 'a', clientSecret: 'b' }).id }));
`,
    );
    expect(cjs).toEqual({ id: 'google' });
    // Types: the entry's declarations under strict nodenext, from an ES module and a CommonJS one;
    // the catalogue is no longer in the main entry's types.
    writeFileSync(
      join(app, 'providers-types.mts'),
      `import { AuthModule, type AuthModuleOptions } from 'nestjs-auth';
import { GitHub, Google, oauthProviderCatalog, type GitHubProfile, type OAuthCatalogId } from 'nestjs-auth/providers';
const id: OAuthCatalogId = 'github';
const login = (profile: GitHubProfile): string => profile.login;
const options: AuthModuleOptions = { providers: [GitHub(), Google({ clientId: 'a' }), oauthProviderCatalog[id]()] };
export { AuthModule, login, options };
`,
    );
    writeFileSync(
      join(app, 'providers-types.cts'),
      `import { GitHub, type GitHubProfile } from 'nestjs-auth/providers';
export const github = GitHub();
export type Profile = GitHubProfile;
`,
    );
    writeFileSync(
      join(app, 'main-github.mts'),
      `import { GitHub } from 'nestjs-auth';\nexport const github = GitHub();\n`,
    );
    const tsc = (...names: string[]) =>
      spawnSync(
        process.execPath,
        [
          join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
          '--module',
          'nodenext',
          '--moduleResolution',
          'nodenext',
          '--target',
          'es2022',
          '--strict',
          '--noEmit',
          '--skipLibCheck',
          '--types',
          'node',
          ...names,
        ],
        { cwd: app, encoding: 'utf8' },
      );
    const typed = tsc('providers-types.mts', 'providers-types.cts');
    expect({ code: typed.status, out: typed.stdout }).toEqual({ code: 0, out: '' });
    const fromMain = tsc('main-github.mts');
    expect(fromMain.status).not.toBe(0);
    expect(fromMain.stdout).toMatch(
      /'"nestjs-auth"' has no exported member named 'GitHub'|has no exported member 'GitHub'/,
    );
  });

  it('resolves nestjs-auth/verify by name with jose alone installed (ESM import, CommonJS require, types)', () => {
    // What the entry loads, its chunks followed: jose and nothing else (no Nest, no Node built-in).
    const dist = join(app, 'node_modules', 'nestjs-auth', 'dist');
    const packages = new Set<string>();
    const loaded = ['verify.js'];
    for (const file of loaded) {
      const text = readFileSync(join(dist, file), 'utf8');
      for (const [, spec] of text.matchAll(/(?:\bimport|\bfrom)\s*["']([^"']+)["']/g))
        if (spec!.startsWith('./')) loaded.push(join(file, '..', spec!));
        else packages.add(spec!);
    }
    expect([...packages]).toEqual(['jose']);
    // No more than a helper chunk besides the entry (keepNames' `__name`), however the bundle splits.
    expect(loaded.length).toBeLessThanOrEqual(2);
    // A service that installed nothing but the package and jose: no Nest, no reflect-metadata, no peer.
    const bare = mkdtempSync(join(tmpdir(), 'nestjs-auth-verify-'));
    try {
      mkdirSync(join(bare, 'node_modules'));
      cpSync(join(app, 'node_modules', 'nestjs-auth'), join(bare, 'node_modules', 'nestjs-auth'), { recursive: true });
      symlinkSync(join(root, 'node_modules', 'jose'), join(bare, 'node_modules', 'jose'));
      writeFileSync(join(bare, 'package.json'), JSON.stringify({ name: 'service', type: 'module', private: true }));
      const esm = run(
        bare,
        'verify.mjs',
        `import * as entry from 'nestjs-auth/verify';
import { AccessTokenError, createAccessTokenVerifier } from 'nestjs-auth/verify';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'EdDSA', use: 'sig' }] };
const now = Math.floor(Date.now() / 1000);
const claims = { iss: 'https://a.example/auth', aud: 'https://a.example/auth', sub: 'u1', iat: now, exp: now + 600, jti: 'j', sid: 's', client_id: 'ios', auth_time: now };
const sign = (extra) => new SignJWT({ ...claims, ...extra }).setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: 'k1' }).sign(privateKey);
const verify = createAccessTokenVerifier({ jwks, issuer: claims.iss, audience: claims.aud });
const { sub, clientId } = await verify(await sign({}));
const refused = await verify(await sign({ aud: 'https://b.example' })).catch((e) => e);
console.log(JSON.stringify({ exports: Object.keys(entry).sort(), sub, clientId, name: refused.name, code: refused.code, instance: refused instanceof AccessTokenError }));
`,
      );
      expect(esm).toEqual({
        exports: ['AccessTokenError', 'createAccessTokenVerifier'],
        sub: 'u1',
        clientId: 'ios',
        name: 'AccessTokenError',
        code: 'invalid_token',
        instance: true,
      });
      const cjs = run(
        bare,
        'verify.cjs',
        `const { createAccessTokenVerifier } = require('nestjs-auth/verify');
console.log(JSON.stringify({ type: typeof createAccessTokenVerifier }));
`,
      );
      expect(cjs).toEqual({ type: 'function' });
      writeFileSync(
        join(bare, 'verify-types.mts'),
        `import { AccessTokenError, createAccessTokenVerifier, type AccessTokenErrorCode, type VerifiedAccessToken } from 'nestjs-auth/verify';
const verify = createAccessTokenVerifier({ jwksUrl: new URL('https://a.example/auth/jwks'), issuer: 'a', audience: 'b', requiredScopes: ['read'] });
export async function subject(token: string): Promise<string | AccessTokenErrorCode> {
  try {
    const verified: VerifiedAccessToken = await verify(token);
    return verified.sub + verified.scopes.join(' ') + verified.authTime.toFixed();
  } catch (error) {
    if (error instanceof AccessTokenError) return error.code;
    throw error;
  }
}
`,
      );
      const typed = spawnSync(
        process.execPath,
        [
          join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
          ...['--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--strict'],
          ...['--noEmit', '--lib', 'es2023,dom', 'verify-types.mts'],
        ],
        { cwd: bare, encoding: 'utf8' },
      );
      expect({ code: typed.status, out: typed.stdout }).toEqual({ code: 0, out: '' });
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });

  /** A conformance test file for `runner` (`'vitest'` or `'node:test'`), over a sound or a broken adapter. */
  function conformanceFile(runner: 'vitest' | 'node:test', broken: boolean): string {
    const functions =
      runner === 'vitest'
        ? "import { describe, it, beforeAll, afterAll } from 'vitest';\nconst runner = { describe, it, beforeAll, afterAll };"
        : "import { describe, it, before, after } from 'node:test';\nconst runner = { describe, it, beforeAll: before, afterAll: after };";
    // The broken adapter answers `undefined` where the contract says `null`: the suite must fail.
    const adapter = broken
      ? `class Broken extends MemoryAdapter { async getUser(id) { return (await super.getUser(id)) ?? undefined; } }
const adapter = () => new Broken();`
      : 'const adapter = () => new MemoryAdapter();';
    return `import 'reflect-metadata';
${functions}
import { MemoryAdapter } from 'nestjs-auth';
import { runAdapterConformanceTests } from 'nestjs-auth/testing';
${adapter}
runAdapterConformanceTests({ name: 'MemoryAdapter', adapter, runner, extensions: ['deleteSessionsByUserId'] });
`;
  }

  /** Runs a command in the app; its exit code and output. */
  function runTests(cmd: string, args: string[]): { code: number; out: string } {
    const result = spawnSync(cmd, args, {
      cwd: app,
      encoding: 'utf8',
      env: { ...process.env, CI: 'true', NO_COLOR: '1' },
    });
    return { code: result.status ?? -1, out: `${result.stdout}${result.stderr}` };
  }

  it('runs the conformance suite of nestjs-auth/testing under node:test, and fails a broken adapter', () => {
    writeFileSync(join(app, 'sound.node-test.mjs'), conformanceFile('node:test', false));
    writeFileSync(join(app, 'broken.node-test.mjs'), conformanceFile('node:test', true));
    const sound = runTests('node', ['--test', '--test-reporter=tap', 'sound.node-test.mjs']);
    expect(sound.out).toMatch(/^# fail 0$/m);
    expect(Number(/^# pass (\d+)$/m.exec(sound.out)?.[1])).toBeGreaterThan(30);
    expect(sound.code).toBe(0);
    const broken = runTests('node', ['--test', '--test-reporter=tap', 'broken.node-test.mjs']);
    expect(broken.code).not.toBe(0);
    expect(broken.out).toMatch(/not ok \d+ - getUser/);
    expect(broken.out).toContain('expected null, got undefined');
  });

  it('runs the conformance suite of nestjs-auth/testing under vitest, and fails a broken adapter', () => {
    mkdirSync(join(app, 'vitest'), { recursive: true });
    writeFileSync(join(app, 'vitest', 'sound.test.mjs'), conformanceFile('vitest', false));
    writeFileSync(join(app, 'vitest', 'broken.test.mjs'), conformanceFile('vitest', true));
    const vitest = join(app, 'node_modules', 'vitest', 'vitest.mjs');
    const sound = runTests('node', [vitest, 'run', '--root', 'vitest', 'sound.test.mjs']);
    expect(sound.out).toMatch(/Tests\s+\d+ passed/);
    expect(sound.out).not.toMatch(/failed/);
    expect(sound.code).toBe(0);
    const broken = runTests('node', [vitest, 'run', '--root', 'vitest', 'broken.test.mjs']);
    expect(broken.code).not.toBe(0);
    expect(broken.out).toMatch(/FAIL .*getUser/);
    expect(broken.out).toContain('expected null, got undefined');
  });

  it('has a nestjs-auth bin: secret, check (options, SMTP) and migrations', () => {
    mkdirSync(join(app, 'node_modules', '.bin'), { recursive: true });
    const bin = join(app, 'node_modules', '.bin', 'nestjs-auth');
    // What npm does for a package's `bin` when it installs it: a link in .bin, the target made executable.
    if (!existsSync(bin)) symlinkSync('../nestjs-auth/dist/cli.js', bin);
    chmodSync(join(app, 'node_modules', 'nestjs-auth', 'dist', 'cli.js'), 0o755);
    const cli = (...args: string[]) => {
      const result = spawnSync(bin, args, { cwd: app, encoding: 'utf8' });
      if (result.error) throw result.error;
      return { code: result.status, out: result.stdout.trim(), err: result.stderr.trim() };
    };
    expect(cli('secret')).toMatchObject({ code: 0, out: expect.stringMatching(/^[\w-]{43}$/) });
    expect(cli('migrations', '--db', 'mysql')).toMatchObject({ code: 0, out: expect.stringMatching(/^CREATE TABLE/) });

    writeFileSync(
      join(app, 'auth-options.mjs'),
      `import { Email, MemoryAdapter } from 'nestjs-auth';
export const authOptions = { secret: 'x'.repeat(40), providers: [] };
export const shortSecret = { secret: 'short', providers: [] };
export const smtpDown = () => ({
  secret: 'x'.repeat(40),
  adapter: new MemoryAdapter(),
  providers: [Email({ server: 'smtp://127.0.0.1:1', from: 'auth@example.com' })],
});
`,
    );
    expect(cli('check', 'auth-options.mjs')).toMatchObject({ code: 0, out: 'ok' });
    expect(cli('check', 'auth-options.mjs', 'shortSecret')).toMatchObject({
      code: 1,
      err: expect.stringMatching(/^- .*secret/),
    });
    expect(cli('check', 'auth-options.mjs', 'smtpDown')).toMatchObject({
      code: 1,
      err: expect.stringMatching(/providers "email": the SMTP server did not accept a connection: .*ECONNREFUSED/),
    });
  });

  it('with TypeORM installed, `adapter: null` keeps it unloaded (JWT sessions); no `adapter` loads the default', () => {
    const result = run(
      app,
      'adapter-null.mjs',
      `import 'reflect-metadata';
import { createRequire } from 'node:module';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AuthModule } from 'nestjs-auth';
// TypeORM is CommonJS (its ESM entry wraps it), so once loaded it sits in the CommonJS cache.
const typeormLoaded = () => Object.keys(createRequire(import.meta.url).cache).some((f) => /[\\/]node_modules[\\/]typeorm[\\/]/.test(f));
async function start(extras) {
  class AppModule {}
  Module({ imports: [AuthModule.forRoot({ secret: 'x'.repeat(40), url: 'http://127.0.0.1', providers: [], ...extras })] })(AppModule);
  const app = await NestFactory.create(AppModule, { logger: false });
  await app.listen(0, '127.0.0.1');
  const res = await fetch('http://127.0.0.1:' + app.getHttpServer().address().port + '/auth/session');
  await app.close();
  return { session: res.status, typeorm: typeormLoaded() };
}
const none = await start({ adapter: null });
const byDefault = await start({ session: { strategy: 'jwt' } });
console.log(JSON.stringify({ none, byDefault }));
`,
    );
    expect(result).toEqual({ none: { session: 200, typeorm: false }, byDefault: { session: 200, typeorm: true } });
  });

  it('starts without TypeORM, nodemailer or the WebAuthn server installed when the app brings its own adapter', () => {
    for (const name of HEAVY) expect(existsSync(join(lean, 'node_modules', name))).toBe(false);
    const result = run(
      lean,
      'own-adapter.mjs',
      `import 'reflect-metadata';
import { Controller, Get, Module, UseGuards } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AuthModule, AuthGuard, MemoryAdapter } from 'nestjs-auth';
import { GitHub } from 'nestjs-auth/providers';
class Me { me() { return { ok: true }; } }
Controller()(Me);
Get('me')(Me.prototype, 'me', Object.getOwnPropertyDescriptor(Me.prototype, 'me'));
UseGuards(AuthGuard)(Me);
class AppModule {}
Module({
  imports: [AuthModule.forRoot({ secret: 'x'.repeat(40), url: 'http://127.0.0.1', providers: [GitHub({ clientId: 'a', clientSecret: 'b' })], adapter: new MemoryAdapter() })],
  controllers: [Me],
})(AppModule);
const app = await NestFactory.create(AppModule, { logger: false });
await app.listen(0, '127.0.0.1');
const base = 'http://127.0.0.1:' + app.getHttpServer().address().port;
const providers = await (await fetch(base + '/auth/providers')).json();
const me = await fetch(base + '/me');
console.log(JSON.stringify({ providers: Object.keys(providers), me: me.status }));
await app.close();
`,
    );
    expect(result).toEqual({ providers: ['github'], me: 401 });
  });

  it('without TypeORM installed and no adapter, runs on JWT sessions; a feature that needs storage says so at bootstrap', () => {
    const result = run(
      lean,
      'no-adapter.mjs',
      `import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AuthModule, Email } from 'nestjs-auth';
async function start(providers) {
  class AppModule {}
  Module({ imports: [AuthModule.forRoot({ secret: 'x'.repeat(40), url: 'http://127.0.0.1', providers })] })(AppModule);
  const app = await NestFactory.create(AppModule, { logger: false, abortOnError: false });
  await app.listen(0, '127.0.0.1');
  const res = await fetch('http://127.0.0.1:' + app.getHttpServer().address().port + '/auth/session');
  await app.close();
  return res.status;
}
const jwt = await start([]);
const email = await start([Email({ server: 'smtp://127.0.0.1:1', from: 'a@example.com' })]).catch((e) => e.name + ': ' + e.message);
const typeorm = await import('nestjs-auth/typeorm').then(() => 'loaded', (e) => e.code);
console.log(JSON.stringify({ jwt, email, typeorm }));
`,
    );
    expect(result).toEqual({
      jwt: 200,
      email: expect.stringMatching(/^AuthConfigurationError: [^]*no adapter is available/),
      typeorm: 'ERR_MODULE_NOT_FOUND',
    });
  });
});
