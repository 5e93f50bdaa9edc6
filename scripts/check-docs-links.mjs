#!/usr/bin/env node
/**
 * The docs site's link check (`npm run docs:build` runs it after VitePress): every internal link of
 * the built site (docs/.vitepress/dist) must reach a page, and its `#anchor` an element of that page
 * with that id; every relative link of README.md must reach a file of the repository, and a link into
 * docs/ a page the site built. VitePress itself fails the build on a link to a page that does not
 * exist; it does not look at anchors, nor at README.md.
 *
 * Usage: node scripts/check-docs-links.mjs [--dist DIR] [--readme FILE]
 * Exits 1 listing each broken link as `page: href (why)`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const dist = resolve(option('--dist', join(root, 'docs/.vitepress/dist')));
const readme = resolve(option('--readme', join(root, 'README.md')));

if (!existsSync(join(dist, 'index.html'))) {
  console.error(
    `${relative(root, dist)} has no built site: run \`npm run docs:build\` (or vitepress build docs) first.`,
  );
  process.exit(1);
}

function htmlFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'assets' ? [] : htmlFiles(path);
    return entry.name.endsWith('.html') ? [path] : [];
  });
}

/** Built page → the ids of its elements. */
const ids = new Map();
for (const file of htmlFiles(dist)) {
  const html = readFileSync(file, 'utf8');
  ids.set(file, new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((m) => decodeEntities(m[1]))));
}

function decodeEntities(text) {
  return text
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
}

/** The built file a site path names (`/a/b`, `/a/b.html`, `/a/`), or undefined. */
function pageOf(path) {
  const clean = decodeURIComponent(path).replace(/\.html$/, '');
  const candidates = clean.endsWith('/')
    ? [join(dist, clean, 'index.html')]
    : [join(dist, `${clean}.html`), join(dist, clean, 'index.html')];
  return candidates.find((candidate) => ids.has(candidate));
}

const problems = [];
let checked = 0;
for (const [file, _] of ids) {
  const page = `/${relative(dist, file)}`;
  const html = readFileSync(file, 'utf8')
    // Code blocks show HTML as text; a link written in one is no link.
    .replace(/<pre[\s\S]*?<\/pre>/g, '');
  for (const match of html.matchAll(/<a\s[^>]*?href="([^"]*)"/g)) {
    const href = decodeEntities(match[1]);
    if (/^(?:[a-z][a-z0-9+.-]*:|\/\/)/i.test(href)) continue; // another site, mailto:, javascript:
    checked++;
    const [pathPart, anchor] = href.split('#', 2);
    let target = file;
    if (pathPart) {
      const absolute = pathPart.startsWith('/') ? pathPart : new URL(pathPart, `http://x${page}`).pathname;
      if (absolute.startsWith('/assets/')) {
        if (!existsSync(join(dist, absolute))) problems.push(`${page}: ${href} (no such asset)`);
        continue;
      }
      target = pageOf(absolute);
      if (!target) {
        problems.push(`${page}: ${href} (no such page)`);
        continue;
      }
    }
    if (anchor && !ids.get(target).has(decodeURIComponent(anchor)))
      problems.push(`${page}: ${href} (no element with id "${anchor}" on ${relative(dist, target)})`);
  }
}

// README.md: relative links to files of the repository; into docs/, to pages the site built.
const readmeText = readFileSync(readme, 'utf8');
for (const match of readmeText.matchAll(/\]\(([^)\s]+)\)/g)) {
  const href = match[1];
  if (/^(?:[a-z][a-z0-9+.-]*:|#)/i.test(href)) continue;
  checked++;
  const [path] = href.split('#', 1);
  const file = resolve(dirname(readme), path);
  if (!existsSync(file)) {
    problems.push(`README.md: ${href} (no such file)`);
    continue;
  }
  const inDocs = relative(join(dirname(readme), 'docs'), file);
  if (!inDocs.startsWith('..') && inDocs.endsWith('.md')) {
    const built = pageOf(`/${inDocs.replace(/(^|\/)index\.md$/, '$1').replace(/\.md$/, '')}`);
    if (!built) problems.push(`README.md: ${href} (the site has no page for it)`);
  }
}

if (problems.length > 0) {
  console.error(`${problems.length} broken links (of ${checked} checked):\n${problems.join('\n')}`);
  process.exit(1);
}
console.log(`docs links: ${checked} internal links checked in ${ids.size} pages and README.md, none broken`);
