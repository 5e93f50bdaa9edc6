/**
 * The documentation's shape, held without building the site (the build and its link check are
 * `npm run docs:build`): every TypeScript block of README and docs is a compiled snippet or a
 * marked fragment, snippet names are unique, the landing README stays a landing page and links to
 * every guide page, and no page names a repository file a reader of the package does not have.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { codeBlocks, docFiles, README_PATH, readmeSnippets, REPO } from './setup/readme.js';

const TYPESCRIPT = new Set(['ts', 'typescript', 'tsx', 'mts']);
const read = (file: string): string => readFileSync(join(REPO, file), 'utf8');

describe('the documentation (README.md and docs/)', () => {
  it('marks every TypeScript block as a snippet CI compiles or as a fragment', () => {
    const unmarked = docFiles()
      .flatMap((file) => codeBlocks(read(file), file))
      .filter((block) => TYPESCRIPT.has(block.lang) && block.marker === null)
      .map((block) => `${block.file}:${block.line}`);
    // Each: put `<!-- snippet: NAME -->` (a whole module, compiled by test/readme-snippets.e2e-spec.ts)
    // or `<!-- fragment -->` (a piece that does not compile alone) on the line before the fence.
    expect(unmarked).toEqual([]);
  });

  it('names every snippet once across README and docs', () => {
    expect(() => readmeSnippets()).not.toThrow();
    expect(readmeSnippets().length).toBeGreaterThan(20);
  });

  it('keeps the README a landing page that links to every guide page', () => {
    const readme = readFileSync(README_PATH, 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
    const pages = docFiles().filter((file) => file.startsWith('docs/') && !file.startsWith('docs/parts/'));
    const linked = new Set([...readme.matchAll(/\]\((docs\/[^)#\s]+\.md)/g)].map((m) => m[1]));
    expect(pages.filter((page) => page !== 'docs/index.md' && !linked.has(page))).toEqual([]);
  });

  it('names no repository file a reader of the package lacks (lib/, test/, sample/, scripts/, bench/)', () => {
    // The site documents the package: a path into the repository's sources leads its reader nowhere.
    const named = docFiles()
      .filter((file) => file.startsWith('docs/'))
      .flatMap((file) =>
        read(file)
          .split('\n')
          .flatMap((line, i) =>
            [...line.matchAll(/[`(]\.?\/?((?:lib|test|sample|scripts|bench)\/[\w./-]*)/g)].map(
              (m) => `${file}:${i + 1}: ${m[1]}`,
            ),
          ),
      );
    expect(named).toEqual([]);
  });

  it('finds fenced blocks, their markers and their languages', () => {
    const text = [
      '<!-- snippet: a -->',
      '```ts',
      'x',
      '```',
      '',
      '<!-- fragment -->',
      '',
      '```typescript',
      'const y = 1;',
      '```',
      '```sh',
      'npm test',
      '```',
    ].join('\n');
    expect(codeBlocks(text, 'x.md')).toEqual([
      { file: 'x.md', line: 2, lang: 'ts', marker: { kind: 'snippet', name: 'a' } },
      { file: 'x.md', line: 8, lang: 'typescript', marker: { kind: 'fragment' } },
      { file: 'x.md', line: 11, lang: 'sh', marker: null },
    ]);
  });
});
