// The guard benchmark's processes and measurements (split from guard.bench.ts): starting the bench
// server pinned to its core, one load of a route with autocannon, and the small statistics.
import autocannon from 'autocannon';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchServerConfig, BenchServerReady, SessionHeader } from './guard-bench.server.js';

const here = dirname(fileURLToPath(import.meta.url));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);

// ---- processes ----

export const canPin = availableParallelism() >= 2 && spawnSync('taskset', ['-V']).status === 0;

/**
 * Starts a bench server (pinned to core 1 when possible) and waits for its READY line: by default
 * the guard bench's (bench/guard-bench.server.ts), or `server`, another script of bench/ that takes
 * its config as argv[2] (JSON) and prints `READY <json>` the same way.
 */
export function startServer<Config extends object = BenchServerConfig, Ready = BenchServerReady>(
  config: Config,
  server = 'guard-bench.server',
): Promise<{ child: ChildProcess; ready: Ready }> {
  // Same runtime flags as this process (e.g. the TypeScript loader), so the server runs as we do.
  const script = join(here, `${server}${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`);
  const args = [...process.execArgv, '--expose-gc', script, JSON.stringify(config)];
  const child = canPin
    ? spawn('taskset', ['-c', '1', process.execPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the bench server did not start within 60 s\n${err}`));
    }, 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('READY '));
      if (line) {
        clearTimeout(timer);
        resolve({ child, ready: JSON.parse(line.slice('READY '.length)) as Ready });
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the bench server exited with code ${code}\n${err}`));
    });
  });
}

export function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.removeAllListeners('exit');
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

// ---- measuring ----

/** The q-quantile of values (linear interpolation between the closest ranks). */
export const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  return sorted[lo] + (sorted[Math.min(lo + 1, sorted.length - 1)] - sorted[lo]) * (pos - lo);
};
export const median = (values: number[]) => quantile(values, 0.5);

/**
 * One load of `duration` seconds (or of `amount` requests) on `url`: every request sends the next of `cookies` (the values of
 * the `header` that carries the session: Cookie headers, or with `authorization`, `Bearer <access
 * token>`), from where `cursor` stands, and leaves the cursor after the last one sent. A scenario
 * passes one cursor to all its loads (both routes, every round), so with 50,000 cookies a cookie
 * comes back once per 50,000 requests; a cursor per load would start every load at the first cookie
 * and send the same few thousand again and again.
 */
export async function load(
  url: string,
  cookies: string[],
  duration: number,
  cursor = { next: 0 },
  header: SessionHeader = 'cookie',
  /** Send this many requests instead (whatever they take), not `duration` seconds of them. */
  amount?: number,
) {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration,
    ...(amount ? { amount } : {}),
    headers: { [header]: cookies[0] },
    ...(cookies.length > 1
      ? {
          requests: [
            {
              setupRequest: (request) => {
                request.headers[header] = cookies[cursor.next];
                cursor.next = cursor.next + 1 === cookies.length ? 0 : cursor.next + 1;
                return request;
              },
            },
          ],
        }
      : {}),
  });
  return {
    rps: result.requests.average,
    requests: result.requests.total,
    p99: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

/** Proves the setup before timing it: the guard lets the session in, and keeps everyone else out. */
export async function verify(base: string, ready: BenchServerReady): Promise<void> {
  const ok = await fetch(`${base}/guarded`, { headers: { [ready.header ?? 'cookie']: ready.cookie } });
  const body = (await ok.json()) as { id?: string };
  if (ok.status !== 200 || body.id !== ready.userId)
    throw new Error(`the guarded route refused the session (${ok.status})`);
  const anonymous = await fetch(`${base}/guarded`);
  if (anonymous.status !== 401) throw new Error(`the guarded route let an anonymous request in (${anonymous.status})`);
}

/** Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`; 100 on Linux). */
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK']).stdout?.toString().trim()) || 100;

/**
 * CPU time (user + system) a process has used so far, microseconds (Linux /proc, 10 ms steps).
 * Unlike requests/s, it does not count the time other processes held the core.
 */
export async function cpuMicros(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // After "pid (comm) ": state is field 3, utime field 14 and stime field 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/** Peak and current resident set size of a process (Linux /proc), MiB. */
export async function memoryOf(pid: number | undefined): Promise<{ peak?: number }> {
  if (pid === undefined) return {};
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const hwm = /^VmHWM:\s+(\d+) kB/m.exec(status);
    return { peak: hwm ? Number(hwm[1]) / 1024 : undefined };
  } catch {
    return {};
  }
}
