// What the module's routes cost the app's own routes on Express, by where AuthModule sits in the
// root module's `imports`. Express tests a request against the routes in the order they were
// registered, and Nest registers them module by module in the order of `imports`, so with
// AuthModule first every request to a feature module's route is first tested against each of the
// module's routes (its pages, flows and APIs under `basePath`), which the module gates on Express so
// that each refuses a path outside it at once. Four servers (bench/route-order.server.ts): no auth
// module, AuthModule after the feature module, before it, and before it with the gate taken off
// (what the routes cost without it); all on one core, the load generator on the other, rounds
// interleaved (order rotated every round), `GET /open` (no guard). Prints per round and the medians
// of the per-round ratios of requests/s and of CPU time a request, against the app without the
// module, and between the servers with the module.
//
// Run with `npm run bench:route-order`. Settings (environment): BENCH_ROUNDS (default 21),
// BENCH_DURATION seconds per round (default 1).
import { loadavg } from 'node:os';
import { cpuMicros, load, median, quantile, startServer, stopServer } from './bench-harness.js';
import type { RouteOrderConfig, RouteOrderReady } from './route-order.server.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 21);
const DURATION = Number(process.env.BENCH_DURATION ?? 1);

interface Side {
  name: string;
  server: Awaited<ReturnType<typeof startServer<RouteOrderConfig, RouteOrderReady>>>;
  rps: number[];
  cpu: number[];
}

async function main(): Promise<void> {
  const load1 = loadavg()[0];
  const sides: Side[] = [];
  try {
    for (const [name, auth] of [
      ['no auth module', 'none'],
      ['AuthModule after the feature module', 'after'],
      ['AuthModule before the feature module', 'before'],
      ['AuthModule before the feature module, its routes not gated', 'before-ungated'],
    ] as const) {
      const config: RouteOrderConfig = auth === 'before-ungated' ? { auth: 'before', ungated: true } : { auth };
      const server = await startServer<RouteOrderConfig, RouteOrderReady>(config, 'route-order.server');
      sides.push({ name, server, rps: [], cpu: [] });
    }
    const url = (side: Side) => `http://127.0.0.1:${side.server.ready.port}/open`;
    for (const side of sides) await load(url(side), ['theme=dark'], 2);
    const ratio = (side: Side, round: number) => side.rps[round]! / sides[0]!.rps[round]!;
    const cpuRatio = (side: Side, round: number) => sides[0]!.cpu[round]! / side.cpu[round]!;
    for (let round = 0; round < ROUNDS; round++) {
      const order = sides.map((_, i) => sides[(i + round) % sides.length]!);
      for (const side of order) {
        const before = await cpuMicros(side.server.child.pid);
        const r = await load(url(side), ['theme=dark'], DURATION);
        const after = await cpuMicros(side.server.child.pid);
        side.rps.push(r.rps);
        side.cpu.push(before === undefined || after === undefined ? NaN : (after - before) / r.requests);
      }
      console.log(
        `round ${round + 1}/${ROUNDS}: ${sides.map((s) => `${s.name} ${s.rps[round]!.toFixed(0)} req/s (${ratio(s, round).toFixed(3)})`).join('; ')}`,
      );
    }
    const range = (values: number[]) => `${quantile(values, 0.25).toFixed(3)}-${quantile(values, 0.75).toFixed(3)}`;
    const rounds = [...Array(ROUNDS).keys()];
    console.log(
      `\n\`GET /open\` of a feature module over the same app without the auth module, ${ROUNDS} rounds of ${DURATION} s, 1-minute load average ${load1.toFixed(2)} before, ${loadavg()[0].toFixed(2)} after:`,
    );
    console.log(
      '| Server | Express layers before `/open` | Gated routes | Requests/s | Middle half | CPU time a request | Middle half |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|');
    for (const side of sides.slice(1)) {
      const rps = rounds.map((r) => ratio(side, r));
      const cpu = rounds.map((r) => cpuRatio(side, r));
      console.log(
        `| ${side.name} | ${side.server.ready.layersBefore} | ${side.server.ready.gatedRoutes} | ${median(rps).toFixed(3)} | ${range(rps)} | ${median(cpu).toFixed(3)} | ${range(cpu)} |`,
      );
    }
    const [, after, before, ungated] = sides;
    const compare = (label: string, a: Side, b: Side) => {
      const rps = rounds.map((r) => a.rps[r]! / b.rps[r]!);
      const cpu = rounds.map((r) => b.cpu[r]! / a.cpu[r]!);
      console.log(
        `${label}, the same rounds: requests/s ${median(rps).toFixed(3)} (middle half ${range(rps)}), CPU time a request ${median(cpu).toFixed(3)} (${range(cpu)})`,
      );
    };
    console.log('');
    compare('Before over after', before!, after!);
    compare('Before, not gated, over after', ungated!, after!);
    compare('Before, not gated, over before (gated)', ungated!, before!);
    console.log(`The app without the module has ${sides[0]!.server.ready.layersBefore} layers before \`/open\`.`);
  } finally {
    for (const side of sides) await stopServer(side.server.child);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
