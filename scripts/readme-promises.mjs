#!/usr/bin/env node
/**
 * Documentation promises and the tests that hold them (`npm run test:promises`, run by `npm test`).
 *
 * A statement of README.md or of a page of the docs site (every .md under docs/, but for the generated API
 * reference in docs/api) marked `<!-- promise: ID -->` is a promise; a test holds it when a test
 * title or comment in a spec file (`*.spec.ts`, `*.e2e-spec.ts` under `lib/` and `test/`) contains
 * `promise: ID`. Lists every marker with the tests naming it, and exits 1 when a promise has no test,
 * or a test names a promise the documentation does not make (a typo, or a promise it dropped).
 *
 * Usage: node scripts/readme-promises.mjs [--quiet] [--root DIR]
 *   --root DIR  read DIR/README.md, DIR/docs, DIR/lib and DIR/test instead of the repository's (for its own tests)
 *   --quiet     print only the problems
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const rootIndex = args.indexOf('--root');
const root = rootIndex >= 0 ? args[rootIndex + 1] : fileURLToPath(new URL('..', import.meta.url));
const quiet = args.includes('--quiet');

/** The README's marker: the same syntax as `readmePromises()` in test/setup/readme.ts. */
const README_MARKER = /<!--\s*promise:\s*([\w.-]+)\s*-->/g;
/**
 * A test's reference: `promise: ID` anywhere in a spec file, except inside a README-style marker (a
 * fixture). IDs are `area.name` (lower-case, at least one dot), so code such as `promise: Promise<T>`
 * or `{ promise: pending }` is never taken for one.
 */
const ID = /^[a-z][\w-]*(\.[\w-]+)+$/;
const TEST_REFERENCE = /(?<!<!--\s*)\bpromise:\s*([a-z][\w-]*(?:\.[\w-]+)+)/g;
const SPEC_FILE = /\.(e2e-)?spec\.ts$/;

/**
 * The files under `dir` whose names match `file`, sorted, without descending into the folders
 * `skip` names; none when `dir` does not exist.
 */
function filesUnder(dir, file, skip) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return skip.has(entry.name) ? [] : filesUnder(path, file, skip);
      return file.test(entry.name) ? [path] : [];
    });
}
const specFiles = (dir) => filesUnder(dir, SPEC_FILE, new Set(['node_modules']));
/** The written pages of docs/: not VitePress's folder, not the generated API reference. */
const docPages = (dir) => filesUnder(dir, /\.md$/, new Set(['.vitepress', 'api', 'node_modules']));

const promises = [];
for (const file of [join(root, 'README.md'), ...docPages(join(root, 'docs'))]) {
  const where = relative(root, file);
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, index) => {
      for (const match of line.matchAll(README_MARKER)) promises.push({ id: match[1], line: index + 1, where });
    });
}

/** @type {Map<string, string[]>} promise id → `file:line` of each test naming it */
const references = new Map();
for (const file of [...specFiles(join(root, 'lib')), ...specFiles(join(root, 'test'))].sort()) {
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, index) => {
      for (const match of line.matchAll(TEST_REFERENCE)) {
        const at = `${relative(root, file)}:${index + 1}`;
        references.set(match[1], [...(references.get(match[1]) ?? []), at]);
      }
    });
}

const problems = [];
const known = new Set(promises.map((promise) => promise.id));
for (const { id, line, where } of promises) {
  if (!ID.test(id))
    problems.push(`${where}:${line}: promise "${id}" is not an \`area.name\` id (lower-case, with a dot)`);
  const tests = references.get(id) ?? [];
  if (tests.length === 0) problems.push(`${where}:${line}: promise "${id}" is named by no test`);
  else if (!quiet) console.log(`${where}:${line} ${id}\n    ${tests.join('\n    ')}`);
}
for (const [id, tests] of references) {
  if (!known.has(id))
    problems.push(`${tests.join(', ')}: names promise "${id}", which neither README.md nor docs/ marks`);
}

if (!quiet) console.log(`${promises.length} promise markers (${known.size} promises), ${problems.length} problems`);
if (problems.length > 0) {
  console.error(problems.join('\n'));
  console.error('Each promise of README.md and docs/ needs a test whose title or a comment says `promise: ID`.');
  process.exit(1);
}
