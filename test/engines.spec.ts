/**
 * `engines.node` is true: the Node.js running the tests (the one CI runs) satisfies it, and every
 * dependency and required peer installed from the lockfile supports every Node it admits. Bumping a
 * dependency to a version that needs a newer Node (as `cookie@2`, Node >= 22) fails here.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';

const root = join(import.meta.dirname, '..');
const require = createRequire(import.meta.url);
const semver = require('semver') as {
  satisfies(version: string, range: string): boolean;
  subset(sub: string, dom: string): boolean;
};

interface Manifest {
  version: string;
  engines?: { node?: string };
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}
/**
 * Packages of the tree that need a newer Node than the floor, and why that does not raise it:
 * each must be one nestjs-auth never loads (the entry fails when it is no longer needed).
 */
const NOT_LOADED: Record<string, string> = {
  'file-type':
    "@nestjs/common's dependency, imported (lazily, through load-esm) only by its FileTypeValidator for uploads",
};

const read = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Manifest;
const pkg = read(join(root, 'package.json'));
const floor = pkg.engines?.node ?? '';

/** The package's runtime dependencies and required peers, with their installed manifests, recursively. */
function runtimeTree(): Map<string, Manifest> {
  const seen = new Map<string, Manifest>();
  const required = Object.keys(pkg.peerDependencies ?? {}).filter((n) => !pkg.peerDependenciesMeta?.[n]?.optional);
  const queue = [...Object.keys(pkg.dependencies ?? {}), ...required];
  while (queue.length > 0) {
    const name = queue.shift()!;
    if (seen.has(name)) continue;
    let manifest: Manifest;
    try {
      manifest = read(join(root, 'node_modules', name, 'package.json'));
    } catch {
      continue; // nested under another package: its hoisted namesake is checked instead
    }
    seen.set(name, manifest);
    queue.push(...Object.keys(manifest.dependencies ?? {}));
  }
  return seen;
}

describe('engines.node', () => {
  it('is a range the Node.js running the tests satisfies', () => {
    expect(floor).toMatch(/^>=\d+\.\d+/);
    expect(semver.satisfies(process.version, floor)).toBe(true);
  });

  it('admits no Node that a runtime dependency does not support', () => {
    const tree = runtimeTree();
    expect(tree.size).toBeGreaterThan(5);
    const narrower = [...tree]
      .filter(([, m]) => m.engines?.node && !semver.subset(floor, m.engines.node))
      .map(([name, m]) => `${name}@${m.version} needs node ${m.engines!.node}`);
    expect(narrower.filter((line) => !(line.split('@')[0]! in NOT_LOADED))).toEqual([]);
    expect(Object.keys(NOT_LOADED).filter((name) => !narrower.some((line) => line.startsWith(`${name}@`)))).toEqual([]);
  });
});
