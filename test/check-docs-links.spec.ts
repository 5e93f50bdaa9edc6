import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from '@jest/globals';

const SCRIPT = fileURLToPath(new URL('../scripts/check-docs-links.mjs', import.meta.url));

function run(dist: string, readme: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT, '--dist', dist, '--readme', readme], (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

const page = (body: string) => `<!doctype html><html><body>${body}</body></html>`;

describe('scripts/check-docs-links.mjs (the docs build link check)', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  /** A built site: `files` are paths under dist/ with their HTML; README.md beside a docs/ folder. */
  async function site(files: Record<string, string>, readme: string, docs: string[] = []) {
    dir = await mkdtemp(join(tmpdir(), 'docs-links-'));
    const dist = join(dir, 'docs', '.vitepress', 'dist');
    for (const [path, html] of Object.entries(files)) {
      await mkdir(join(dist, path, '..'), { recursive: true });
      await writeFile(join(dist, path), page(html));
    }
    for (const doc of docs) {
      await mkdir(join(dir, doc, '..'), { recursive: true });
      await writeFile(join(dir, doc), '# Page\n');
    }
    await writeFile(join(dir, 'README.md'), readme);
    return { dist, readme: join(dir, 'README.md') };
  }

  it('passes links to pages and anchors that exist, with clean URLs, index pages and relative links', async () => {
    const s = await site(
      {
        'index.html':
          '<a href="/guide/a#setup">a</a> <a href="/guide/">guide</a> <a href="https://example.com/#x">out</a>',
        'guide/index.html': '<h1 id="guide">Guide</h1><a href="./a">a</a> <a href="#guide">self</a>',
        'guide/a.html': '<h2 id="setup">Set-up</h2><pre><a href="/in-a-code-block">not a link</a></pre>',
      },
      '[A](docs/guide/a.md) and [out](https://example.com)\n',
      ['docs/guide/a.md'],
    );
    const result = await run(s.dist, s.readme);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('fails on a missing page, a missing anchor, and a README link to a missing file, naming each', async () => {
    const s = await site(
      {
        'index.html': '<a href="/guide/a#nowhere">a</a> <a href="/guide/gone">gone</a>',
        'guide/a.html': '<h2 id="setup">Set-up</h2>',
      },
      '[Gone](docs/guide/gone.md)\n',
    );
    const result = await run(s.dist, s.readme);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('/index.html: /guide/a#nowhere (no element with id "nowhere" on guide/a.html)');
    expect(result.stderr).toContain('/index.html: /guide/gone (no such page)');
    expect(result.stderr).toContain('README.md: docs/guide/gone.md (no such file)');
  });
});
