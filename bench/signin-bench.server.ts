// The server side of the sign-in bench, started by signin.bench.ts in a child process pinned to its
// own core, one process per library and session kind: it loads that library's module
// (signin-bench.<library>.ts: the app as the library's documentation sets it up, on Express, storing
// in a better-sqlite3 file in WAL mode), which stores the users and the magic-link tokens through the
// library's own storage; then it prints `READY <json>` and runs until SIGTERM.
import type { SigninApp, SigninServerConfig, SigninServerReady } from './signin-bench.common.js';
import { startProfile } from './signin-bench.common.js';

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? '{}') as SigninServerConfig;
  // One import per library, so no process loads another library's code.
  const start: (config: SigninServerConfig) => Promise<SigninApp> =
    config.library === 'nestjs-auth'
      ? (await import('./signin-bench.nestjs-auth.js')).start
      : config.library === 'authjs'
        ? (await import('./signin-bench.authjs.js')).start
        : (await import('./signin-bench.better-auth.js')).start;
  const app = await start(config);
  (globalThis as { gc?: () => void }).gc?.();
  // The profiler starts on SIGUSR2, which the parent sends after the warm-up: the profile is of the
  // steady state, without the first requests' compiling and lazy loading.
  let stopProfile: Promise<() => Promise<void>> | undefined;
  const cpuProfile = config.cpuProfile;
  if (cpuProfile) process.once('SIGUSR2', () => void (stopProfile = startProfile(cpuProfile)));
  const ready: SigninServerReady = { port: app.port, ...app.ready, rss: process.memoryUsage().rss };
  process.stdout.write(`READY ${JSON.stringify(ready)}\n`);
  process.once('SIGTERM', () => {
    void (stopProfile ?? Promise.resolve(async () => undefined))
      .then((stop) => stop())
      .then(() => app.close())
      .finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`sign-in bench server failed: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
