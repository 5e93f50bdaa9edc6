// The template's own jest test (CommonJS, ts-jest), run in the app by test/consumer.e2e-spec.ts.
// It starts the built app (`node dist/main.js`, where Node's require(esm) loads nestjs-auth) and
// calls it over HTTP: jest's CommonJS runtime has its own require(), which loads ES modules only on
// Node 24.9+, so on Node 20/22 a CommonJS jest suite tests a Nest app that uses nestjs-auth this way.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const url = process.env.AUTH_URL ?? 'http://127.0.0.1:3000';
let app: ChildProcess;
let output = '';

beforeAll(async () => {
  app = spawn(process.execPath, [join(__dirname, '..', 'dist', 'main.js')], { stdio: ['ignore', 'pipe', 'pipe'] });
  app.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  app.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let exited: Error | undefined;
  app.once('exit', (code) => (exited = new Error(`The app exited (${code}):\n${output}`)));
  // Polls until the app answers (Nest logs "successfully started" a moment before it listens).
  for (;;) {
    if (exited) throw exited;
    try {
      await fetch(`${url}/auth/csrf`);
      return;
    } catch {
      await new Promise((next) => setTimeout(next, 100));
    }
  }
});

afterAll(() => {
  app?.kill();
});

it('lists the OpenID Connect provider', async () => {
  const res = await fetch(`${url}/auth/providers`);
  expect(res.status).toBe(200);
  expect(Object.keys((await res.json()) as object)).toEqual(['company-sso']);
});

it('refuses the guarded route without a session', async () => {
  const res = await fetch(`${url}/profile`);
  expect(res.status).toBe(401);
});
