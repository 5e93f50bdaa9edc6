#!/usr/bin/env node
// Adds lockfile entries for optional, platform-specific dependencies that npm left out.
//
// Why: the registry this project is developed against serves only the Linux builds of some
// native packages (e.g. `@unrs/resolver-binding-*`, optional dependencies of jest's resolver). npm
// then writes a lockfile without the other platforms' entries, and `npm ci` refuses it as out of
// sync. Each missing optional dependency gets an entry with its version and the `os`/`cpu`/`libc`
// its name declares; npm skips it on other platforms, and fetches it by name and version on its own.
//
//   node scripts/complete-lockfile.mjs           # add the missing entries (after an `npm install`)
//   node scripts/complete-lockfile.mjs --check   # only say which are missing; exit 1 if any
//   node scripts/complete-lockfile.mjs --auto    # what `npm test` runs: add them, or under CI check
//
// Nobody has to remember it: `npm test` runs it with `--auto` first, so the lockfile an `npm install`
// left incomplete is completed by the next test run (which says so: commit package-lock.json), and
// `.ci/run` runs `--check` before `npm ci`, so a lockfile committed incomplete fails CI with this
// message instead of npm's. (No npm install hook: npm runs the project's own `postinstall` only for
// a bare `npm install`, not `npm install <package>`, and a published package must not have one.)
import { readFileSync, writeFileSync } from 'node:fs';

const OS = ['android', 'darwin', 'freebsd', 'linux', 'openharmony', 'win32', 'netbsd', 'openbsd', 'sunos', 'aix'];
const CPU = ['arm64', 'arm', 'x64', 'ia32', 'loong64', 'ppc64', 'riscv64', 's390x', 'mips64el', 'wasm32'];

const args = process.argv.slice(2);
const unknown = args.filter((arg) => arg !== '--check' && arg !== '--auto');
if (unknown.length) {
  console.error(`complete-lockfile: unknown argument ${unknown.join(' ')} (--check, --auto or none)`);
  process.exit(2);
}
/** Under CI (`CI` set to anything but empty, `false` or `0`, as test/setup/ci.ts reads it) `--auto` only checks. */
const ci = !['', 'false', '0'].includes((process.env.CI ?? '').trim().toLowerCase());
const check = args.includes('--check') || (args.includes('--auto') && ci);

const path = new URL('../package-lock.json', import.meta.url);
const text = readFileSync(path, 'utf8');
const lock = JSON.parse(text);
const packages = lock.packages;
const missing = [];
for (const [location, meta] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const base = location === '' ? 'node_modules' : `${location}/node_modules`;
    if (packages[`${base}/${name}`] || packages[`node_modules/${name}`]) continue;
    const tokens = name.split('/').pop().split('-');
    const os = OS.find((o) => tokens.includes(o));
    const cpu = CPU.find((c) => tokens.includes(c));
    if (!os || !cpu) throw new Error(`${name}: cannot tell its platform from its name; add its lockfile entry by hand`);
    const entry = { version, ...(meta.dev ? { dev: true } : {}), optional: true, os: [os], cpu: [cpu] };
    if (tokens.some((t) => t.startsWith('musl'))) entry.libc = ['musl'];
    else if (tokens.some((t) => t.startsWith('gnu'))) entry.libc = ['glibc'];
    packages[`node_modules/${name}`] = entry;
    missing.push(`${name}@${version}`);
  }
}
if (check) {
  if (missing.length === 0) process.exit(0);
  console.error(
    `complete-lockfile: package-lock.json lacks ${missing.length} platform entr${missing.length === 1 ? 'y' : 'ies'} ` +
      `that npm left out (${missing.join(', ')}), so \`npm ci\` would refuse it as out of sync.\n` +
      'Run `node scripts/complete-lockfile.mjs` (or `npm test`, which runs it) and commit package-lock.json.',
  );
  process.exit(1);
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
const completed = `${JSON.stringify(lock, null, 2)}\n`;
if (completed !== text) writeFileSync(path, completed);
const added = missing.length;
if (added > 0 || !args.includes('--auto'))
  console.log(
    `complete-lockfile: ${added} platform entr${added === 1 ? 'y' : 'ies'} added` +
      (added > 0 ? ` to package-lock.json (${missing.join(', ')}): commit it` : ''),
  );
