#!/usr/bin/env node
// Runs the test suite against NestJS 11, the major before the one this repository develops on.
//
// A copy of the repository (its tracked and unignored files, no node_modules) in a temp folder, with
// every `@nestjs/*` devDependency and peerDependency rewritten to its Nest 11 line (the `@nestjs/*`
// majors that go with Nest 11: graphql/apollo 13, config 4, typeorm 11), installed fresh with
// `npm install`, then typechecked and tested with jest's `unit` and `e2e-express` projects.
//
//   node scripts/nest11-check.mjs                      # typecheck + unit + e2e-express
//   node scripts/nest11-check.mjs test/graphql.e2e-spec.ts test/websockets.e2e-spec.ts
//                                                      # typecheck + only these paths (both projects)
//   node scripts/nest11-check.mjs --ci                 # typecheck + every unit spec + the e2e suites of CI_SUITES
//   NEST11_KEEP=1 node scripts/nest11-check.mjs        # keep the temp folder (its path is printed)
//   NEST11_WORK=/tmp/x node scripts/nest11-check.mjs --prepare
//                                                      # only copy and install into /tmp/x, keep it
//   NEST11_WORK=/tmp/x node scripts/nest11-check.mjs --ci
//                                                      # test in /tmp/x, prepared before (then removed)
//
// `--prepare` lets `.ci/run` install the copy (network and disk, mostly waiting) while `npm test`
// runs; the later run finds the installed copy through NEST11_WORK and goes straight to the
// typecheck. A NEST11_WORK folder without a finished install (no `.nest11-prepared` in it) is prepared
// again from scratch.
//
// `--ci` is what `.ci/run` runs after `npm test`: the whole unit project and the e2e suites that
// exercise Nest itself (module wiring, feature modules, GraphQL, WebSockets, microservices, the
// guard, sessions, security headers) and one full sign-in flow (OAuth), so CI stays under 25
// minutes. Measured on the 2-core development machine under load: the whole run (unit + every
// e2e-express suite, one worker) took 1273 s (install 265 s, typecheck 65 s, jest 783 s); `--ci`
// (two workers) 699 s (install 189 s, typecheck 140 s, jest 274 s).
//
// One test does not exist on Nest 11 (test/websockets.e2e-spec.ts registers it from Nest 12 on): with
// `@nestjs/platform-ws`, Nest 11's own `BaseWsExceptionFilter` emits a `WsException` on the
// server-side socket object instead of sending it, so a refused message gets no answer at all (Nest
// 12 sends it; socket.io is unaffected). Nothing is skipped: a strict run reports no skipped test.
//
// Exit code: jest's (0 when everything passed). Each phase prints how long it took.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The range each `@nestjs/*` package takes for Nest 11 (anything not listed: ^11). */
const NEST11 = {
  '@nestjs/graphql': '^13.4.4',
  '@nestjs/apollo': '^13.4.5',
  '@nestjs/config': '^4.0.2',
  '@nestjs/typeorm': '^11.0.3',
};
const rangeOf = (name) => NEST11[name] ?? '^11.2.6';
/** The docs site's devDependencies (`npm run docs:build`), which the Nest 11 copy leaves out. */
const DOCS_TOOLS = [
  'vitepress',
  'vitepress-plugin-mermaid',
  'mermaid',
  'typedoc',
  'typedoc-plugin-markdown',
  'typedoc-vitepress-theme',
];

/**
 * `--ci`: every unit spec (lib/ and test/*.spec.ts) and these e2e suites. Not `test/engines.spec.ts`:
 * it checks the tree the lockfile installs (Nest 12's), and this copy installs Nest 11's without it.
 */
const CI_SUITES = [
  'lib/',
  'test/(?!engines\\.)[^/]+\\.spec\\.ts$',
  'test/module.e2e-spec.ts',
  'test/feature-modules.e2e-spec.ts',
  'test/graphql.e2e-spec.ts',
  'test/websockets.e2e-spec.ts',
  'test/microservices.e2e-spec.ts',
  'test/sessions.e2e-spec.ts',
  'test/security.e2e-spec.ts',
  'test/oauth.e2e-spec.ts',
];

const started = Date.now();
const seconds = (since) => `${Math.round((Date.now() - since) / 1000)} s`;
function phase(name, run) {
  const since = Date.now();
  console.log(`\n== nest11: ${name}`);
  const result = run();
  console.log(`== nest11: ${name} took ${seconds(since)}`);
  return result;
}

