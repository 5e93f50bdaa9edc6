// `import 'nestjs-auth'` must not load the built-in pages (their layout, forms, provider marks and
// the passkey script): they load on the first page served, through loadRenderers(). esbuild puts a
// dynamic import in a chunk of its own only if nothing in the main graph imports the same modules
// statically, so this holds the rule on the sources: the pages/ modules that files outside pages/
// reach through static value imports are the loader and the small ones every request needs.
// `npm run build` then shows it on dist/ (the renderers chunk; test/package.e2e-spec.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import ts from 'typescript';
import { loadRenderers } from './load-renderers.js';

const LIB = fileURLToPath(new URL('..', import.meta.url));
/** The pages/ modules the rest of lib/ may load statically (transitively). */
const STATIC = ['pages/load-renderers.ts', 'pages/signin.messages.ts'];

/** The relative modules `text` imports as values: static `import`/`export … from`, and `import()`. */
function valueImports(fileName: string, text: string): Array<{ specifier: string; dynamic: boolean }> {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: Array<{ specifier: string; dynamic: boolean }> = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && !node.importClause?.isTypeOnly)
      found.push({ specifier: node.moduleSpecifier.text, dynamic: false });
    else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      !node.isTypeOnly
    )
      found.push({ specifier: node.moduleSpecifier.text, dynamic: false });
    else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    )
      found.push({ specifier: node.arguments[0].text, dynamic: true });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.filter((f) => f.specifier.startsWith('.'));
}

/** Every non-spec source of lib/, relative to lib/ with `/`, and its text. */
function sources(dir = LIB): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'fixtures') for (const [k, v] of sources(path)) files.set(k, v);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts'))
      files.set(relative(LIB, path).split('\\').join('/'), readFileSync(path, 'utf8'));
  }
  return files;
}

/** The pages/ modules that files outside pages/ load statically, directly or through other pages/ modules. */
function staticallyLoadedPages(files: Map<string, string>): string[] {
  const resolveIn = (from: string, specifier: string) =>
    normalize(join(dirname(from), specifier))
      .split('\\')
      .join('/')
      .replace(/\.js$/, '.ts');
  const reached = new Set<string>();
  const queue = [...files.keys()].filter((rel) => !rel.startsWith('pages/'));
  for (let rel = queue.shift(); rel !== undefined; rel = queue.shift()) {
    for (const ref of valueImports(rel, files.get(rel) ?? '')) {
      const target = resolveIn(rel, ref.specifier);
      if (ref.dynamic || !target.startsWith('pages/') || reached.has(target)) continue;
      reached.add(target);
      queue.push(target);
    }
  }
  return [...reached].sort();
}

describe('the built-in pages load on the first page served', () => {
  it('follows static value imports only (the check itself)', () => {
    const files = new Map([
      [
        'router/a.ts',
        `import type { X } from '../pages/page.types.js';\nimport { f } from '../pages/load-renderers.js';`,
      ],
      ['pages/load-renderers.ts', `export const load = () => import('./renderers.js');`],
      ['pages/renderers.ts', `export { g } from './signin.page.js';`],
      ['account/b.ts', `import { h } from '../pages/signin.messages.js';`],
      ['pages/signin.messages.ts', `import { e } from '../config/x.js';\nexport * from './leaf.js';`],
      ['pages/leaf.ts', ``],
    ]);
    expect(staticallyLoadedPages(files)).toEqual([
      'pages/leaf.ts',
      'pages/load-renderers.ts',
      'pages/signin.messages.ts',
    ]);
    files.set('flows/c.ts', `export { renderSignInPage } from '../pages/renderers.js';`);
    expect(staticallyLoadedPages(files)).toContain('pages/signin.page.ts');
  });

  it('no file outside pages/ loads a renderer statically, and only the loader imports the renderers', () => {
    const files = sources();
    expect(staticallyLoadedPages(files)).toEqual(STATIC);
    const importers = [...files].flatMap(([rel, text]) =>
      valueImports(rel, text)
        .filter((ref) => /(^|\/)renderers\.js$/.test(ref.specifier))
        .map((ref) => `${rel} (${ref.dynamic ? 'dynamic' : 'static'})`),
    );
    expect(importers).toEqual(['pages/load-renderers.ts (dynamic)']);
  });

  it('loadRenderers loads the renderers once and hands out the same module', async () => {
    const first = loadRenderers();
    expect(loadRenderers()).toBe(first);
    const renderers = await first;
    expect(renderers).toBe(await import('./renderers.js'));
    expect(typeof renderers.renderSignInPage).toBe('function');
  });
});
