// Build step after tsc (`npm run build`): the ~200 ES module files tsc writes to dist/ become one
// file per public entry (`.`, `./providers`, `./typeorm`, `./testing`, `./verify`, the bin) plus
// shared chunks. Each module file costs a resolve, a read, a parse and a link at import time, so
// `import 'nestjs-auth'` loading a handful of files instead of ~200 is what keeps start-up cheap
// (bench/startup.bench.mjs, bench/RESULTS.md). Shared code lands in shared chunks, so no class exists
// twice across entries; packages stay imports (the optional peers stay lazy); the maps chain back to
// lib/ with the sources inlined. The .d.ts files stay per module, for the types.
//
//   node scripts/bundle-dist.mjs [distDir]     (default: dist)
import { build } from 'esbuild';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const dist = resolve(process.argv[2] ?? 'dist');
const entries = ['index', 'providers', 'typeorm', 'drizzle', 'prisma', 'adapters/testing/index', 'verify', 'cli'];
const out = mkdtempSync(join(tmpdir(), 'nestjs-auth-bundle-'));

await build({
  entryPoints: Object.fromEntries(entries.map((name) => [name, join(dist, `${name}.js`)])),
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  outdir: out,
  chunkNames: 'chunks/[name]-[hash]',
  sourcemap: true,
  legalComments: 'none',
  // Classes keep their names: bundling renames a class whose name another module's binding takes
  // (`var AuthModule = class AuthModule2`), and Nest logs and reports classes by `name`.
  keepNames: true,
  logLevel: 'warning',
});

// tsc's per-module .js and .js.map go; the bundle's files take their place.
const removeJs = (folder) => {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) removeJs(path);
    else if (entry.name.endsWith('.js') || entry.name.endsWith('.js.map')) rmSync(path);
  }
};
removeJs(dist);
cpSync(out, dist, { recursive: true });
rmSync(out, { recursive: true, force: true });
