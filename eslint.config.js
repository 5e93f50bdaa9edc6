// ESLint flat config: typescript-eslint's recommended rules, plus the type-aware rules that catch
// lost promises. Formatting is Prettier's job: eslint-config-prettier turns off the rules that clash.
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

const TESTS = ['**/*.spec.ts', 'test/**'];

export default defineConfig(
  globalIgnores(['node_modules/', 'dist/', 'dist-*/', '.bench-dist/', 'coverage/', 'test-output/']),
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
    // Type-aware: one TypeScript program over tsconfig.json (lib, test, sample, bench). Only the
    // promise rules: they find real bugs, and the whole type-checked set costs more than it finds.
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
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
    // The few Node globals the plain .js/.mjs files use (TypeScript files get theirs from @types/node).
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { console: 'readonly', process: 'readonly', URL: 'readonly' } },
  },
  prettier,
);
