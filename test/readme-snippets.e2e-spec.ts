/**
 * The snippets of README and docs, as a user copies them: written into a throwaway app outside the
 * repository that has the library compiled into `node_modules/nestjs-auth`, type-checked under
 * strict `nodenext`. Every TypeScript snippet is compiled as a module of its own (`standalone/`);
 * the app-shape ones are also laid out as apps, run as processes of their own and used over real
 * sockets (HTTP, graphql-ws, socket.io, TCP). Nothing here but the docs' text and the app's
 * environment.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient } from 'graphql-ws';
import { io } from 'socket.io-client';
import { WebSocket } from 'ws';
import { freePort } from '../sample/sample.config.js';
import { readmeSnippet, readmeSnippets } from './setup/readme.js';
import { packedApp, REPO_ROOT } from './setup/packed-app.js';
import { TEST_SECRET } from './setup/app.js';
import { jwtSession, SESSION_COOKIE } from './setup/context-sessions.js';

/** Where each snippet goes in the throwaway app: one folder per app shape. */
const LAYOUT: Record<string, string[]> = {
  'feature/app.module.ts': ['feature-modules'],
  'feature/main.ts': ['main-express'],
  'feature/main-fastify.ts': ['main-fastify'],
  'graphql/app.module.ts': ['graphql'],
  'graphql/main.ts': ['main-express'],
  'graphql/main-fastify.ts': ['main-fastify'],
  'websockets/app.module.ts': ['websockets'],
  'websockets/main.ts': ['main-express'],
  'microservices/main.ts': ['microservices'],
};

/**
 * Snippets that import a file of the app (`./app.module.js`): they compile in the app they belong
 * to, not alone. The quick start's three files are built and run by test/consumer.e2e-spec.ts in
 * two app templates; `main-*` here, with each app of LAYOUT.
 */
const IN_AN_APP: Record<string, string> = {
  'quickstart-app-module': 'test/consumer.e2e-spec.ts',
  'quickstart-profile-controller': 'test/consumer.e2e-spec.ts',
  'quickstart-main': 'test/consumer.e2e-spec.ts',
  'main-express': 'test/readme-snippets.e2e-spec.ts',
  'main-fastify': 'test/readme-snippets.e2e-spec.ts',
};
const TYPESCRIPT = new Set(['ts', 'typescript']);
const importsAFile = (code: string): boolean => /from\s+['"]\.{1,2}\//.test(code);

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    strict: true,
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    skipLibCheck: true,
    types: ['node'],
    rootDir: '.',
    outDir: 'out',
  },
  include: ['**/*.ts'],
  exclude: ['node_modules', 'out'],
};

const ENV = {
  AUTH_SECRET: TEST_SECRET,
  AUTH_GITHUB_ID: 'readme-github-id',
  AUTH_GITHUB_SECRET: 'readme-github-secret',
  NODE_ENV: 'production',
};

interface Running {
  url: string;
  stop(): Promise<void>;
}

