import { availableParallelism } from 'node:os';

/**
 * The TypeScript transform: SWC (`@swc/jest`), which only strips types, file by file, as
 * `isolatedModules` already requires; `npm run typecheck` (`tsc --noEmit`, the first step of `npm test`)
 * checks the types. Its options mirror tsconfig.json where the emitted JavaScript depends on them:
 * legacy decorators with `design:paramtypes` metadata (Nest's constructor injection reads it),
 * `useDefineForClassFields: false` (a field declared without an initialiser, e.g. a TypeORM entity
 * column or a property a constructor parameter sets, emits nothing), the ES2022 target, and class names
 * kept (Nest names providers and errors by them). ES modules out (`@swc/jest` sets `module.type` from
 * jest's ESM mode too). Against ts-jest (which transpiled file by file as well, but loads the TypeScript
 * compiler in every worker), lib/guard/auth.guard.spec.ts, which loads Nest and the guard's imports,
 * takes 2.4 s instead of 4.9 with a cold cache on a quiet 2-core host (3.2 s of CPU instead of 7.3),
 * 1.7 s instead of 2.4 warm (CHANGELOG, "Contributor speed").
 */
export const transform = {
  '^.+\\.ts$': [
    '@swc/jest',
    {
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
        target: 'es2022',
        keepClassNames: true,
      },
      module: { type: 'es6' },
      sourceMaps: 'inline',
    },
  ],
};

/** What every project shares: ESM TypeScript through SWC. */
const common = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  transform,
};

/**
 * Suites the HTTP platform does not change (they build the package once, start no HTTP app, check
 * storage or several instances, or what a page renders and its script does): Express project only.
 * The sample runs on both (SAMPLE_PLATFORM).
 */
const ONCE = [
  '<rootDir>/test/package.e2e-spec.ts',
  // Express's own router (the module's routes as one mounted router): Fastify routes by a radix tree.
  '<rootDir>/test/express-routes.e2e-spec.ts',
  '<rootDir>/test/typeorm-adapter.e2e-spec.ts',
  '<rootDir>/test/drizzle-adapter.e2e-spec.ts',
  '<rootDir>/test/drizzle-migrations.e2e-spec.ts',
  '<rootDir>/test/prisma-adapter.e2e-spec.ts',
  '<rootDir>/test/authjs-adapters.e2e-spec.ts',
  '<rootDir>/test/authjs-adapters-bootstrap.e2e-spec.ts',
  // Runs the README's snippets on Express and on Fastify itself.
  '<rootDir>/test/readme-snippets.e2e-spec.ts',
  '<rootDir>/test/authjs-schemas.e2e-spec.ts',
  '<rootDir>/test/consumer.e2e-spec.ts',
  // The consumer templates' own tests run inside the apps test/consumer.e2e-spec.ts makes.
  '<rootDir>/test/consumer/',
  // Storage and several instances: these suites check what two apps on one database or bus do
  // (concurrent refreshes, revocations reaching another instance, adapters wired through Nest), which
  // the HTTP platform under them does not change; every route they call also runs on Fastify in its
  // own suite (native-apps, service-tokens, sessions, credentials, oauth).
  '<rootDir>/test/drizzle-nest.e2e-spec.ts',
  '<rootDir>/test/prisma-nest.e2e-spec.ts',
  '<rootDir>/test/revocation-bus.e2e-spec.ts',
  '<rootDir>/test/service-tokens-storage.e2e-spec.ts',
  '<rootDir>/test/native-apps-storage.e2e-spec.ts',
  // The design walks (every page state in light and dark, desktop and phone: axe, names, screenshots)
  // check what the page renders, and the Chromium suites of what the pages' own script does (errors
  // in the failed form, busy buttons, identifier-first steps, the account page's passkey dialogs):
  // no platform changes either. The requests behind those pages run on both platforms in the HTTP
  // suites (credentials, email, two-factor, account-api, webauthn), and a browser posting the forms
  // without JavaScript does too (two-factor-browser, api-keys-page, sample).
  '<rootDir>/test/signin-design.e2e-spec.ts',
  '<rootDir>/test/account-page-design.e2e-spec.ts',
  '<rootDir>/test/pages-design.e2e-spec.ts',
  '<rootDir>/test/signin-experience.e2e-spec.ts',
  '<rootDir>/test/identifier-first.e2e-spec.ts',
  '<rootDir>/test/account-page.e2e-spec.ts',
  '<rootDir>/test/page-weights.e2e-spec.ts',
];

/**
 * Three projects: unit specs, and the e2e suites on each HTTP platform (`AUTH_TEST_PLATFORM`, set by
 * the project's setup file and read by `createTestApp`). Run one with `--selectProjects e2e-fastify`.
 * @type {import('jest').Config}
 */
export default {
  // One worker more than the machine has cores. An e2e suite spends about a third of its time waiting
  // (on a database, Chromium, an SMTP or OpenID server, a token's expiry): with one worker a core, a
  // whole run on 2 cores left them idle 31 % of the time (vmstat, every 5 s) and took 555 s; with
  // three workers, 7 % idle and 473 s (AMD EPYC, 2026-11-29). At most five: each suite opens its own
  // database connections and Chromium, which a many-core machine's local servers would otherwise ration.
  maxWorkers: Math.min(availableParallelism() + 1, 5),
  // A worker keeps about 50 MB of every e2e suite it ran (module registries of Nest, TypeORM and the
  // rest that jest's ESM loader does not let go: 14 suites in one process took it from 215 to 915 MB
  // RSS). Left alone, a worker of a whole run nears V8's heap limit (4.3 GB here) and spends its time
  // in full collections: late in a run, suites that take 3 s alone took 25. Recycled when its heap
  // passes this after a suite, a worker costs a restart (under a second) instead.
  workerIdleMemoryLimit: '700MB',
  testTimeout: 60000,
  projects: [
    {
      ...common,
      displayName: 'unit',
      roots: ['<rootDir>/lib', '<rootDir>/test'],
      testMatch: ['**/*.spec.ts'],
      setupFiles: ['<rootDir>/test/setup/reflect.ts'],
      testTimeout: 60000,
    },
    {
      ...common,
      displayName: 'e2e-express',
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.e2e-spec.ts'],
      // Fastify's own suite builds Fastify apps whatever the project.
      testPathIgnorePatterns: ['<rootDir>/test/fastify.e2e-spec.ts', '<rootDir>/test/consumer/'],
      setupFiles: ['<rootDir>/test/setup/reflect.ts', '<rootDir>/test/setup/platform-express.ts'],
      testTimeout: 60000,
    },
    {
      ...common,
      displayName: 'e2e-fastify',
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.e2e-spec.ts'],
      testPathIgnorePatterns: ONCE,
      setupFiles: ['<rootDir>/test/setup/reflect.ts', '<rootDir>/test/setup/platform-fastify.ts'],
      testTimeout: 60000,
    },
  ],
};
