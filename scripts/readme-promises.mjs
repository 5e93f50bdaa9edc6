#!/usr/bin/env node
/**
 * README promises and the tests that hold them (`npm run test:promises`, run by `npm test`).
 *
 * A statement of README.md marked `<!-- promise: ID -->` is a promise; a test holds it when a test
 * title or comment in a spec file (`*.spec.ts`, `*.e2e-spec.ts` under `lib/` and `test/`) contains
 * `promise: ID`. Lists every marker with the tests naming it, and exits 1 when a promise has no test,
 * or a test names a promise the README does not make (a typo, or a promise the README dropped).
 *
 * Usage: node scripts/readme-promises.mjs [--quiet] [--root DIR]
 *   --root DIR  read DIR/README.md and DIR/lib, DIR/test instead of the repository's (for its own tests)
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

function specFiles(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : specFiles(path);
    return SPEC_FILE.test(entry.name) ? [path] : [];
  });
}

const promises = [];
readFileSync(join(root, 'README.md'), 'utf8')
  .split('\n')
  .forEach((line, index) => {
    for (const match of line.matchAll(README_MARKER)) promises.push({ id: match[1], line: index + 1 });
  });

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
for (const { id, line } of promises) {
  if (!ID.test(id))
    problems.push(`README.md:${line}: promise "${id}" is not an \`area.name\` id (lower-case, with a dot)`);
  const tests = references.get(id) ?? [];
  if (tests.length === 0) problems.push(`README.md:${line}: promise "${id}" is named by no test`);
  else if (!quiet) console.log(`README.md:${line} ${id}\n    ${tests.join('\n    ')}`);
}
for (const [id, tests] of references) {
  if (!known.has(id)) problems.push(`${tests.join(', ')}: names promise "${id}", which README.md does not mark`);
}

if (!quiet) console.log(`${promises.length} promise markers (${known.size} promises), ${problems.length} problems`);
if (problems.length > 0) {
  console.error(problems.join('\n'));
  console.error('Each README promise needs a test whose title or a comment says `promise: ID`.');
  process.exit(1);
}
