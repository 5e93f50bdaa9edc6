// Build step after tsc (`npm run build`): the ~100 provider modules of dist/providers/catalog/ become
// one module, dist/providers/catalog/bundle.js, and dist/index.js re-exports the factories from it.
// Each ES module file costs a resolve, a read, a parse and a link at import time, so loading the
// catalog as one file is what keeps `import 'nestjs-auth'` cheap (bench/startup.bench.mjs).
// Imports that leave the catalog folder (the library's errors, packages) stay imports, so no class
// is duplicated; the per-file .js of the catalog are removed (their .d.ts stay, for the types).
//
//   node scripts/bundle-catalog.mjs [distDir]     (default: dist)
import { build } from 'esbuild';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

const dist = resolve(process.argv[2] ?? 'dist');
const dir = join(dist, 'providers', 'catalog');
const modules = readdirSync(dir).filter((file) => file.endsWith('.js') && file !== 'bundle.js');
const entry = modules.map((file) => `export * from './${file}';`).join('\n');

await build({
  stdin: { contents: entry, resolveDir: dir, sourcefile: 'catalog-entry.js', loader: 'js' },
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outfile: join(dir, 'bundle.js'),
  sourcemap: true,
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [
    {
      name: 'outside-the-catalog-stays-external',
      setup(b) {
        b.onResolve({ filter: /.*/ }, (args) => {
          if (args.kind === 'entry-point' || !args.importer) return undefined;
          if (!args.path.startsWith('.')) return { path: args.path, external: true };
          const target = resolve(args.resolveDir, args.path);
          if (target.startsWith(dir + sep)) return undefined;
          // bundle.js sits in the catalog folder: the same relative path still points there.
          let specifier = relative(dir, target).split(sep).join('/');
          if (!specifier.startsWith('.')) specifier = `./${specifier}`;
          return { path: specifier, external: true };
        });
      },
    },
  ],
});

for (const file of modules) {
  rmSync(join(dir, file));
  rmSync(join(dir, `${file}.map`), { force: true });
}

// Every other module of dist/ that imported a catalog file imports the bundle instead.
const rewrite = (folder) => {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      if (path !== dir) rewrite(path);
    } else if (entry.name.endsWith('.js')) {
      const text = readFileSync(path, 'utf8');
      const next = text.replace(
        /(['"])(\.{1,2}\/[^'"]*?)providers\/catalog\/[^'"/]+\.js\1/g,
        '$1$2providers/catalog/bundle.js$1',
      );
      if (next !== text) writeFileSync(path, next);
    }
  }
};
rewrite(dist);
