import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { isStrictCi } from './setup/ci.js';

describe('isStrictCi', () => {
  it.each(['true', 'TRUE', 'True', '1', 'yes', 'on', ' true ', 'github-actions'])('CI=%j is strict', (value) => {
    expect(isStrictCi(value)).toBe(true);
  });
  it.each([undefined, '', ' ', 'false', 'FALSE', 'False', '0', ' 0 '])('CI=%j is not strict', (value) => {
    expect(isStrictCi(value)).toBe(false);
  });
});

interface ChildRun {
  code: number | null;
  output: string;
}

/** The repository's TypeScript transform, as jest.config.js exports it (JavaScript: imported untyped). */
const { transform } = (await import(join(process.cwd(), 'jest.config.js'))) as { transform: unknown };

/**
 * Runs `test/setup/strict-probe.fixture.ts` in a child jest (the repository's ESM TypeScript
 * transform, no projects) with `env` on top of this process's environment.
 */
function runProbe(env: Record<string, string>): Promise<ChildRun> {
  const config = {
    rootDir: process.cwd(),
    testEnvironment: 'node',
    extensionsToTreatAsEsm: ['.ts'],
    moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
    transform,
    testMatch: ['<rootDir>/test/setup/strict-probe.fixture.ts'],
    setupFiles: ['<rootDir>/test/setup/reflect.ts'],
  };
  const args = [
    '--experimental-vm-modules',
    '--no-warnings',
    'node_modules/jest/bin/jest.js',
    '--config',
    JSON.stringify(config),
    '--ci',
    '--runInBand',
    '--no-cache',
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: process.cwd(),
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/**
 * A strict run with a missing server fails; the same run without CI skips with one line and passes.
 * "Missing" is a port that was just listened on and closed again (nothing answers there) or a
 * Chromium path that does not exist.
 */
describe('a strict run with a missing server fails', () => {
  let closedPort: number;

  beforeAll(async () => {
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closedPort = (server.address() as { port: number }).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const missing = (probe: string): Record<string, string> => ({
    STRICT_PROBE: probe,
    AUTH_TEST_POSTGRES_URL: `postgres://postgres@127.0.0.1:${closedPort}/postgres`,
    AUTH_TEST_MARIADB_URL: `mysql://root@127.0.0.1:${closedPort}`,
    REDIS_URL: `redis://127.0.0.1:${closedPort}`,
    AUTH_TEST_CHROMIUM: '/nonexistent/chromium',
  });

  it.each([
    ['databases', '1', /CI=1 and (postgres|mariadb) is not reachable/],
    ['redis', 'TRUE', /Redis is not reachable at redis:\/\/127\.0\.0\.1:\d+ \(CI=TRUE/],
    ['chromium', 'yes', /Chromium is missing at \/nonexistent\/chromium \(CI=yes/],
  ])('%s missing with CI=%s: the child jest fails, naming the server', async (probe, ci, message) => {
    const run = await runProbe({ ...missing(probe), CI: ci });
    expect(run.code).toBe(1);
    expect(run.output).toMatch(message);
    expect(run.output).not.toMatch(/✓ ran with/);
  });

  it.each([['redis'], ['chromium']])(
    '%s missing with CI=0: the child skips with one line and passes',
    async (probe) => {
      const run = await runProbe({ ...missing(probe), CI: '0' });
      expect(run.code).toBe(0);
      expect(run.output).toMatch(/\[skipped\]|Skipping strict probe/);
      expect(run.output).toMatch(/ran with \w+ missing/);
    },
  );
});
