// What the sign-in page's Chromium suites share (test/signin-experience.e2e-spec.ts and
// test/identifier-first.e2e-spec.ts): the app they walk, axe, and helpers that read the page.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { expect } from '@jest/globals';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { Page } from 'playwright-core';
import { hashPassword, verifyPassword } from '../../lib/methods/credentials/password.js';
import { Credentials } from '../../lib/methods/credentials/credentials.provider.js';
import { Email } from '../../lib/methods/email/email.provider.js';
import { createTestApp, TEST_PLATFORM, type TestApp } from './app.js';
import { createDatabase, dropDatabase, type DatabaseTarget } from './databases.js';
import { startSmtpServer } from './smtp.js';

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'];
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };
export const PASSWORD = 'correct horse battery staple';
const AXE_SOURCE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** The folder of a suite's screenshots: test-output/<name>-<platform>/. */
export function shotsDir(name: string): string {
  const dir = join(process.cwd(), 'test-output', `${name}-${TEST_PLATFORM}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * An app with magic links (to a mail server that is gone: the email sign-in fails for real with
 * EmailSignin) and a password for ada@example.test: two methods that need an address, so the
 * sign-in page is identifier-first.
 */
export async function startSignInApp(
  target: DatabaseTarget,
  name: string,
): Promise<{ t: TestApp; close(): Promise<void> }> {
  const hash = await hashPassword(PASSWORD);
  const down = await startSmtpServer();
  await down.close();
  const db = await createDatabase(target, name);
  const t = await createTestApp({
    imports: [TypeOrmModule.forRoot({ ...db.options, autoLoadEntities: true, synchronize: true })],
    auth: {
      session: { strategy: 'jwt' },
      logger: { error: () => undefined, warn: () => undefined },
      providers: [
        Email({ server: down.url, from: 'auth@example.test' }),
        Credentials({
          name: 'Password',
          credentials: {
            email: { label: 'Email address', type: 'email', required: true },
            password: { label: 'Password', type: 'password', required: true },
          },
          async authorize(credentials) {
            const ok = await verifyPassword(String(credentials.password ?? ''), hash);
            return ok && credentials.email === 'ada@example.test' ? { id: 'ada', email: 'ada@example.test' } : null;
          },
        }),
      ],
    },
  });
  return {
    t,
    close: async () => {
      await t.close();
      await dropDatabase(db);
    },
  };
}

/** axe's WCAG 2 A/AA rules on the page as it is now: the violations' ids and targets. */
export async function axe(page: Page): Promise<string[]> {
  // The page's CSP refuses inline scripts: evaluate the source (DevTools is not bound by it).
  await page.evaluate(readFileSync(AXE_SOURCE, 'utf8'));
  return page.evaluate(async () => {
    const result = await (
      window as unknown as {
        axe: {
          run(
            ctx: Document,
            opts: object,
          ): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown[] }> }> }>;
        };
      }
    ).axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
  });
}

/** axe on a desktop and on a phone, with a screenshot of each in `dir`. */
export async function checkState(page: Page, dir: string, name: string): Promise<void> {
  for (const [size, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    await page.setViewportSize(viewport);
    expect({ state: name, size, violations: await axe(page) }).toEqual({ state: name, size, violations: [] });
    await page.screenshot({ path: join(dir, `${name}-${size}.png`), fullPage: true });
  }
  await page.setViewportSize(DESKTOP);
}

/**
 * What the focused element is: its name attribute and whether it is marked invalid and described.
 * The browser applies `autofocus` when it next renders, which can come after `load` on a busy
 * machine: wait for a focused element (up to 5 s; then `BODY` is the answer).
 */
export async function focused(page: Page) {
  await page
    .waitForFunction(() => document.activeElement !== null && document.activeElement !== document.body, undefined, {
      timeout: 5000,
    })
    .catch(() => undefined);
  return page.evaluate(() => {
    const el = document.activeElement as HTMLInputElement | null;
    const describedBy = el?.getAttribute('aria-describedby');
    return {
      name: el?.getAttribute('name') ?? el?.tagName,
      invalid: el?.getAttribute('aria-invalid'),
      description: describedBy ? document.getElementById(describedBy)?.textContent : undefined,
    };
  });
}

/** Step 1 of identifier-first: types the address, presses Continue, lands on step 2. */
export async function toMethods(page: Page, email: string): Promise<void> {
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL((u) => u.searchParams.get('step') === 'methods');
}

/**
 * Words of the card's text (addresses aside) that the browser split over two lines: each word's
 * range has one line box, or it was broken mid-word.
 */
export function brokenWords(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const broken: string[] = [];
    const walker = document.createTreeWalker(document.querySelector('.card')!, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      for (const m of text.matchAll(/\S+/g)) {
        if (m[0].includes('@')) continue;
        const range = document.createRange();
        range.setStart(node, m.index!);
        range.setEnd(node, m.index! + m[0].length);
        const tops = new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top)));
        if (tops.size > 1) broken.push(m[0]);
      }
    }
    return broken;
  });
}
