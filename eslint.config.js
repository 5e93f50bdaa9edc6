// ESLint flat config: typescript-eslint's recommended rules, plus the type-aware rules that catch
// lost promises. Formatting is Prettier's job: eslint-config-prettier turns off the rules that clash.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

const TESTS = ['**/*.spec.ts', 'test/**'];

// What ships: the files of tsconfig.build.json, which is also the program the type-aware rules build.
// Keep the two lists in step (a file here that the tsconfig leaves out fails the lint loudly).
const SHIPPED = { files: ['lib/**/*.ts'], ignores: ['lib/**/*.spec.ts', 'lib/**/*.test-d.ts', 'lib/**/fixtures/**'] };

// `npm run lint` uses ESLint's cache, which keys a file's result on its own content and its config
// only; a type-aware result also depends on every file the program holds (make a function async and
// a caller elsewhere now floats a promise). So the shipped files' config carries a hash of everything
// that program reads: any change in lib/, the tsconfigs or the lockfile relints all of them, while
// tests, sample and bench (single-file rules) keep their cached results.
function programKey() {
  const hash = createHash('sha256');
  const skip = /\.spec\.ts$|\.test-d\.ts$|(^|\/)fixtures\//;
  const inLib = readdirSync(join(import.meta.dirname, 'lib'), { recursive: true, encoding: 'utf8' })
    .map((file) => file.split('\\').join('/'))
    .filter((file) => !skip.test(file))
    .sort();
  for (const file of ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json', ...inLib.map((f) => `lib/${f}`)]) {
    let text;
    try {
      text = readFileSync(join(import.meta.dirname, file));
    } catch {
      continue; // a directory, or a file deleted while we read
    }
    hash.update(file).update('\0').update(text).update('\0');
  }
  return hash.digest('hex');
}

export default defineConfig(
  globalIgnores([
    'node_modules/',
    'dist/',
    'dist-*/',
    '.bench-dist/',
    'coverage/',
    'test-output/',
    'docs/.vitepress/dist/',
    'docs/.vitepress/cache/',
  ]),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: {
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
        },
      ],
      // Warn, not fail: the few `any`s left mirror NestJS (`imports: any[]`) and Auth.js
      // (`Provider<P = any>`) signatures on purpose; new ones should still be questioned.
      '@typescript-eslint/no-explicit-any': 'warn',
      // Off: `Function` is the type NestJS and TypeORM themselves use for handlers and entity
      // classes (`ExecutionContext.getHandler()`, `entities: Function[]`); narrowing it fights them.
      '@typescript-eslint/no-unsafe-function-type': 'off',
      // Off: matching control characters is the point of those patterns (rejecting or stripping
      // them from untrusted input: tokens, emails, HTML).
      'no-control-regex': 'off',
    },
  },
  {
    // Type-aware, and only on the shipped code, where a lost promise is a product bug: one program
    // over tsconfig.build.json (lib without specs), about half the memory and CPU of one over lib,
    // test, sample and bench. An explicit `project`, not `projectService`: the service would
    // open tsconfig.json, the whole-repo program, even for lib files. Only the promise rules: they
    // find real bugs, and the whole type-checked set costs more than it finds.
    ...SHIPPED,
    languageOptions: {
      parserOptions: {
        project: './tsconfig.build.json',
        tsconfigRootDir: import.meta.dirname,
        // The CLI's one-shot program reads lib files from disk; `--stdin` text (editors, hooks)
        // would be ignored for them, so that mode keeps the slower program that takes the text given.
        ...(process.argv.includes('--stdin') && { disallowAutomaticSingleRunInference: true }),
      },
    },
    settings: { programKey: programKey() },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  {
    // Off in tests: casting a fixture or a probe to `any` is how a test reaches what types hide.
    files: TESTS,
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Tests are linted without types (a program over them costs more than the rest of the lint).
    // The lost promise a test most often has is an async matcher without `await`: the test ends
    // before the assertion runs and passes. That one is visible in the syntax, so it is caught here.
    files: TESTS,
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'ExpressionStatement > CallExpression > MemberExpression.callee MemberExpression[property.name=/^(resolves|rejects)$/]',
          message: '`expect(…).resolves` / `.rejects` returns a promise: `await` it, or the test passes without it.',
        },
      ],
    },
  },
  {
    // The few Node globals the plain .js/.mjs files use (TypeScript files get theirs from @types/node).
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { console: 'readonly', process: 'readonly', URL: 'readonly' } },
  },
  prettier,
);
