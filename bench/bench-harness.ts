// The guard benchmark's processes and measurements (split from guard.bench.ts): starting the bench
// server pinned to its core, one load of a route with autocannon, and the small statistics.
import autocannon from 'autocannon';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { type Agent, type IncomingHttpHeaders, request } from 'node:http';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
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
  /** The core to pin it to (the sign-in bench puts its OpenID Provider beside the load generator). */
  core = '1',
): Promise<{ child: ChildProcess; ready: Ready }> {
  // Same runtime flags as this process (e.g. the TypeScript loader), so the server runs as we do.
  const script = join(here, `${server}${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`);
  const args = [...process.execArgv, '--expose-gc', script, JSON.stringify(config)];
  const child = canPin
    ? spawn('taskset', ['-c', core, process.execPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
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
export async function verify(base: string, ready: BenchServerReady, path = 'guarded'): Promise<void> {
  const ok = await fetch(`${base}/${path}`, { headers: { [ready.header ?? 'cookie']: ready.cookie } });
  const body = (await ok.json()) as { id?: string };
  if (ok.status !== 200 || body.id !== ready.userId)
    throw new Error(`the guarded route refused the session (${ok.status})`);
  const anonymous = await fetch(`${base}/${path}`);
  if (anonymous.status !== 401) throw new Error(`the guarded route let an anonymous request in (${anonymous.status})`);
}

/** Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`; 100 on Linux). */
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK']).stdout?.toString().trim()) || 100;

/**
 * CPU time (user + system) a process has used so far, microseconds (Linux /proc, 10 ms steps).
 * Unlike requests/s, it does not count the time other processes held the core. With `thread`, only
 * that thread's (the main thread's id is the process id: the JavaScript thread).
 */
export async function cpuMicros(pid: number | undefined, thread?: number): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  try {
    const stat = await readFile(
      thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`,
      'utf8',
    );
    // After "pid (comm) ": state is field 3, utime field 14 and stime field 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/**
 * Resets a process's peak RSS (VmHWM) to its current RSS (Linux: `5` written to
 * /proc/<pid>/clear_refs), so the peak read later is that of the load, not of start-up or seeding.
 * False where it cannot (another OS, no permission): the peak then counts from the process's start.
 */
export async function resetPeak(pid: number | undefined): Promise<boolean> {
  if (pid === undefined) return false;
  try {
    await writeFile(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
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

// ---- HTTP and closed loops (the refresh and sign-in benches) ----

export interface Reply {
  status: number;
  body: string;
  /** The answer's headers (`set-cookie` and `location` for the sign-in bench). */
  headers: IncomingHttpHeaders;
}

/** One request on a keep-alive agent (node:http: cheaper per request than fetch, so the client keeps up). */
export function send(
  agent: Agent,
  port: number,
  method: 'GET' | 'POST',
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * `workers` closed loops for `seconds`: each sends a request, waits for its answer, sends the next;
 * no request starts after the deadline (or once `maxRequests` have started: single-use inputs such
 * as magic links run out), and the ones in flight are waited for (and counted).
 */
export async function closedLoop(
  workers: number,
  seconds: number,
  step: (worker: number) => Promise<string | undefined>,
  maxRequests = Infinity,
) {
  let begun = 0;
  const latencies: number[] = [];
  let requests = 0;
  let failures = 0;
  let firstFailure: string | undefined;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let ended = started;
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      while (performance.now() < deadline && begun < maxRequests) {
        begun++;
        const t0 = performance.now();
        const failure = await step(w).catch((error: unknown) => String(error));
        const t1 = performance.now();
        latencies.push(t1 - t0);
        requests++;
        if (failure !== undefined) {
          failures++;
          firstFailure ??= failure;
        }
        if (t1 > ended) ended = t1;
      }
    }),
  );
  return { requests, failures, firstFailure, seconds: (ended - started) / 1000, latencies };
}
