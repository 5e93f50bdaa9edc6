// The start-up part of `npm run bench`: runs bench/startup.bench.mjs (the module's cost in RSS and
// start-up time over a bare Nest app, on the built dist/) and returns its table for RESULTS.md.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Rounds of the start-up bench (each starts both apps once, in fresh processes). */
const STARTUP_ROUNDS = Number(process.env.BENCH_STARTUP_ROUNDS ?? 21);

/** The "Start-up and memory" section of bench/RESULTS.md, measured now; printed as it runs. */
export function startupSection(root: string): string {
  const heading = ['## Start-up and memory', ''];
  if (!existsSync(join(root, 'dist', 'index.js')))
    return [...heading, 'Not measured: dist/ is not built (`npm run bench` builds it first).', ''].join('\n');
  console.log(`Start-up and memory (${STARTUP_ROUNDS} rounds)`);
  const run = spawnSync(process.execPath, ['bench/startup.bench.mjs', String(STARTUP_ROUNDS)], {
    cwd: root,
    encoding: 'utf8',
  });
  if (run.error || (run.status !== 0 && run.status !== 1) || !run.stdout.includes('| Measure |'))
    throw new Error(`the start-up bench failed (${run.status}): ${run.stderr || run.error?.message}`);
  const output = run.stdout.trim();
  console.log(`${output}\n`);
  // The first line (runtime, rounds, load) and the table are separate Markdown blocks.
  const [first, ...rest] = output.split('\n');
  return [
    ...heading,
    'What importing and starting the module adds to a bare Nest app (Express, one route): the app with',
    '`AuthModule` (JWT sessions, one OAuth provider, its own adapter, the route guarded) against the same',
    'app without it, each started in a fresh process, alternating; medians of the per-round differences',
    '(`node bench/startup.bench.mjs`, run by `npm run bench` on the built `dist/`).',
    '',
    first,
    '',
    ...rest,
    '',
  ].join('\n');
}
