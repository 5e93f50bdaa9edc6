#!/usr/bin/env node
// `npm run test:unit [-- <path or jest option>...]`: jest's `unit` project, narrowed to the paths given.
//
//   npm run test:unit                                  # every unit spec (lib/**/*.spec.ts, test/*.spec.ts)
//   npm run test:unit -- lib/core/csrf.spec.ts         # only that file
//   npm run test:unit -- lib/session -t 'revocation'   # a folder, tests whose name matches
//
// npm appends the arguments after `--` to the script, and jest's `--selectProjects` takes every word
// that follows it as a project name, so `jest --selectProjects unit <path>` would read the path as a
// second project and run the whole project. Here the arguments go first and `--selectProjects unit`
// last, as the README's own commands write it.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const result = spawnSync(
  process.execPath,
  [
    '--experimental-vm-modules',
    '--no-warnings',
    join(root, 'node_modules', 'jest', 'bin', 'jest.js'),
    ...process.argv.slice(2),
    '--selectProjects',
    'unit',
  ],
  { stdio: 'inherit' },
);
if (result.error) throw result.error;
process.exit(result.status ?? 1);
