#!/usr/bin/env node
/**
 * Every option can be found from the docs site's search box (`npm run docs:build` runs this after
 * VitePress): loads the local search index the build wrote (docs/.vitepress/dist), searches it as the
 * search box does (same fields, fuzziness, prefix and boosts, the site's own `boostDocument`), and
 * fails for an option whose name finds no guide page among the first results, only the generated
 * API reference or nothing. The options are the ones docs/reference/options.md lists (first column of
 * its tables), so an option added there is checked too.
 *
 * Usage: node scripts/check-docs-search.mjs [--dist DIR] [--options FILE] [--top N]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import MiniSearch from 'minisearch';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const dist = resolve(option('--dist', join(root, 'docs/.vitepress/dist')));
const optionsPage = resolve(option('--options', join(root, 'docs/reference/options.md')));
const top = Number(option('--top', '8'));

// The index VitePress wrote: a module holding the MiniSearch JSON as one string literal.
const chunks = join(dist, 'assets', 'chunks');
const file = readdirSync(chunks).find((name) => name.startsWith('@localSearchIndex'));
if (!file) {
  console.error(`${chunks} has no local search index: build the site first (npm run docs:build).`);
  process.exit(1);
}
const source = readFileSync(join(chunks, file), 'utf8');
const literal = /^const \w+=('(?:[^'\\]|\\.)*')/.exec(source)?.[1];
if (!literal) {
  console.error(`${file}: not the shape this check reads (const e='{...}'); VitePress changed its index format.`);
  process.exit(1);
}
const json = new Function(`return ${literal};`)();
const index = MiniSearch.loadJSON(json, {
  fields: ['title', 'titles', 'text'],
  storeFields: ['title', 'titles'],
  // As the site's search box (VitePress's defaults, and the site config's boostDocument).
  searchOptions: {
    fuzzy: 0.2,
    prefix: true,
    boost: { title: 4, text: 2, titles: 1 },
    boostDocument: (id) => (id.startsWith('/api/') ? 0.35 : 1),
  },
});

// The options: the first column of every table of the options reference (`session.cacheTtl`, `policy`).
// A table under a heading that names an option (### `twoFactor`) lists that option's members.
const names = new Set();
let parent = '';
for (const line of readFileSync(optionsPage, 'utf8').split('\n')) {
  const heading = /^#{2,3} (.*)$/.exec(line)?.[1];
  if (heading !== undefined) parent = /^`([\w.]+)`$/.exec(heading)?.[1] ?? '';
  const cell = /^\| `([\w.]+)`/.exec(line)?.[1];
  if (cell) names.add(parent ? `${parent}.${cell}` : cell);
}
if (names.size < 40) {
  console.error(`${optionsPage} lists ${names.size} options: fewer than expected, the table format changed?`);
  process.exit(1);
}

const problems = [];
for (const name of names) {
  // What a reader types: the option as the options page writes it (`session.cacheTtl`).
  const term = name;
  const results = index.search(term).slice(0, top);
  if (!results.some((result) => !String(result.id).startsWith('/api/')))
    problems.push(
      `${name}: searching "${term}" finds ${results.length ? `only the API reference (${results[0].id})` : 'nothing'} in the first ${top} results`,
    );
}
if (problems.length > 0) {
  console.error(`${problems.length} options the search box does not find in a guide:\n${problems.join('\n')}`);
  process.exit(1);
}
console.log(`docs search: each of ${names.size} options finds a guide page in the first ${top} results`);
