// `import 'nestjs-auth'` must not load `oauth4webapi` (one large module, milliseconds at start-up):
// only OAuth/OIDC flows need it (discovery, the authorization redirect, the callback, token exchange
// and refresh), and they load it through loadOAuth4WebApi(). As util/jose.spec.ts does for jose,
// this holds the rule on the sources: only util/oauth4webapi.ts imports it as a value, dynamically;
// `import type` is allowed. The startup bench's module hook (bench/startup/) shows the same on dist/.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { loadsOutside, packageLoads } from './fixtures/lazy-import.fixture.js';
import { loadedOAuth4WebApi, loadOAuth4WebApi } from './oauth4webapi.js';

const LIB = fileURLToPath(new URL('..', import.meta.url));
const LOADER = 'util/oauth4webapi.ts';

describe('oauth4webapi is loaded lazily', () => {
  it('finds value imports of oauth4webapi, and only those (the check itself)', () => {
    const kinds = (text: string) => packageLoads('oauth4webapi', 'x.ts', text).map((f) => f.kind);
    expect(kinds(`import * as o from 'oauth4webapi';`)).toEqual(['static']);
    expect(kinds(`import { type Client } from 'oauth4webapi';`)).toEqual(['static']);
    expect(kinds(`export { ResponseBodyError } from "oauth4webapi";`)).toEqual(['static']);
    expect(kinds(`const o = await import('oauth4webapi');`)).toEqual(['dynamic']);
    expect(kinds(`import type * as o from 'oauth4webapi';\ntype O = typeof import('oauth4webapi');`)).toEqual([]);
    expect(kinds(`import { x } from 'oauth4webapi-like'; // from 'oauth4webapi'`)).toEqual([]);
  });

  it('no file of lib/ imports oauth4webapi but util/oauth4webapi.ts, and that one only with import()', () => {
    expect(loadsOutside(LIB, 'oauth4webapi', LOADER)).toEqual([]);
    expect(packageLoads('oauth4webapi', LOADER, readFileSync(join(LIB, LOADER), 'utf8'))).toHaveLength(1);
  });

  it('loadOAuth4WebApi loads oauth4webapi once; loadedOAuth4WebApi has it only from then on', async () => {
    expect(loadedOAuth4WebApi()).toBeUndefined();
    const first = loadOAuth4WebApi();
    expect(loadOAuth4WebApi()).toBe(first);
    const o = await first;
    expect(typeof o.processDiscoveryResponse).toBe('function');
    expect(o).toBe(await import('oauth4webapi'));
    expect(loadedOAuth4WebApi()).toBe(o);
  });
});
