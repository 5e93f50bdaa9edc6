/**
 * The weight of the built-in pages (issue 41), over HTTP as a browser gets them: each page's HTML
 * and its size gzipped (`gzipSync`, the default level), and the passkey script. The README states
 * these figures in a table after `<!-- page-weights -->`; this suite fails when a measured figure
 * is more than 10% off the README's, and prints the measured table to paste in its place. The
 * passkey script is referenced only by the pages with a passkey action: the sign-in page of an app
 * with a passkey provider, the account page with passkeys on, and the two-factor challenge of a user
 * with a passkey.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import { Credentials } from '../lib/methods/credentials/credentials.provider.js';
import { Email } from '../lib/methods/email/email.provider.js';
import type { SendVerificationRequestParams } from '../lib/methods/email/email.types.js';
import { Passkey } from '../lib/methods/webauthn/webauthn.provider.js';
import { Apple } from '../lib/providers/catalog/apple.provider.js';
import { GitHub } from '../lib/providers/catalog/github.provider.js';
import { Google } from '../lib/providers/catalog/google.provider.js';
import { createTestApp, type TestApp } from './setup/app.js';
import { parseTags } from './setup/html-checks.js';
import { location, TestClient } from './setup/http-client.js';
import { README_PATH } from './setup/readme.js';
import { PASSWORD } from './setup/signin-browser.js';
import { nextCode } from './setup/totp-clock.js';
import { givePasskey } from './setup/soft-authenticator.js';

/** What a browser sends for a page. */
const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
/** The README's marker before the table. */
const MARKER = '<!-- page-weights -->';
/** How far a measured figure may be from the README's. */
const TOLERANCE = 0.1;
const SCRIPT = 'Passkey script';

interface Weight {
  bytes: number;
  gzip: number;
}

/** The POST forms of `html`, each with its inputs (values entity-decoded). */
function formsOf(html: string): Array<{ action: string; fields: Record<string, string> }> {
  return [...html.matchAll(/<form method="post" action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/g)].map((m) => ({
    action: parseTags(`<form action="${m[1]}">`)[0]!.attrs.action!,
    fields: Object.fromEntries(
      parseTags(m[2]!)
        .filter((t) => t.name === 'input' && t.attrs.name)
        .map((t) => [t.attrs.name!, t.attrs.value ?? '']),
    ),
  }));
}

/** The one form of `html` that posts to a URL ending in `path`. */
function formFor(html: string, path: string): { action: string; fields: Record<string, string> } {
  const found = formsOf(html).filter((f) => f.action.endsWith(path));
  expect({ path, forms: found.length }).toEqual({ path, forms: 1 });
  return found[0]!;
}

const kb = (n: number) => `${(n / 1000).toFixed(1)} KB`;

/** The README's table after the marker: page name → figures in bytes (from "12.3 KB"). */
function readmeWeights(readme: string): Map<string, Weight> {
  const at = readme.indexOf(MARKER);
  if (at < 0) throw new Error(`README.md has no ${MARKER} marker`);
  const rows = readme
    .slice(at + MARKER.length)
    .split('\n')
    .map((line) => line.trim())
    .filter((line, i, all) => line.startsWith('|') && all.slice(0, i).every((l) => l === '' || l.startsWith('|')));
  const weights = new Map<string, Weight>();
  for (const row of rows.slice(2)) {
    const [page, bytes, gzip] = row
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    const figure = (cell: string | undefined) => {
      const m = /^(\d+(?:\.\d)?) KB$/.exec(cell ?? '');
      if (!m) throw new Error(`README.md's page weights: "${row}" is not "| page | 1.2 KB | 0.6 KB |"`);
      return Math.round(Number(m[1]) * 1000);
    };
    weights.set(page!, { bytes: figure(bytes), gzip: figure(gzip) });
  }
  return weights;
}

