import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { README_PATH, readmePromises, readmeSnippet, readmeSnippets } from './setup/readme.js';

const TEXT = [
  '# Doc',
  '<!-- snippet: first -->',
  '',
  '```ts',
  'const a = 1;',
  '```',
  'A promise. <!-- promise: sessions.rotate --> and <!-- promise: other -->',
  '<!-- snippet: second -->',
  '```bash',
  'npm test',
  '```',
].join('\n');

describe('README markers', () => {
  it('extracts marked code blocks with their fence language and line', () => {
    expect(readmeSnippets(TEXT)).toEqual([
      { name: 'first', lang: 'ts', code: 'const a = 1;\n', line: 2, file: 'README.md' },
      { name: 'second', lang: 'bash', code: 'npm test\n', line: 8, file: 'README.md' },
    ]);
  });

  it('names the known snippets when one is missing', () => {
    expect(() => readmeSnippet('third', TEXT)).toThrow(
      'README.md and docs/ have no snippet "third" (they have: first, second)',
    );
  });

  it('refuses a marker without a block and a repeated name', () => {
    expect(() => readmeSnippets('<!-- snippet: a -->\ntext\n')).toThrow('is not followed by a code block');
    expect(() => readmeSnippets('<!-- snippet: a -->\n```ts\nx\n```\n<!-- snippet: a -->\n```ts\ny\n```\n')).toThrow(
      'is marked twice',
    );
  });

  it('lists promise markers with their lines', () => {
    expect(readmePromises(TEXT)).toEqual([
      { id: 'sessions.rotate', line: 7, file: 'README.md' },
      { id: 'other', line: 7, file: 'README.md' },
    ]);
  });

  it('reads the real README without error', () => {
    expect(Array.isArray(readmeSnippets())).toBe(true);
  });

  it('names no file the package lacks in the parts an app developer reads (before "## Development")', () => {
    // The package ships dist/, README, CHANGELOG and LICENSE: a path into the repository's lib/,
    // test/, sample/, scripts/ or bench/ leads a reader of the installed package nowhere.
    const forUsers = readFileSync(README_PATH, 'utf8').split('\n## Development\n')[0]!;
    const named = forUsers
      .split('\n')
      .flatMap((line, i) =>
        [...line.matchAll(/`\.?\/?((?:lib|test|sample|scripts|bench)\/[^`]*)`/g)].map((m) => `${i + 1}: ${m[1]}`),
      );
    expect(named).toEqual([]);
  });
});
