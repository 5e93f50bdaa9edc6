/** What every project shares: ESM TypeScript through ts-jest. */
const common = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json', diagnostics: false }],
  },
};

/**
 * Suites that build the package once or start no HTTP app (the TypeORM adapter): Express project
 * only. The sample runs on both (SAMPLE_PLATFORM).
 */
const ONCE = [
  '<rootDir>/test/package.e2e-spec.ts',
  '<rootDir>/test/typeorm-adapter.e2e-spec.ts',
  // Runs the README's snippets on Express and on Fastify itself.
  '<rootDir>/test/readme-snippets.e2e-spec.ts',
  '<rootDir>/test/authjs-schemas.e2e-spec.ts',
  '<rootDir>/test/consumer.e2e-spec.ts',
  // The consumer templates' own tests run inside the apps test/consumer.e2e-spec.ts makes.
  '<rootDir>/test/consumer/',
];

/**
 * Three projects: unit specs, and the e2e suites on each HTTP platform (`AUTH_TEST_PLATFORM`, set by
 * the project's setup file and read by `createTestApp`). Run one with `--selectProjects e2e-fastify`.
 * @type {import('jest').Config}
 */
export default {
  // Suites start real servers (databases, an OpenID Provider, SMTP, Chromium); two cores.
  maxWorkers: 2,
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
