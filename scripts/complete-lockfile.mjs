#!/usr/bin/env node
// Adds lockfile entries for optional, platform-specific dependencies that npm left out.
//
// Why: the registry this project is developed against serves only the Linux builds of some
// native packages (e.g. `@unrs/resolver-binding-*`, optional dependencies of jest's resolver). npm
// then writes a lockfile without the other platforms' entries, and `npm ci` refuses it as out of
// sync. Each missing optional dependency gets an entry with its version and the `os`/`cpu`/`libc`
// its name declares; npm skips it on other platforms, and fetches it by name and version on its own.
//
// Run after any `npm install` that changed package-lock.json: `node scripts/complete-lockfile.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';

const OS = ['android', 'darwin', 'freebsd', 'linux', 'openharmony', 'win32', 'netbsd', 'openbsd', 'sunos', 'aix'];
const CPU = ['arm64', 'arm', 'x64', 'ia32', 'loong64', 'ppc64', 'riscv64', 's390x', 'mips64el', 'wasm32'];

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const packages = lock.packages;
let added = 0;
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
    added += 1;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: ${added} platform entr${added === 1 ? 'y' : 'ies'} added`);
