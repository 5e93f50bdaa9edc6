// What an ORM costs a Nest app's routes by being loaded, without any auth module: the bare app of
// the guard benchmark (bench/bare-bench.server.ts) against the same app with a TypeORM DataSource on
// PostgreSQL initialised beside it, which no route uses. Both servers on one core, the load
// generator on the other, rounds interleaved (order swapped every round); prints per round and the
// median of the per-round ratios of requests/s and of CPU time a request. The guard benchmark's
// "Unguarded route over the bare app" column compares an app with this module (and, for database
// sessions, TypeORM) with the bare app; this one tells how much of that is the ORM alone.
//
// Run with `npm run bench:bare-orm`. Settings (environment): BENCH_ROUNDS (default 21), BENCH_DURATION
// seconds per round (default 1), AUTH_TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres).
import { loadavg } from 'node:os';
import { cpuMicros, load, median, quantile, startServer, stopServer } from './bench-harness.js';
import type { BenchServerReady } from './guard-bench.server.js';
import { POSTGRES_URL, withPostgres } from './guard-bench.scenarios.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 21);
const DURATION = Number(process.env.BENCH_DURATION ?? 1);
const MIB = 1024 * 1024;

interface Side {
  name: string;
  server: Awaited<ReturnType<typeof startServer<object, BenchServerReady>>>;
  rps: number[];
  cpu: number[];
}

async function main(): Promise<void> {
  try {
    await withPostgres(POSTGRES_URL, (client) => client.query('SELECT 1'));
  } catch (error) {
    console.error(
      `PostgreSQL is not reachable at ${new URL(POSTGRES_URL).host} (${(error as Error).message}): nothing measured.`,
    );
    process.exitCode = 1;
    return;
  }
  const load1 = loadavg()[0];
  const sides: Side[] = [];
  try {
    for (const [name, config] of [
      ['bare app', {}],
      ['bare app + TypeORM (PostgreSQL)', { orm: 'typeorm-postgres', postgresUrl: POSTGRES_URL }],
    ] as const) {
      sides.push({
        name,
        server: await startServer<object, BenchServerReady>(config, 'bare-bench.server'),
        rps: [],
        cpu: [],
      });
    }
    const url = (side: Side) => `http://127.0.0.1:${side.server.ready.port}/open`;
    for (const side of sides) await load(url(side), ['theme=dark'], 2);
    const ratios: number[] = [];
    const cpuRatios: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of round % 2 ? [...sides].reverse() : sides) {
        const before = await cpuMicros(side.server.child.pid);
        const r = await load(url(side), ['theme=dark'], DURATION);
        const after = await cpuMicros(side.server.child.pid);
        side.rps.push(r.rps);
        side.cpu.push(before === undefined || after === undefined ? NaN : (after - before) / r.requests);
      }
      const [bare, orm] = sides;
      ratios.push(orm.rps[round] / bare.rps[round]);
      cpuRatios.push(bare.cpu[round] / orm.cpu[round]);
      console.log(
        `round ${round + 1}/${ROUNDS}: ${sides.map((s) => `${s.name} ${s.rps[round].toFixed(0)} req/s, ${s.cpu[round].toFixed(1)} µs CPU a request`).join('; ')}; ratio ${ratios[round].toFixed(3)}, CPU-time ratio ${cpuRatios[round].toFixed(3)}`,
      );
    }
    const range = (values: number[]) => `${quantile(values, 0.25).toFixed(2)}-${quantile(values, 0.75).toFixed(2)}`;
    console.log(
      `\nBare app + TypeORM (PostgreSQL) over the bare app, ${ROUNDS} rounds of ${DURATION} s, 1-minute load average ${load1.toFixed(2)} before:`,
    );
    console.log(`  requests/s: median ${median(ratios).toFixed(3)} (middle half ${range(ratios)})`);
    console.log(`  CPU time a request: median ${median(cpuRatios).toFixed(3)} (middle half ${range(cpuRatios)})`);
    for (const side of sides) {
      const { rss, heapUsed } = side.server.ready;
      console.log(
        `  ${side.name}: RSS after start ${(rss / MIB).toFixed(0)} MiB, heap ${((heapUsed ?? NaN) / MIB).toFixed(1)} MiB`,
      );
    }
  } finally {
    for (const side of sides) await stopServer(side.server.child);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