describe('page weights (README.md, "<!-- page-weights -->")', () => {
  let t: TestApp;
  let adapter: MemoryAdapter;
  const mails: SendVerificationRequestParams[] = [];
  /** Each page's HTML (the script's text for the script), by its README name. */
  const pages = new Map<string, string>();
  /** Pages measured or checked for the script but not in the table: a challenge with a passkey. */
  const extra = new Map<string, string>();

  beforeAll(async () => {
    adapter = new MemoryAdapter();
    t = await createTestApp({
      auth: {
        adapter,
        trustHost: true,
        session: { strategy: 'database' },
        logger: { error: () => undefined, warn: () => undefined },
        twoFactor: { policy: 'optional' },
        providers: [
          Google({ clientId: 'google-client', clientSecret: 'google-secret' }),
          GitHub({ clientId: 'github-client', clientSecret: 'github-secret' }),
          Apple({ clientId: 'apple-client', clientSecret: 'apple-secret' }),
          Email({ rateLimit: false, sendVerificationRequest: async (params) => void mails.push(params) }),
          Credentials({
            name: 'Password',
            credentials: {
              email: { label: 'Email', type: 'email', required: true },
              password: { label: 'Password', type: 'password', required: true },
            },
            async authorize({ email, password }) {
              const user = typeof email === 'string' ? await adapter.getUserByEmail(email) : null;
              return user && password === PASSWORD ? { id: user.id, email: user.email, name: user.name ?? null } : null;
            },
          }),
          Passkey(),
        ],
      },
    });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  async function newUser(name: string): Promise<{ id: string; email: string }> {
    const email = `${name.toLowerCase()}-${randomUUID().slice(0, 8)}@example.test`;
    const user = await adapter.createUser({ id: randomUUID(), email, emailVerified: new Date(), name } as never);
    return { id: user.id, email };
  }

  /** A browser that posted the password form; returns it and where it was sent. */
  async function passwordSignIn(email: string): Promise<{ browser: TestClient; to: string }> {
    const browser = new TestClient(t.url);
    const csrfToken = await browser.csrf();
    const res = await browser.post('/auth/callback/credentials', {
      csrfToken,
      email,
      password: PASSWORD,
      callbackUrl: `${t.url}/auth/account`,
    });
    expect(res.status).toBe(302);
    return { browser, to: location(res).pathname };
  }

  /** The page at `path` as a browser gets it: a 200 of HTML. */
  async function page(browser: TestClient, path: string, status = 200): Promise<string> {
    const res = await browser.get(path, BROWSER);
    expect({ path, status: res.status }).toEqual({ path, status });
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    return res.text();
  }

  /** A form's POST as a browser sends it: a 200 of HTML. */
  async function postForm(browser: TestClient, action: string, fields: Record<string, string>): Promise<string> {
    const res = await browser.post(action, fields, { headers: BROWSER });
    expect({ action, status: res.status }).toEqual({ action, status: 200 });
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    return res.text();
  }

  it('fetches every built-in page and the passkey script', async () => {
    const anonymous = new TestClient(t.url);
    pages.set('Sign-in', await page(anonymous, '/auth/signin'));
    // Identifier-first: step 1 is a GET form to the page itself; step 2 is rendered by the server.
    expect(/<form action="[^"]*\/auth\/signin" method="get"/.test(pages.get('Sign-in')!)).toBe(true);
    pages.set('Sign-in, step 2', await page(anonymous, '/auth/signin?step=methods&email=ada%40example.test'));
    pages.set('Verify request', await page(anonymous, '/auth/verify-request?provider=email&email=ada%40example.test'));
    pages.set('Error', await page(anonymous, '/auth/error?error=Verification', 403));
    pages.set('Sign-out', await page(anonymous, '/auth/signout'));

    // The magic link's confirmation page.
    const email = `link-${randomUUID().slice(0, 8)}@example.test`;
    const csrfToken = await anonymous.csrf();
    expect((await anonymous.post('/auth/signin/email', { csrfToken, email })).status).toBe(302);
    const link = mails.find((x) => x.identifier === email)!;
    pages.set('Email confirmation', await page(new TestClient(t.url), link.url));

    // The account page: a linked GitHub account, a passkey, signed in on two browsers.
    const ada = await newUser('Ada');
    await adapter.linkAccount({ userId: ada.id, type: 'oauth', provider: 'github', providerAccountId: '4242' });
    await givePasskey(adapter, ada.id);
    const { browser, to } = await passwordSignIn(ada.email);
    expect(to).toBe('/auth/account');
    await passwordSignIn(ada.email);
    const account = await page(browser, '/auth/account');
    // Its sections: the linked account, the passkey, the authenticator apps, the two sessions.
    expect(['GitHub', 'data-passkey', 'two-factor-heading'].filter((x) => !account.includes(x))).toEqual([]);
    const sessions = /<section aria-labelledby="sessions-heading">([\s\S]*?)<\/section>/.exec(account)![1]!;
    expect(sessions.match(/<li[ >]/g)).toHaveLength(2);
    pages.set('Account', account);

    // An authenticator app added from the account page: the enrolment page, then the backup codes.
    const bob = await newUser('Bob');
    const signedIn = (await passwordSignIn(bob.email)).browser;
    const add = formFor(await page(signedIn, '/auth/account'), '/account/two-factor/totp');
    const enrol = await postForm(signedIn, add.action, add.fields);
    pages.set('Two-factor enrolment', enrol);
    const secret = /data-secret="([A-Z2-7]+)"/.exec(enrol)![1]!;
    const confirm = formFor(enrol, '/account/two-factor/confirm');
    const code = await nextCode({ secret, lastStep: -Infinity });
    const codes = await postForm(signedIn, confirm.action, { ...confirm.fields, code, name: 'Phone' });
    expect(codes).toContain('data-backup-codes');
    pages.set('Backup codes', codes);

    // The challenge after the password of a user with that app; then with a passkey as well.
    const challenged = await passwordSignIn(bob.email);
    expect(challenged.to).toBe('/auth/two-factor');
    pages.set('Two-factor challenge', await page(challenged.browser, '/auth/two-factor'));
    await givePasskey(adapter, bob.id);
    const withPasskey = await passwordSignIn(bob.email);
    expect(withPasskey.to).toBe('/auth/two-factor');
    extra.set('Two-factor challenge with a passkey', await page(withPasskey.browser, '/auth/two-factor'));

    const script = await anonymous.get('/auth/webauthn-client.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    pages.set(SCRIPT, await script.text());
  }, 120_000);

  it('references the passkey script from the pages with a passkey action only', () => {
    const withAction = new Set(['Sign-in', 'Sign-in, step 2', 'Account', 'Two-factor challenge with a passkey']);
    const all = [...pages, ...extra].filter(([name]) => name !== SCRIPT);
    expect(all.length).toBe(11);
    // What each page has: the script's tag, any mention of it, a control the script wires.
    const has = (html: string) => ({
      tag: /<script[^>]*\ssrc="[^"]*\/webauthn-client\.js"/.test(html),
      mention: html.includes('webauthn-client'),
      action: /\sdata-webauthn-(action|autofill|two-factor)=/.test(html),
    });
    expect(Object.fromEntries(all.map(([name, html]) => [name, has(html)]))).toEqual(
      Object.fromEntries(
        all.map(([name]) => [
          name,
          { tag: withAction.has(name), mention: withAction.has(name), action: withAction.has(name) },
        ]),
      ),
    );
  });

  it("matches the README's figures within 10% (prints the measured table)", () => {
    const measured = new Map<string, Weight>(
      [...pages].map(([name, text]) => [
        name,
        { bytes: Buffer.byteLength(text), gzip: gzipSync(Buffer.from(text)).byteLength },
      ]),
    );
    const table = [
      '| Page | Bytes | Gzipped |',
      '|---|---:|---:|',
      ...[...measured].map(([name, w]) => `| ${name} | ${kb(w.bytes)} | ${kb(w.gzip)} |`),
    ].join('\n');
    console.log(`The built-in pages' weights, measured (README.md after ${MARKER}):\n\n${table}\n`);

    const stated = readmeWeights(readFileSync(README_PATH, 'utf8'));
    expect([...stated.keys()].sort()).toEqual([...measured.keys()].sort());
    const off = [...measured].flatMap(([name, w]) =>
      (['bytes', 'gzip'] as const)
        .filter((k) => Math.abs(w[k] - stated.get(name)![k]) > TOLERANCE * stated.get(name)![k])
        .map((k) => `${name} ${k}: measured ${kb(w[k])}, README ${kb(stated.get(name)![k])}`),
    );
    expect(off).toEqual([]);
  });
});
