/**
 * Reads the marked parts of the documentation (README.md and the pages of the docs site under
 * docs/), so tests hold what it says:
 * - a code block right after `<!-- snippet: NAME -->` is a snippet: tests compile and run it as it is
 *   written (a broken snippet fails CI); names are unique across README and docs;
 * - a code block right after `<!-- fragment -->` is a piece that does not compile alone;
 * - `<!-- promise: ID -->` next to a statement marks a promise: `scripts/readme-promises.mjs` fails
 *   when no test names the ID (`promise: ID` in a test title or comment).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));
export const README_PATH = join(REPO, 'README.md');
export const DOCS_PATH = join(REPO, 'docs');

/** Folders of docs/ that hold no written page: VitePress's own, and the generated API reference. */
const NOT_WRITTEN = new Set(['.vitepress', 'api', 'node_modules']);

/** The written documentation, README first, then every page of docs/ (paths relative to the repository). */
export function docFiles(): string[] {
  const pages = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true })
      .sort((a, b) => a.name.localeCompare(b.name))
      .flatMap((entry) => {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) return NOT_WRITTEN.has(entry.name) ? [] : pages(path);
        return entry.name.endsWith('.md') ? [path] : [];
      });
  return [README_PATH, ...pages(DOCS_PATH)].map((path) => relative(REPO, path));
}

export interface ReadmeSnippet {
  /** The marker's name: unique in README and docs. */
  readonly name: string;
  /** The fence's info string (`ts`, `bash`, ...). */
  readonly lang: string;
  readonly code: string;
  /** 1-based line of the marker, for messages. */
  readonly line: number;
  /** The file it is in, relative to the repository (`README.md`, `docs/start/index.md`). */
  readonly file: string;
}

const SNIPPET = /^<!--\s*snippet:\s*([\w.-]+)\s*-->\s*$/;
const FRAGMENT = /^<!--\s*fragment\s*-->\s*$/;
const FENCE = /^```(\w*)(?:\s.*)?$/;

/** A fenced code block of a page, with the marker before it (if any). */
export interface DocCodeBlock {
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly lang: string;
  readonly marker: { kind: 'snippet'; name: string } | { kind: 'fragment' } | null;
}

/** Every fenced code block of `text` (blocks inside a longer fence are not blocks). */
export function codeBlocks(text: string, file = 'README.md'): DocCodeBlock[] {
  const lines = text.split('\n');
  const blocks: DocCodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})(\w*)/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[2]!;
    let end = i + 1;
    while (end < lines.length && !new RegExp(`^\\s*${fence[0]}{${fence.length},}\\s*$`).test(lines[end]!)) end++;
    let before = i - 1;
    while (before >= 0 && lines[before]!.trim() === '') before--;
    const previous = (lines[before] ?? '').trim();
    const snippet = SNIPPET.exec(previous);
    const marker = snippet
      ? ({ kind: 'snippet', name: snippet[1]! } as const)
      : FRAGMENT.test(previous)
        ? ({ kind: 'fragment' } as const)
        : null;
    blocks.push({ file, line: i + 1, lang: open[3] ?? '', marker });
    i = end;
  }
  return blocks;
}

function snippetsOf(text: string, file: string): ReadmeSnippet[] {
  const lines = text.split('\n');
  const snippets: ReadmeSnippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    const marker = SNIPPET.exec(lines[i]!);
    if (!marker) continue;
    const name = marker[1]!;
    let start = i + 1;
    while (start < lines.length && lines[start]!.trim() === '') start++;
    const open = FENCE.exec(lines[start] ?? '');
    if (!open) throw new Error(`${file}:${i + 1}: snippet "${name}" is not followed by a code block`);
    const end = lines.findIndex((line, index) => index > start && line.trim() === '```');
    if (end < 0) throw new Error(`${file}:${i + 1}: snippet "${name}" has no closing fence`);
    snippets.push({
      name,
      lang: open[1] ?? '',
      code: lines.slice(start + 1, end).join('\n') + '\n',
      line: i + 1,
      file,
    });
  }
  return snippets;
}

/**
 * Every marked snippet of README and docs (or of `text`), in order; throws on a marker without a
 * block or a name marked twice (in one file or across files).
 */
export function readmeSnippets(text?: string): ReadmeSnippet[] {
  const all =
    text === undefined
      ? docFiles().flatMap((file) => snippetsOf(readFileSync(join(REPO, file), 'utf8'), file))
      : snippetsOf(text, 'README.md');
  const seen = new Map<string, ReadmeSnippet>();
  for (const snippet of all) {
    const first = seen.get(snippet.name);
    if (first)
      throw new Error(
        `${snippet.file}:${snippet.line}: snippet "${snippet.name}" is marked twice (first at ${first.file}:${first.line})`,
      );
    seen.set(snippet.name, snippet);
  }
  return all;
}

/** One snippet by name; throws naming the known ones when it is missing. */
export function readmeSnippet(name: string, text?: string): ReadmeSnippet {
  const all = readmeSnippets(text);
  const found = all.find((snippet) => snippet.name === name);
  if (!found)
    throw new Error(`README.md and docs/ have no snippet "${name}" (they have: ${all.map((s) => s.name).join(', ')})`);
  return found;
}

const PROMISE = /<!--\s*promise:\s*([\w.-]+)\s*-->/g;

/** The IDs of every `<!-- promise: ID -->` marker of README and docs (or of `text`), with their files and lines. */
export function readmePromises(text?: string): { id: string; line: number; file: string }[] {
  const sources =
    text === undefined
      ? docFiles().map((file) => ({ file, text: readFileSync(join(REPO, file), 'utf8') }))
      : [{ file: 'README.md', text }];
  const found: { id: string; line: number; file: string }[] = [];
  for (const source of sources)
    source.text.split('\n').forEach((line, index) => {
      for (const match of line.matchAll(PROMISE)) found.push({ id: match[1]!, line: index + 1, file: source.file });
    });
  return found;
}
