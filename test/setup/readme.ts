/**
 * Reads the README's marked parts, so tests hold what it says:
 * - a code block right after `<!-- snippet: NAME -->` is a snippet: tests compile and run it as it is
 *   written (a broken snippet fails CI);
 * - `<!-- promise: ID -->` next to a statement marks a promise: `scripts/readme-promises.mjs` fails
 *   when no test names the ID (`promise: ID` in a test title or comment).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const README_PATH = fileURLToPath(new URL('../../README.md', import.meta.url));

export interface ReadmeSnippet {
  /** The marker's name: unique in the README. */
  readonly name: string;
  /** The fence's info string (`ts`, `bash`, ...). */
  readonly lang: string;
  readonly code: string;
  /** 1-based line of the marker, for messages. */
  readonly line: number;
}

const SNIPPET = /^<!--\s*snippet:\s*([\w.-]+)\s*-->\s*$/;
const FENCE = /^```(\w*)\s*$/;

/** Every marked snippet of the README (or of `text`), in order; throws on a marker without a block or a repeated name. */
export function readmeSnippets(text: string = readFileSync(README_PATH, 'utf8')): ReadmeSnippet[] {
  const lines = text.split('\n');
  const snippets: ReadmeSnippet[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < lines.length; i++) {
    const marker = SNIPPET.exec(lines[i]!);
    if (!marker) continue;
    const name = marker[1]!;
    let start = i + 1;
    while (start < lines.length && lines[start]!.trim() === '') start++;
    const open = FENCE.exec(lines[start] ?? '');
    if (!open) throw new Error(`README.md:${i + 1}: snippet "${name}" is not followed by a code block`);
    const end = lines.findIndex((line, index) => index > start && line.trim() === '```');
    if (end < 0) throw new Error(`README.md:${i + 1}: snippet "${name}" has no closing fence`);
    if (seen.has(name)) throw new Error(`README.md:${i + 1}: snippet "${name}" is marked twice`);
    seen.add(name);
    snippets.push({ name, lang: open[1] ?? '', code: lines.slice(start + 1, end).join('\n') + '\n', line: i + 1 });
  }
  return snippets;
}

/** One snippet by name; throws naming the known ones when it is missing. */
export function readmeSnippet(name: string, text?: string): ReadmeSnippet {
  const all = readmeSnippets(text);
  const found = all.find((snippet) => snippet.name === name);
  if (!found) throw new Error(`README.md has no snippet "${name}" (it has: ${all.map((s) => s.name).join(', ')})`);
  return found;
}

const PROMISE = /<!--\s*promise:\s*([\w.-]+)\s*-->/g;

/** The IDs of every `<!-- promise: ID -->` marker, with their lines. */
export function readmePromises(text: string = readFileSync(README_PATH, 'utf8')): { id: string; line: number }[] {
  const found: { id: string; line: number }[] = [];
  text.split('\n').forEach((line, index) => {
    for (const match of line.matchAll(PROMISE)) found.push({ id: match[1]!, line: index + 1 });
  });
  return found;
}