/** Runs a compiled snippet with PORT set; resolves once its auth routes answer. */
async function run(dir: string, script: string): Promise<Running> {
  const port = await freePort();
  const child: ChildProcess = spawn('node', [join(dir, 'out', script)], {
    cwd: dir,
    // Production mode: the public origin comes from AUTH_URL, as in a deployment.
    env: { ...process.env, ...ENV, PORT: String(port), AUTH_URL: `http://127.0.0.1:${port}` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  // Poll until the app listens (a bounded number of tries, not a time limit on the app).
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`${script} exited (${child.exitCode}):\n${output}`);
    try {
      const res = await fetch(`${url}/auth/csrf`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (attempt > 900) {
      child.kill('SIGKILL');
      throw new Error(`${script} did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

describe('README app-shape snippets, compiled and run from a throwaway app', () => {
  let dir: string;
  let token: string;

  beforeAll(async () => {
    ({ dir } = packedApp('nestjs-auth-readme-', { pack: false }));
    for (const [file, [name]] of Object.entries(LAYOUT)) {
      mkdirSync(join(dir, file, '..'), { recursive: true });
      writeFileSync(join(dir, file), readmeSnippet(name!).code);
    }
    // Every other TypeScript snippet, as a module of its own, type-checked with the apps.
    mkdirSync(join(dir, 'standalone'), { recursive: true });
    for (const snippet of readmeSnippets())
      if (TYPESCRIPT.has(snippet.lang) && !importsAFile(snippet.code))
        writeFileSync(join(dir, 'standalone', `${snippet.name}.ts`), snippet.code);
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
    token = await jwtSession();
  }, 180_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('compiles every TypeScript snippet: alone, or in the app it belongs to', () => {
    const notCompiled = readmeSnippets()
      .filter((snippet) => TYPESCRIPT.has(snippet.lang) && importsAFile(snippet.code))
      .filter((snippet) => {
        const suite = IN_AN_APP[snippet.name];
        return !suite || !readFileSync(join(REPO_ROOT, suite), 'utf8').includes(`'${snippet.name}'`);
      })
      .map((snippet) => `${snippet.file}:${snippet.line} ${snippet.name}`);
    expect(notCompiled).toEqual([]);
  });

  it('type-checks every snippet under strict nodenext, as written', () => {
    const tsc = join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
    let output = '';
    try {
      execFileSync('node', [tsc, '-p', 'tsconfig.json'], { cwd: dir, stdio: 'pipe' });
    } catch (error) {
      output = String((error as { stdout?: Buffer }).stdout ?? error);
    }
    expect(output).toBe('');
  }, 120_000);

  describe.each([
    ['Express', 'main.js'],
    ['Fastify', 'main-fastify.js'],
  ])('feature modules on %s', (_platform, main) => {
    let app: Running;
    beforeAll(async () => {
      app = await run(dir, `feature/${main}`);
    }, 120_000);
    afterAll(() => app?.stop());

    it('guards the feature module route: 401 SessionRequired, then the user with a session', async () => {
      const refused = await fetch(`${app.url}/profile`);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ error: 'SessionRequired' });
      const ok = await fetch(`${app.url}/profile`, { headers: { cookie: `${SESSION_COOKIE}=${token}` } });
      expect(ok.status).toBe(200);
      expect(await ok.json()).toEqual({ id: 'jwt-user', email: 'jwt@example.test' });
      const providers = (await (await fetch(`${app.url}/auth/providers`)).json()) as Record<string, unknown>;
      expect(Object.keys(providers)).toEqual(['github']);
    });
  });

  describe.each([
    ['Express', 'main.js'],
    ['Fastify', 'main-fastify.js'],
  ])('GraphQL on %s', (_platform, main) => {
    let app: Running;
    beforeAll(async () => {
      app = await run(dir, `graphql/${main}`);
    }, 120_000);
    afterAll(() => app?.stop());

    const query = async (q: string, headers: Record<string, string> = {}) => {
      const res = await fetch(`${app.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ query: q }),
      });
      return (await res.json()) as { data?: Record<string, unknown>; errors?: Array<{ extensions?: object }> };
    };

    it('answers a guarded query with a session and refuses it without one', async () => {
      const answer = await query('{ viewer { id email } hello }', { authorization: `Bearer ${token}` });
      expect(answer.data).toEqual({ viewer: { id: 'jwt-user', email: 'jwt@example.test' }, hello: 'hello' });
      const refused = await query('{ viewer { id } }');
      expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'SessionRequired' });
      expect((await query('{ hello }')).data).toEqual({ hello: 'hello' });
    });

    const subscribe = (options: { authorization?: string; cookie?: string }) => {
      const client = createClient({
        url: `${app.url.replace('http', 'ws')}/graphql`,
        webSocketImpl: class extends WebSocket {
          constructor(url: string, protocols: string[]) {
            super(url, protocols, { headers: options.cookie ? { cookie: options.cookie } : {} });
          }
        },
        connectionParams: options.authorization ? { authorization: options.authorization } : {},
        retryAttempts: 0,
      });
      return new Promise<unknown>((resolve) => {
        client.subscribe(
          { query: 'subscription { greetings }' },
          {
            next: (value) => resolve(value),
            error: (error: unknown) => {
              const { code, reason } = error as { code?: number; reason?: string };
              resolve(code ? { code, reason } : error);
            },
            complete: () => undefined,
          },
        );
      }).finally(() => client.dispose());
    };

    it('authenticates subscriptions on connection_init: bearer in connectionParams or the cookie, else 4401', async () => {
      const greeting = { data: { greetings: 'hello jwt@example.test' } };
      expect(await subscribe({ authorization: `Bearer ${token}` })).toEqual(greeting);
      expect(await subscribe({ cookie: `${SESSION_COOKIE}=${token}` })).toEqual(greeting);
      expect(await subscribe({})).toEqual({ code: 4401, reason: 'SessionRequired' });
    });
  });

  describe('WebSockets (socket.io gateway)', () => {
    let app: Running;
    beforeAll(async () => {
      app = await run(dir, 'websockets/main.js');
    }, 120_000);
    afterAll(() => app?.stop());

    const whoami = async (auth: Record<string, string>) => {
      const socket = io(app.url, { auth, transports: ['websocket'], reconnection: false });
      try {
        return await new Promise<unknown>((resolve) => {
          socket.on('exception', (error: unknown) => resolve({ exception: error }));
          socket.emit('whoami', {}, (answer: unknown) => resolve(answer));
        });
      } finally {
        socket.close();
      }
    };

    it('answers the guarded message with the user, and refuses it without a session', async () => {
      expect(await whoami({ token })).toEqual({ email: 'jwt@example.test', expires: expect.any(String) });
      expect(await whoami({})).toMatchObject({ exception: { error: 'SessionRequired' } });
    });
  });

  it('Microservices: the TCP caller gets the user of the bearer token in the payload', async () => {
    const port = await freePort();
    const out = execFileSync('node', [join(dir, 'out/microservices/main.js')], {
      cwd: dir,
      env: { ...process.env, ...ENV, PORT: String(port), AUTH_URL: 'http://127.0.0.1', SESSION_TOKEN: token },
      stdio: ['ignore', 'pipe', 'pipe'],
    }).toString();
    expect(out).toContain("email: 'jwt@example.test'");
    expect(out).toContain('limit: 5');
  }, 120_000);
});
