// Summarises the server profiles of a `BENCH_CPU_PROF=1 npm run bench` run (.bench-prof/<scenario>/
// *.cpuprofile, written by `node --cpu-prof`): per scenario, the share of the busy CPU time spent in
// each part (this library, Nest, Express, the database driver, TypeORM, Node's own code, GC) and
// the functions with the most self time. Run: `node .bench-dist/bench/cpu-profile-summary.js`
// after the profiled bench (it is compiled with the bench); replaces the "CPU profiles" section at
// the end of bench/RESULTS.md (which `npm run bench` keeps) and prints it.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Native functions of node:crypto's classes as the profiler names them (no script URL). */
const CRYPTO_NATIVE = new Set([
  'Hash',
  'Hmac',
  'digest',
  'update',
  'final',
  'Decipheriv',
  'Cipheriv',
  'timingSafeEqual',
]);

/** The part of the stack a frame belongs to, from its script's path. */
function partOf(url: string, name: string): string {
  if (name === '(garbage collector)') return 'GC';
  if (name === '(program)' || name === '(root)') return 'V8 / native';
  if (url.includes('/node_modules/')) {
    const after = url.slice(url.lastIndexOf('/node_modules/') + '/node_modules/'.length);
    const pkg = after.startsWith('@') ? after.split('/').slice(0, 2).join('/') : after.split('/')[0];
    if (pkg.startsWith('@nestjs/')) return 'Nest';
    if (['express', 'router', 'body-parser', 'finalhandler', 'send', 'serve-static', 'qs', 'cookie'].includes(pkg))
      return pkg === 'cookie' ? 'cookie (parser)' : 'Express';
    if (['pg', 'pg-protocol', 'pg-types', 'pg-pool', 'postgres-date', 'pg-connection-string'].includes(pkg))
      return 'pg (driver)';
    if (pkg === 'better-sqlite3') return 'better-sqlite3';
    if (pkg === 'typeorm') return 'TypeORM';
    if (pkg === 'jose') return 'jose';
    return 'other packages';
  }
  if (url.includes('/lib/')) return 'nestjs-auth (lib/)';
  if (url.includes('/bench/')) return 'bench app';
  if (url.includes('crypto') || CRYPTO_NATIVE.has(name)) return 'node:crypto';
  if (url.startsWith('node:') || url === '') return 'Node.js core / native';
  return 'other';
}

const PROFILE_HEADING = '## CPU profiles';

/**
 * better-sqlite3's statement methods, native (no script URL): the database's own execution when
 * called from script code outside Node.js (the adapter's statements). Node's own crypto jobs have a
 * native `run` too, called from node:internal/crypto: that is this library's work (a signature
 * checked, random bytes), not the database's.
 */
const SQLITE_NATIVE = new Set(['run', 'all', 'get', 'iterate']);

/** What a profile's busy time went to, microseconds (idle left out). */
export interface ProfileShares {
  /** Busy CPU time of the profiled thread. */
  busyUs: number;
  /** Under this library's frames: lib/ and what it calls synchronously. */
  libInclusiveUs: number;
  /**
   * TypeORM's work outside this library's frames: what the adapter's query-builder statements do
   * after an await (the driver's call, hydration), which `libInclusiveUs` does not see.
   */
  typeormOutsideLibUs: number;
  /**
   * Of `libInclusiveUs`, what is not this library's own code although it runs under its frames:
   * the HTTP client of a round trip to an identity provider (undici, under `fetch`), and a
   * database's own statement execution called synchronously (better-sqlite3's native `run`, `all`,
   * `get`, `iterate`).
   */
  roundTripUs: number;
  databaseUs: number;
  /** Self time by part of the stack (see `partOf`). */
  parts: Map<string, number>;
  /** Self time by function (name, file:line, part). */
  functions: Map<string, number>;
}

