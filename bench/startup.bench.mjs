// Start-up cost of nestjs-auth: RSS and start-up time of a minimal app (Express, one route; with
// AuthModule: JWT sessions, one OAuth provider, its own adapter, the route guarded) against the
// same app without the module. Targets: under +15 MiB RSS and under +100 ms start-up.
//
//   npm run build && node bench/startup.bench.mjs [rounds]
//
// Each round starts both apps once, in alternating order, each in a fresh process
// (bench/startup/app.mjs); the deltas are medians of the per-round differences, so a machine that
// speeds up or slows down during the run moves both sides of a round alike. A last pair of runs
// with a module-resolution hook lists the heavy packages each app loaded (none, for this app).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const rounds = Number(process.argv[2] ?? 15);
const TARGET_RSS_MIB = 15;
const TARGET_STARTUP_MS = 100;
if (!existsSync(join(root, 'dist', 'index.js'))) throw new Error('Run `npm run build` first: the bench loads dist/.');

function start(mode, hook = false) {
  const args = ['--expose-gc', ...(hook ? ['--import', './bench/startup/loaded-register.mjs'] : [])];
  const out = execFileSync(process.execPath, [...args, 'bench/startup/app.mjs', mode], { cwd: root }).toString();
  return JSON.parse(out.trim().split('\n').pop());
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const quartiles = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return [sorted[Math.floor((sorted.length - 1) / 4)], sorted[Math.ceil(((sorted.length - 1) * 3) / 4)]];
};
const mib = (bytes) => bytes / 1024 / 1024;

const load = loadavg()[0];
start('bare');
start('auth'); // warm the file cache
const runs = { bare: [], auth: [] };
for (let i = 0; i < rounds; i++) {
  const order = i % 2 ? ['auth', 'bare'] : ['bare', 'auth'];
  for (const mode of order) runs[mode].push(start(mode));
}
const deltas = (key) => runs.auth.map((run, i) => run[key] - runs.bare[i][key]);
const loaded = { bare: start('bare', true).loaded, auth: start('auth', true).loaded };

const rows = [
  ['RSS after start-up and a full GC', 'rss', mib, 'MiB', TARGET_RSS_MIB],
  ['Peak RSS', 'peakRss', mib, 'MiB', TARGET_RSS_MIB],
  ['Start-up time (process start to listening)', 'startupMs', (v) => v, 'ms', TARGET_STARTUP_MS],
  ['CPU time to listening (user + system)', 'cpuMs', (v) => v, 'ms', TARGET_STARTUP_MS],
];
const fmt = (v) => v.toFixed(1);
console.log(
  `Node.js ${process.version}, ${rounds} rounds, load average ${load.toFixed(2)} before, ${loadavg()[0].toFixed(2)} after`,
);
console.log('| Measure | Without the module | With the module | Difference (median) | Middle half | Target |');
console.log('|---|---:|---:|---:|---:|---:|');
let ok = true;
for (const [label, key, conv, unit, target] of rows) {
  const d = deltas(key).map(conv);
  const diff = median(d);
  const [q1, q3] = quartiles(d);
  const pass = diff < target;
  ok &&= pass;
  console.log(
    `| ${label} | ${fmt(median(runs.bare.map((r) => conv(r[key]))))} ${unit} | ${fmt(median(runs.auth.map((r) => conv(r[key]))))} ${unit} | +${fmt(diff)} ${unit} ${pass ? '✓' : '✗'} | ${fmt(q1)} – ${fmt(q3)} | < +${target} ${unit} |`,
  );
}
console.log(
  `\nHeavy packages loaded: without the module ${JSON.stringify(loaded.bare)}, with it ${JSON.stringify(loaded.auth)}`,
);
if (!ok) process.exitCode = 1;
