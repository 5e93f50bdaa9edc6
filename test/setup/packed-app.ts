import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The repository's root. */
export const REPO_ROOT = resolve(import.meta.dirname ?? '.', '../..');

export interface PackedApp {
  /** The throwaway app's folder (outside the repository). */
  dir: string;
  /** The files `npm pack` put in the package. */
  files: string[];
}

/**
 * The package as a user gets it: `npm run build` + `npm pack`, unpacked into a throwaway ESM app
 * outside the repository (`node_modules/nestjs-auth`), imported by name through its `exports` map.
 * The app's other dependencies (Nest, TypeORM, ...) are linked from this repository's install.
 *
 * `pack: false` compiles the library straight into the app's `node_modules/nestjs-auth` (what
 * `npm pack` ships: `dist` and `package.json`) and leaves the repository's `dist` alone, so it can
 * run next to a suite that packs.
 */
export function packedApp(prefix: string, { pack = true }: { pack?: boolean } = {}): PackedApp {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const modules = join(dir, 'node_modules');
  const target = join(modules, 'nestjs-auth');
  mkdirSync(target, { recursive: true });
  let files: string[] = [];
  if (pack) {
    execFileSync('npm', ['run', 'build'], { cwd: REPO_ROOT, stdio: 'pipe' });
    const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dir], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    }).toString();
    const packed = JSON.parse(out)[0] as { filename: string; files: Array<{ path: string }> };
    execFileSync('tar', ['-xzf', join(dir, packed.filename), '-C', target, '--strip-components=1']);
    files = packed.files.map((f) => f.path);
  } else {
    const tsc = join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
    execFileSync('node', [tsc, '-p', 'tsconfig.build.json', '--outDir', join(target, 'dist')], {
      cwd: REPO_ROOT,
      stdio: 'pipe',
    });
    // The rest of `npm run build`: one file per entry, plus shared chunks.
    execFileSync('node', [join(REPO_ROOT, 'scripts/bundle-dist.mjs'), join(target, 'dist')], {
      cwd: REPO_ROOT,
      stdio: 'pipe',
    });
    copyFileSync(join(REPO_ROOT, 'package.json'), join(target, 'package.json'));
  }
  for (const entry of readdirSync(join(REPO_ROOT, 'node_modules'))) {
    if (entry === '.bin' || entry === 'nestjs-auth' || entry.startsWith('.')) continue;
    const target = join(modules, entry);
    if (!existsSync(target)) symlinkSync(join(REPO_ROOT, 'node_modules', entry), target);
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module', private: true }));
  return { dir, files };
}