const prepareOnly = process.argv.includes('--prepare');
const work = process.env.NEST11_WORK || mkdtempSync(join(tmpdir(), 'nestjs-auth-nest11-'));
/** Written last by a finished `--prepare`: the copy is installed. */
const preparedMark = join(work, '.nest11-prepared');
/** Written first by `prepare`: a folder this script made, which it may clear (NEST11_WORK may name any path). */
const copyMark = join(work, '.nest11-copy');
let status = 1;
try {
  if (existsSync(preparedMark)) console.log(`\n== nest11: using the copy prepared in ${work}`);
  else prepare();
  if (prepareOnly) {
    writeFileSync(preparedMark, new Date().toISOString() + '\n');
    status = 0;
  } else status = test();
} catch (error) {
  console.error(`nest11: ${error.message}`);
  status = 1;
} finally {
  if (process.env.NEST11_KEEP || (prepareOnly && status === 0)) console.log(`nest11: kept ${work}`);
  else if (existsSync(copyMark) || (existsSync(work) && readdirSync(work).length === 0))
    rmSync(work, { recursive: true, force: true });
  console.log(`\n== nest11: ${prepareOnly ? 'prepared' : status === 0 ? 'passed' : 'FAILED'} in ${seconds(started)}`);
  if (prepareOnly && status !== 0) console.log('== nest11: preparing FAILED');
}
process.exit(status);

/** Copies the repository into `work` and installs Nest 11's packages there. */
function prepare() {
  if (existsSync(work) && readdirSync(work).length > 0 && !existsSync(copyMark))
    throw new Error(`${work} is not empty and was not made by this script; give NEST11_WORK a new folder`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  writeFileSync(copyMark, '');
  phase('copy', () => {
    const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root })
      .toString()
      .split('\0')
      .filter((file) => file && !file.startsWith('node_modules/'));
    for (const file of files) {
      mkdirSync(join(work, dirname(file)), { recursive: true });
      try {
        cpSync(join(root, file), join(work, file));
      } catch (error) {
        // A tracked file deleted in the working tree: the copy is the working tree.
        if (error.code !== 'ENOENT') throw error;
      }
    }
  });

  phase('package.json for Nest 11', () => {
    const path = join(work, 'package.json');
    const pkg = JSON.parse(readFileSync(path, 'utf8'));
    for (const field of ['devDependencies', 'peerDependencies']) {
      for (const name of Object.keys(pkg[field] ?? {}))
        if (name.startsWith('@nestjs/')) pkg[field][name] = rangeOf(name);
    }
    // The TypeORM module is a peer only (tests use it): pinned so npm does not pick the Nest 12 one.
    pkg.devDependencies['@nestjs/typeorm'] = rangeOf('@nestjs/typeorm');
    // The docs site's tools build no code and run no test here: not installed in the copy.
    for (const name of DOCS_TOOLS) delete pkg.devDependencies[name];
    writeFileSync(path, JSON.stringify(pkg, null, 2) + '\n');
    rmSync(join(work, 'package-lock.json'), { force: true });
    for (const [name, range] of Object.entries(pkg.devDependencies))
      if (name.startsWith('@nestjs/')) console.log(`${name} ${range}`);
  });

  phase('npm install', () => {
    // Install scripts off: the only one the tests need is better-sqlite3's native build (minutes of
    // C on a small machine), taken from this repository's install when it is the same version.
    execFileSync('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: work,
      stdio: 'inherit',
    });
    const sqlite = 'node_modules/better-sqlite3';
    const version = (dir) => {
      try {
        return JSON.parse(readFileSync(join(dir, sqlite, 'package.json'), 'utf8')).version;
      } catch {
        return undefined;
      }
    };
    if (version(root) && version(root) === version(work) && existsSync(join(root, sqlite, 'build/Release'))) {
      cpSync(join(root, sqlite, 'build'), join(work, sqlite, 'build'), { recursive: true });
    } else {
      execFileSync('npm', ['rebuild', 'better-sqlite3'], { cwd: work, stdio: 'inherit' });
    }
    const versions = execFileSync('npm', ['ls', '--depth=0', '--json'], { cwd: work }).toString();
    const deps = JSON.parse(versions).dependencies ?? {};
    for (const [name, info] of Object.entries(deps))
      if (name.startsWith('@nestjs/')) console.log(`${name}@${info.version}`);
  });
}

/** Typechecks and runs the tests in the installed copy; jest's exit status. */
function test() {
  phase('typecheck', () => {
    execFileSync('npx', ['tsc', '-p', 'tsconfig.json', '--noEmit'], { cwd: work, stdio: 'inherit' });
  });

  return phase('jest', () => {
    const given = process.argv.slice(2);
    const paths = given.includes('--ci') ? [...given.filter((arg) => arg !== '--ci'), ...CI_SUITES] : given;
    const args = [
      '--experimental-vm-modules',
      '--no-warnings',
      'node_modules/jest/bin/jest.js',
      ...paths,
      '--selectProjects',
      'unit',
      'e2e-express',
    ];
    return spawnSync('node', args, { cwd: work, stdio: 'inherit', env: process.env }).status ?? 1;
  });
}