/** Reads a `.cpuprofile` and adds its samples up by part and by function (the sign-in bench uses it too). */
export async function profileShares(file: string): Promise<ProfileShares> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes)
    for (const child of (n as { children?: number[] }).children ?? []) parent.set(child, n.id);
  /** A test of a sample's stack: true when `frame` holds for its node or any caller (memoised per node). */
  const onStack = (frame: (node: ProfileNode) => boolean) => {
    const known = new Map<number, boolean>();
    const test = (id: number): boolean => {
      let found = known.get(id);
      if (found === undefined) {
        const up = parent.get(id);
        found = frame(byId.get(id)!) || (up !== undefined && test(up));
        known.set(id, found);
      }
      return found;
    };
    return test;
  };
  const partIs = (part: string) => (n: ProfileNode) => partOf(n.callFrame.url, n.callFrame.functionName) === part;
  /** The stack runs through this library's code (lib/), callees included. */
  const inLib = onStack(partIs('nestjs-auth (lib/)'));
  const inInspector = onStack((n) => n.callFrame.url === 'node:inspector');
  const inTypeorm = onStack(partIs('TypeORM'));
  const inUndici = onStack((n) => n.callFrame.url.includes('/undici'));
  let libInclusive = 0;
  let typeormOutsideLib = 0;
  let roundTrip = 0;
  let database = 0;
  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++)
    selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0));
  let busy = 0;
  const parts = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    const { functionName, url, lineNumber } = node.callFrame;
    // The profiler's own stop (serialising the profile, under node:inspector's `post`) is not the server's work.
    if (functionName === '(idle)' || inInspector(id)) continue;
    busy += us;
    if (inLib(id)) {
      libInclusive += us;
      if (inUndici(id)) roundTrip += us;
      else if (
        url === '' &&
        SQLITE_NATIVE.has(functionName) &&
        !byId.get(parent.get(id)!)?.callFrame.url.startsWith('node:')
      )
        database += us;
    } else if (inTypeorm(id)) typeormOutsideLib += us;
    const part = partOf(url, functionName);
    parts.set(part, (parts.get(part) ?? 0) + us);
    const where = url ? `${url.split('/').slice(-2).join('/')}:${lineNumber + 1}` : '';
    const key = `\`${functionName || '(anonymous)'}\` ${where} [${part}]`;
    functions.set(key, (functions.get(key) ?? 0) + us);
  }
  return {
    busyUs: busy,
    libInclusiveUs: libInclusive,
    typeormOutsideLibUs: typeormOutsideLib,
    roundTripUs: roundTrip,
    databaseUs: database,
    parts,
    functions,
  };
}

/** The summary lines of one profile: the parts' shares and the `top` functions by self time. */
export async function summarise(file: string, top: number): Promise<string[]> {
  const { busyUs: busy, libInclusiveUs: libInclusive, parts, functions } = await profileShares(file);
  const pct = (us: number) => `${((100 * us) / busy).toFixed(1)}%`;
  const sorted = (m: Map<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1]);
  return [
    `Busy CPU ${(busy / 1e6).toFixed(1)} s; under this library's frames (lib/ and what it calls synchronously: crypto, cookie parsing, driver calls) ${pct(libInclusive)}. Self time by part: ${sorted(
      parts,
    )
      .map(([k, v]) => `${k} ${pct(v)}`)
      .join(', ')}.`,
    '',
    `Top ${top} functions by self time:`,
    '',
    ...sorted(functions)
      .slice(0, top)
      .map(([k, v]) => `- ${pct(v)} ${k}`),
  ];
}

async function main(): Promise<void> {
  const root = join(process.cwd(), '.bench-prof');
  const top = Number(process.env.PROFILE_TOP ?? 10);
  const out: string[] = [];
  for (const scenario of (await readdir(root)).sort()) {
    const files = (await readdir(join(root, scenario))).filter((f) => f.endsWith('.cpuprofile'));
    if (!files.length) continue;
    out.push(`### ${scenario}`, '', ...(await summarise(join(root, scenario, files[0]), top)), '');
  }
  const section = [
    PROFILE_HEADING,
    '',
    `Profiled ${new Date().toISOString().slice(0, 10)} with \`BENCH_CPU_PROF=1\` (V8 sampling profiler in the server from READY to exit: warm-up and rounds of both routes, start-up and seeding left out; the request rates of a profiled run are not reported). Shares are of the server's busy CPU time (idle excluded); "self" time is time in the function itself, not its callees. Express computes an ETag (SHA-1) for every answer, so about 2-3% of node:crypto shows in every scenario, the reference included. What the guard costs is the share under this library's frames, against the reference row (\`floor\`): asynchronous work it waits for (a database answer) runs outside its frames and shows as driver, socket and microtask time.`,
    '',
    ...out,
  ].join('\n');
  const resultsFile = join(process.cwd(), 'bench', 'RESULTS.md');
  const results = await readFile(resultsFile, 'utf8');
  const at = results.indexOf(PROFILE_HEADING);
  await writeFile(resultsFile, `${(at >= 0 ? results.slice(0, at) : `${results}\n`).trimEnd()}\n\n${section}`);
  console.log(section);
}

// Run as a script (not when the sign-in bench imports the functions above).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
