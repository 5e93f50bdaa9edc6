import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packedApp } from './setup/packed-app.js';

/**
 * The package as a user gets it: `npm run build` + `npm pack`, unpacked into a throwaway app
 * outside the repository, imported by name through its `exports` map.
 */
describe('the packed package', () => {
  let app: string;
  let files: string[];

  beforeAll(() => {
    ({ dir: app, files } = packedApp('nestjs-auth-consumer-'));
  }, 180_000);

  afterAll(() => {
    if (app) rmSync(app, { recursive: true, force: true });
  });

  it('ships only dist, README, CHANGELOG and LICENSE, with type declarations', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'dist/index.js',
        'dist/index.d.ts',
        'README.md',
        'CHANGELOG.md',
        'LICENSE',
        'package.json',
      ]),
    );
    expect(files.filter((f) => !/^(dist\/|README\.md$|CHANGELOG\.md$|LICENSE$|package\.json$)/.test(f))).toEqual([]);
    expect(files.some((f) => f.endsWith('.spec.js'))).toBe(false);
  });

  it('is importable by name from an app outside the repository, and starts', () => {
    writeFileSync(
      join(app, 'main.mjs'),
      `import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AuthModule, AuthGuard, Adapter } from 'nestjs-auth';
class AppModule {}
Module({ imports: [AuthModule.forRoot({ secret: 'x'.repeat(40), providers: [] })] })(AppModule);
const app = await NestFactory.create(AppModule, { logger: false });
await app.listen(0, '127.0.0.1');
const res = await fetch('http://127.0.0.1:' + app.getHttpServer().address().port + '/auth/csrf');
console.log(JSON.stringify({ status: res.status, guard: typeof AuthGuard, adapter: typeof Adapter }));
await app.close();
`,
    );
    const out = execFileSync('node', ['main.mjs'], { cwd: app, stdio: ['ignore', 'pipe', 'pipe'] })
      .toString()
      .trim();
    expect(JSON.parse(out.split('\n').pop()!)).toEqual({ status: 200, guard: 'function', adapter: 'symbol' });
  });

  it('offers the conformance suite at nestjs-auth/testing', () => {
    // The suite registers jest tests, so it can only be imported inside jest: check the entry resolves.
    const out = execFileSync(
      'node',
      ['--input-type=module', '-e', "console.log(import.meta.resolve('nestjs-auth/testing'))"],
      {
        cwd: app,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    ).toString();
    expect(out.trim()).toMatch(/node_modules\/nestjs-auth\/dist\/adapters\/testing\/index\.js$/);
    expect(files).toContain('dist/adapters/testing/index.d.ts');
  });
});
