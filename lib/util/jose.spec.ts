// `import 'nestjs-auth'` must not load `jose` (46 module files, tens of milliseconds at start-up):
// only flows that verify an ID token, read a JWKS or import a private JWK need it, and they load it
// through loadJose(). Spawning Node on the built package would need a build per test run, so this
// holds the rule on the sources instead: no file of lib/ (specs aside) imports jose as a value, and
// only util/jose.ts imports it at all, dynamically. `import type` is erased at compile time, so it is
// allowed; `import { type X }` is not, as an import with only inline type specifiers may be kept
// for its side effects (`verbatimModuleSyntax`). `npm run build` then the startup bench's module
// hook (bench/startup/) shows the same on dist/. The checker is shared with util/oauth4webapi.spec.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { loadsOutside, packageLoads } from './fixtures/lazy-import.fixture.js';
import { loadJose } from './jose.js';

const LIB = fileURLToPath(new URL('..', import.meta.url));
const LOADER = 'util/jose.ts';

describe('jose is loaded lazily', () => {
  it('finds value imports of jose, and only those (the check itself)', () => {
    const kinds = (text: string) => packageLoads('jose', 'x.ts', text).map((f) => f.kind);
    expect(kinds(`import { compactVerify } from 'jose';`)).toEqual(['static']);
    expect(kinds(`import * as jose from "jose";`)).toEqual(['static']);
    expect(kinds(`import 'jose';`)).toEqual(['static']);
    expect(kinds(`import { type JWK } from 'jose';`)).toEqual(['static']);
    expect(kinds(`export { errors } from 'jose';`)).toEqual(['static']);
    expect(kinds(`const j = await import('jose');`)).toEqual(['dynamic']);
    expect(kinds(`const j = require('jose');`)).toEqual(['dynamic']);
    expect(kinds(`import type { JWK } from 'jose';\ntype J = typeof import('jose');`)).toEqual([]);
    expect(kinds(`import { x } from 'jose-like'; // from 'jose'`)).toEqual([]);
  });

  it('no file of lib/ imports jose but util/jose.ts, and that one only with import()', () => {
    // `nestjs-auth/verify` is an entry of its own (jose is all it is): `import 'nestjs-auth'` never loads it.
    expect(loadsOutside(LIB, 'jose', LOADER).filter((f) => !f.startsWith('verify.ts:'))).toEqual([]);
    expect(packageLoads('jose', LOADER, readFileSync(join(LIB, LOADER), 'utf8'))).toHaveLength(1);
  });

  it('loadJose loads jose once and hands out the same module', async () => {
    const first = loadJose();
    expect(loadJose()).toBe(first);
    const jose = await first;
    expect(typeof jose.compactVerify).toBe('function');
    expect(jose).toBe(await import('jose'));
  });
});
