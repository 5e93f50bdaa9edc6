import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from '@jest/globals';
import { readmePromises } from './setup/readme.js';

const SCRIPT = fileURLToPath(new URL('../scripts/readme-promises.mjs', import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT, ...args], (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

// Built from parts so this file names no promise itself.
const KEY = 'prom' + 'ise:';
const marker = (id: string): string => `<!-- ${KEY} ${id} -->`;

describe('scripts/readme-promises.mjs (npm run test:promises)', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  async function fixture(readme: string, files: Record<string, string>): Promise<string> {
    dir = await mkdtemp(join(tmpdir(), 'readme-promises-'));
    await writeFile(join(dir, 'README.md'), readme);
    for (const [path, text] of Object.entries(files)) {
      await mkdir(join(dir, path, '..'), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    return dir;
  }

  it('every promise the real README marks is named by a test', async () => {
    const result = await run();
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    // The script reads the markers readmePromises() reads.
    const markers = readmePromises();
    expect(markers.length).toBeGreaterThan(0);
    expect(result.stdout).toContain(`\n${markers.length} promise markers (`);
    expect(result.stdout).toContain(' 0 problems');
  });

  it('lists each marker with the tests that name it', async () => {
    const root = await fixture(`# Doc\nSessions rotate. ${marker('sessions.rotate')}\n`, {
      'test/a.e2e-spec.ts': `it('rotates (${KEY} sessions.rotate)', () => {});\n`,
      'lib/x/b.spec.ts': `// ${KEY} sessions.rotate\n`,
    });
    const result = await run('--root', root);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('README.md:2 sessions.rotate\n    lib/x/b.spec.ts:1\n    test/a.e2e-spec.ts:1\n');
    expect(result.stdout).toContain('1 promise markers (1 promises), 0 problems');
  });

  it('fails on a promise no test names, naming its line', async () => {
    const root = await fixture(`# Doc\n\nA. ${marker('a.held')}\nB. ${marker('a.orphan')}\n`, {
      'test/a.spec.ts': `it('holds (${KEY} a.held)', () => {});\n`,
      // Not a spec file: does not count.
      'test/setup/helper.ts': `// ${KEY} a.orphan\n`,
      // A README-style marker inside a test (a fixture) is not a reference.
      'test/b.spec.ts': `const text = '${marker('a.orphan')}';\n`,
    });
    const result = await run('--root', root);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('README.md:4: promise "a.orphan" is named by no test');
    expect(result.stderr).not.toContain('"a.held"');
  });

  it('takes only dotted lower-case ids: code such as `promise: Promise<T>` is no reference, a bare README id is refused', async () => {
    const root = await fixture(`# Doc\nA. ${marker('a.real')}\nB. ${marker('Bare')}\n`, {
      'test/a.spec.ts': `it('a (${KEY} a.real)', () => {});\nconst x = { ${KEY} Promise.resolve(), ${KEY} pending };\n`,
    });
    const result = await run('--root', root);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('README.md:3: promise "Bare" is not an `area.name` id');
    expect(result.stderr).not.toContain('Promise.resolve');
    expect(result.stderr).not.toContain('"pending"');
  });

  it('fails on a test naming a promise neither the README nor the docs mark', async () => {
    const root = await fixture(`# Doc\nA. ${marker('a.real')}\n`, {
      'test/a.spec.ts': `it('a (${KEY} a.real)', () => {});\nit('b (${KEY} a.typo)', () => {});\n`,
    });
    const result = await run('--root', root);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'test/a.spec.ts:2: names promise "a.typo", which neither README.md nor docs/ marks',
    );
  });
});
