import { describe, expect, it } from '@jest/globals';
import { externalResources, parseTags, unlabeledInputs, visibleInputs } from '../../test/setup/html-checks.js';
import { ENGLISH_MESSAGES, GERMAN_MESSAGES, type PageMessages } from '../config/messages/page-messages.js';
import { renderAccountPage } from './account.page.js';
import { AUTH, theme } from './fixtures/signin-page.fixture.js';
import type { TwoFactorChallengePageParams, TwoFactorEnrolPageParams } from './page.types.js';
import { renderBackupCodesPage, renderTwoFactorChallengePage, renderTwoFactorEnrolPage } from './two-factor.page.js';

const HOSTILE = '"><script>alert(1)</script>';
const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const URI = `otpauth://totp/Example:ada%40example.test?secret=${SECRET}&issuer=Example`;
const CODES = ['a1b2-c3d4', 'e5f6-a7b8', '0000-1111'];
/** A QR code as the library's own code makes it (uqr's `renderSVG`): attributes only, no style or script. */
const QR =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 30 30"><rect fill="white" width="30" height="30"/><path fill="black" d="M10,10h10v10h-10z"/></svg>';

function challenge(over: Partial<TwoFactorChallengePageParams> = {}): string {
  return renderTwoFactorChallengePage({
    action: `${AUTH}/two-factor`,
    csrfToken: 'csrf-123',
    methods: ['totp', 'backup-code'],
    method: 'totp',
    switchUrl: (method) => `${AUTH}/two-factor?method=${method}`,
    cancelUrl: `${AUTH}/signin`,
    theme: { ...theme },
    ...over,
  });
}

function enrol(over: Partial<TwoFactorEnrolPageParams> = {}): string {
  return renderTwoFactorEnrolPage({
    action: `${AUTH}/two-factor/enrol`,
    csrfToken: 'csrf-123',
    hidden: { factorId: 'f1' },
    qrSvg: QR,
    uri: URI,
    secret: SECRET,
    required: true,
    nameField: false,
    theme: { ...theme },
    ...over,
  });
}

function backupCodes(over: Partial<Parameters<typeof renderBackupCodesPage>[0]> = {}): string {
  return renderBackupCodesPage({
    codes: CODES,
    continueUrl: `${AUTH}/account`,
    regenerated: false,
    theme: { ...theme },
    ...over,
  });
}

/** The start tag of the element with this attribute value (`id`, `name`, ...). */
function tag(html: string, name: string, attr: string, value: string) {
  return parseTags(html).find((t) => t.name === name && t.attrs[attr] === value);
}

function forms(html: string) {
  const result: Array<{ attrs: Record<string, string>; inputs: Array<Record<string, string>> }> = [];
  for (const t of parseTags(html)) {
    if (t.name === 'form') result.push({ attrs: t.attrs, inputs: [] });
    else if (t.name === 'input' && result.length) result.at(-1)!.inputs.push(t.attrs);
  }
  return result;
}

/** No script but the layout's hashed busy-state script, nothing loaded from elsewhere, no event handlers. */
function expectSelfContained(html: string): void {
  expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
  expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
  expect(externalResources(html)).toEqual([]);
  expect(parseTags(html).filter((t) => t.name === 'script' && t.attrs.src)).toEqual([]);
  expect(html.match(/<script\b/g)?.length ?? 0).toBeLessThanOrEqual(1);
  expect(html).not.toMatch(/\son[a-z]+=/i);
  expect(html).not.toMatch(/\sstyle=/i);
}

describe('renderTwoFactorChallengePage', () => {
  it('asks for the app code: one labelled, focused numeric field the browser can fill, and a real submit button', () => {
    const html = challenge();
    expectSelfContained(html);
    expect(html).toContain('<title>Two-factor authentication</title>');
    expect(html).toContain('<h1>Two-factor authentication</h1>');
    const [form, ...others] = forms(html);
    expect(others).toEqual([]);
    expect(form!.attrs).toMatchObject({ method: 'post', action: `${AUTH}/two-factor` });
    expect(form!.inputs.filter((i) => i.type === 'hidden')).toEqual([
      { type: 'hidden', name: 'csrfToken', value: 'csrf-123' },
      { type: 'hidden', name: 'method', value: 'totp' },
    ]);
    expect(visibleInputs(html)).toEqual(['<input name="code">']);
    expect(unlabeledInputs(html)).toEqual([]);
    const code = tag(html, 'input', 'name', 'code')!.attrs;
    expect(code).toMatchObject({
      id: 'two-factor-code',
      type: 'text',
      inputmode: 'numeric',
      autocomplete: 'one-time-code',
      pattern: '[0-9 ]*',
      maxlength: '10',
      'aria-describedby': 'two-factor-hint',
    });
    expect(code).toHaveProperty('autofocus');
    expect(code).toHaveProperty('required');
    expect(code).not.toHaveProperty('aria-invalid');
    expect(html).toContain('<label for="two-factor-code">Authentication code</label>');
    expect(tag(html, 'p', 'id', 'two-factor-hint')).toBeDefined();
    expect(html).toContain('<button type="submit" class="button">Verify</button>');
    expect(html).not.toContain('role="alert"');
  });

  it('links to the other method (a plain GET link) and back to the sign-in page', () => {
    const html = challenge();
    const links = parseTags(html).filter((t) => t.name === 'a');
    expect(links.map((a) => a.attrs.href)).toEqual([`${AUTH}/two-factor?method=backup-code`, `${AUTH}/signin`]);
    expect(html).toContain('>Use a backup code</a>');
    expect(html).toContain('>Sign in another way</a>');
    const backup = challenge({ method: 'backup-code' });
    expect(parseTags(backup).find((t) => t.name === 'a')!.attrs.href).toBe(`${AUTH}/two-factor?method=totp`);
    expect(backup).toContain('>Use your authenticator app</a>');
  });

  it('offers no switch when the user has only one method, or no switch URL is given', () => {
    for (const html of [challenge({ methods: ['totp'] }), challenge({ switchUrl: undefined })]) {
      expect(
        parseTags(html)
          .filter((t) => t.name === 'a')
          .map((a) => a.attrs.href),
      ).toEqual([`${AUTH}/signin`]);
      expect(html).not.toContain('Use a backup code');
    }
  });

  it('asks for a backup code in a text field without capitals or spell check', () => {
    const html = challenge({ method: 'backup-code' });
    expect(forms(html)[0]!.inputs).toContainEqual({ type: 'hidden', name: 'method', value: 'backup-code' });
    const code = tag(html, 'input', 'name', 'code')!.attrs;
    expect(code).toMatchObject({
      type: 'text',
      autocomplete: 'one-time-code',
      autocapitalize: 'none',
      spellcheck: 'false',
    });
    expect(code).not.toHaveProperty('inputmode');
    expect(code).not.toHaveProperty('pattern');
    expect(html).toContain('<label for="two-factor-code">Backup code</label>');
    expect(html).toContain(ENGLISH_MESSAGES['twoFactor.challenge.backupIntro']);
    expect(unlabeledInputs(html)).toEqual([]);
  });

  it('shows a refused code as an alert tied to the field (aria-describedby, aria-invalid), focused', () => {
    const html = challenge({ error: 'That code is not right.' });
    const alert = parseTags(html).find((t) => t.attrs.role === 'alert')!;
    expect(alert.attrs.id).toBe('two-factor-error');
    expect(html).toContain('<p class="error" id="two-factor-error" role="alert">That code is not right.</p>');
    const code = tag(html, 'input', 'name', 'code')!.attrs;
    expect(code['aria-invalid']).toBe('true');
    expect(code['aria-describedby']!.split(' ')).toEqual(['two-factor-error', 'two-factor-hint']);
    expect(code).toHaveProperty('autofocus');
    expect(code).not.toHaveProperty('value');
  });

  it("a code by email: the page's one filled button while it is the only way; beside a code field or a passkey, a link", () => {
    const sendClass = (html: string) =>
      /<form[^>]*class="send-code">[\s\S]*?<button type="submit" class="([^"]+)">/.exec(html)?.[1];
    // Asked for, not sent yet: no field, the button that sends it is the action.
    const only = challenge({ methods: [], method: 'email-code', emailCode: {} });
    expect(visibleInputs(only)).toEqual([]);
    expect(sendClass(only)).toBe('button');
    expect(only).toContain('>Email me a code</button>');
    // Sent: the field and Verify first, "Send a new code" quiet.
    const sent = challenge({
      methods: ['email-code'],
      method: 'email-code',
      emailCode: { sentTo: 'a•••@example.test' },
    });
    expect(sendClass(sent)).toBe('link-button');
    expect(sent).toContain('>Send a new code</button>');
    // Beside an app's code, or a passkey: a link-style button.
    expect(sendClass(challenge({ emailCode: {} }))).toBe('link-button');
    expect(
      sendClass(
        challenge({
          methods: [],
          method: 'email-code',
          emailCode: {},
          passkey: { scriptUrl: `${AUTH}/webauthn-client.js` },
        }),
      ),
    ).toBe('link-button');
  });

  it('one primary action (Verify); a passkey, a code by email and a backup code as links under it, then "Sign in another way"', () => {
    const html = challenge({ emailCode: {}, passkey: { scriptUrl: `${AUTH}/webauthn-client.js` }, rememberDays: 30 });
    const classes = parseTags(html)
      .filter((t) => (t.name === 'button' || t.name === 'a') && t.attrs.class)
      .map((t) => t.attrs.class);
    expect(classes.filter((c) => c === 'button')).toHaveLength(1);
    const ways = html.slice(html.indexOf('<div class="alternatives other-ways">'));
    expect([...ways.matchAll(/<(?:button|a)\b[^>]*>([^<]+)<\/(?:button|a)>/g)].map((x) => x[1]).slice(0, 4)).toEqual([
      'Use a passkey',
      'Email me a code',
      'Use a backup code',
      'Sign in another way',
    ]);
    expect(html.indexOf('>Verify</button>')).toBeLessThan(html.indexOf('<div class="alternatives other-ways">'));
    // Link-style: no button under Verify looks like one.
    expect(
      parseTags(ways.slice(0, ways.indexOf('</div>')))
        .filter((t) => t.name === 'button')
        .map((t) => t.attrs.class),
    ).toEqual(['link-button', 'link-button']);
    // The passkey's error place is on the page (its script fills it), not styled as a hint.
    expect(html).toContain('<p class="error" data-webauthn-error hidden role="alert"></p>');
    // A passkey alone: its button is the primary action, nothing under it but "Sign in another way".
    const alone = challenge({ methods: [], passkey: { scriptUrl: `${AUTH}/webauthn-client.js` } });
    expect(alone).toMatch(/<button type="button" class="button" data-webauthn-two-factor=/);
    expect(alone).not.toContain('<div class="alternatives other-ways">');
  });

  it('escapes every value and refuses links that are not http(s) or paths', () => {
    const html = challenge({
      error: HOSTILE,
      csrfToken: HOSTILE,
      hidden: { [HOSTILE]: HOSTILE, method: 'evil', csrfToken: 'evil' },
      switchUrl: () => 'javascript:alert(1)',
      cancelUrl: 'javascript:alert(2)',
      action: 'javascript:alert(3)',
    });
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('javascript:');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(parseTags(html).filter((t) => t.name === 'a')).toEqual([]);
    const inputs = forms(html)[0]!.inputs;
    // The page's own csrfToken and method are not overridden by `hidden`.
    expect(inputs.filter((i) => i.name === 'csrfToken')).toEqual([
      { type: 'hidden', name: 'csrfToken', value: HOSTILE },
    ]);
    expect(inputs.filter((i) => i.name === 'method')).toEqual([{ type: 'hidden', name: 'method', value: 'totp' }]);
    expect(inputs).toContainEqual({ type: 'hidden', name: HOSTILE, value: HOSTILE });
  });

  it('takes a render hook (replaceBody) and a nonce, like the other pages', () => {
    const html = challenge({ replaceBody: (body) => `<div data-hook>${body}</div>`, nonce: 'abcdefghijklmnop0123' });
    expect(html).toContain('<div data-hook><h1>');
    expect(html).toContain('&#39;nonce-abcdefghijklmnop0123&#39;');
  });
});

describe('renderTwoFactorEnrolPage', () => {
  it('shows the QR code as one named image, the otpauth link and the secret grouped by four', () => {
    const html = enrol();
    expectSelfContained(html);
    expect(html).toContain('<h1>Set up two-factor authentication</h1>');
    expect(html).toContain(ENGLISH_MESSAGES['twoFactor.enrol.requiredIntro']);
    const qr = parseTags(html).find((t) => 'data-qr' in t.attrs)!;
    expect(qr.attrs).toMatchObject({ role: 'img', 'aria-label': ENGLISH_MESSAGES['twoFactor.enrol.qrLabel'] });
    expect(html).toContain(`data-qr>${QR}</div>`);
    const link = parseTags(html).find((t) => t.name === 'a' && 'data-otpauth' in t.attrs)!;
    expect(link.attrs.href).toBe(URI);
    expect(html).toContain('>Open in your authenticator app</a>');
    // The key to type in behind its question (a native disclosure, closed): the apps' own pattern.
    expect(html).toContain(
      `<details class="manual"><summary>${ENGLISH_MESSAGES['twoFactor.enrol.manual']}</summary>` +
        `<p class="secret"><code data-secret="${SECRET}">JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP</code></p></details>`,
    );
  });

  it('confirms with a first code: the form with the CSRF token, the extra hidden inputs and a labelled code field', () => {
    const html = enrol();
    const [form, ...others] = forms(html);
    expect(others).toEqual([]);
    expect(form!.attrs).toMatchObject({ method: 'post', action: `${AUTH}/two-factor/enrol` });
    expect(form!.inputs.filter((i) => i.type === 'hidden')).toEqual([
      { type: 'hidden', name: 'csrfToken', value: 'csrf-123' },
      { type: 'hidden', name: 'factorId', value: 'f1' },
    ]);
    expect(visibleInputs(html)).toEqual(['<input name="code">']);
    expect(unlabeledInputs(html)).toEqual([]);
    const code = tag(html, 'input', 'name', 'code')!.attrs;
    expect(code).toMatchObject({ inputmode: 'numeric', autocomplete: 'one-time-code', pattern: '[0-9 ]*' });
    // The person scans first: the field is focused only after a refused code.
    expect(code).not.toHaveProperty('autofocus');
    expect(html).toContain('<button type="submit" class="button">Verify and turn on</button>');
    expect(
      parseTags(html)
        .filter((t) => t.name === 'a')
        .map((a) => a.attrs.href),
    ).toEqual([URI]);
  });

  it('from the account page: its own wording, an optional labelled name field, and a cancel link', () => {
    const html = enrol({ required: false, nameField: true, cancelUrl: `${AUTH}/account` });
    expect(html).toContain('<h1>Add an authenticator app</h1>');
    // The person chose to add one (the account page's section says what it is): straight to the QR code.
    expect(html).not.toContain(ENGLISH_MESSAGES['twoFactor.intro']);
    expect(html).not.toContain(ENGLISH_MESSAGES['twoFactor.enrol.requiredIntro']);
    expect(html).toContain(
      `<h1>Add an authenticator app</h1>\n<p id="two-factor-hint">${ENGLISH_MESSAGES['twoFactor.enrol.scan']} ${ENGLISH_MESSAGES['twoFactor.enrol.confirm']}</p>`,
    );
    expect(visibleInputs(html)).toEqual(['<input name="name">', '<input name="code">']);
    expect(unlabeledInputs(html)).toEqual([]);
    const name = tag(html, 'input', 'name', 'name')!.attrs;
    expect(name).toMatchObject({ id: 'two-factor-name', autocomplete: 'off', maxlength: '64' });
    expect(name).not.toHaveProperty('required');
    expect(html).toContain('<label for="two-factor-name">Name (optional)</label>');
    expect(tag(html, 'p', 'id', name['aria-describedby']!)).toBeDefined();
    expect(html).toContain(`<a class="button button-secondary" href="${AUTH}/account">Cancel</a>`);
  });

  it('after a refused code folds the setup away behind "Show the QR code again": the field and its button come first', () => {
    const first = enrol();
    expect(first).not.toContain('<details class="setup">');
    const html = enrol({ error: ENGLISH_MESSAGES['error.InvalidTwoFactorCode'] });
    const setup = html.indexOf(
      '<details class="setup"><summary>Show the QR code again</summary><p id="two-factor-hint">',
    );
    expect(setup).toBeGreaterThan(html.indexOf(ENGLISH_MESSAGES['twoFactor.enrol.requiredIntro']));
    // The QR code, the otpauth link and the key are all still there, inside it, before the form.
    const inside = html.slice(setup, html.indexOf('<form method="post"'));
    for (const part of ['data-qr', 'data-otpauth', `data-secret="${SECRET}"`]) expect(inside).toContain(part);
    // The code field is still described by the instruction (and the error first).
    expect(tag(html, 'input', 'name', 'code')!.attrs['aria-describedby']).toBe('two-factor-error two-factor-hint');
  });

  it('shows a refused code as an alert tied to the code field, which it focuses', () => {
    const html = enrol({ error: HOSTILE });
    expect(html).toContain('<p class="error" id="two-factor-error" role="alert">&quot;&gt;&lt;script&gt;');
    const code = tag(html, 'input', 'name', 'code')!.attrs;
    expect(code).toMatchObject({ 'aria-invalid': 'true' });
    expect(code['aria-describedby']).toContain('two-factor-error');
    expect(code).toHaveProperty('autofocus');
  });

  it('links only an otpauth://totp/ URI, and escapes the secret, the hidden inputs and the URI', () => {
    for (const uri of [
      'javascript:alert(1)',
      'https://evil.example/',
      'otpauth://hotp/x?secret=A',
      `otpauth://totp/"x`,
    ]) {
      const html = enrol({ uri });
      expect(parseTags(html).find((t) => t.name === 'a')).toBeUndefined();
      expect(html).not.toContain('Open in your authenticator app');
    }
    const html = enrol({ secret: HOSTILE, hidden: { id: HOSTILE }, csrfToken: HOSTILE, cancelUrl: 'javascript:x' });
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('javascript:');
    expect(parseTags(html).find((t) => 'data-secret' in t.attrs)!.attrs['data-secret']).toBe(
      HOSTILE.replace(/\s/g, ''),
    );
    expect(forms(html)[0]!.inputs).toContainEqual({ type: 'hidden', name: 'id', value: HOSTILE });
    const amp = enrol({ uri: `${URI}&period=30` });
    expect(amp).toContain(`href="${URI.replace(/&/g, '&amp;').replace(/=/g, '&#61;')}&amp;period&#61;30"`);
  });
});

describe('renderBackupCodesPage', () => {
  it('lists the codes once, in an ordered monospace list, says each works once, and continues', () => {
    const html = backupCodes();
    expectSelfContained(html);
    expect(html).toContain('<h1>Save your backup codes</h1>');
    expect(html).toContain(
      '<ol class="codes" data-backup-codes><li>a1b2-c3d4</li><li>e5f6-a7b8</li><li>0000-1111</li></ol>',
    );
    expect(html).toMatch(/ol\.codes\{[^}]*\}/);
    expect(html).toContain('monospace');
    expect(html).toContain(ENGLISH_MESSAGES['twoFactor.backupCodes.intro']);
    expect(html).toContain(ENGLISH_MESSAGES['twoFactor.backupCodes.shownOnce']);
    expect(html).not.toContain(ENGLISH_MESSAGES['twoFactor.backupCodes.replaced']);
    expect(html).toContain(`<a class="button" href="${AUTH}/account">Continue</a>`);
    // Nothing posts: the page is read, then left by a link.
    expect(forms(html)).toEqual([]);
    expect(html).not.toContain('<script>');
  });

  it('after a regeneration says the old codes stopped working', () => {
    const html = backupCodes({ regenerated: true });
    expect(html).toContain('<h1>Your new backup codes</h1>');
    expect(html).toContain(ENGLISH_MESSAGES['twoFactor.backupCodes.replaced']);
  });

  it('escapes the codes and refuses a continue link that is not http(s) or a path', () => {
    const html = backupCodes({ codes: [HOSTILE], continueUrl: 'javascript:alert(1)' });
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('<li>&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;</li>');
    expect(html).not.toContain('javascript:');
  });
});

/** Messages whose every sentence is its key in brackets: what is left of a page's text came from elsewhere. */
const MARKED = Object.fromEntries(
  Object.keys(ENGLISH_MESSAGES).map((k) => [k, k === 'lang' ? 'xx' : `[[${k}]]`]),
) as PageMessages;

/** The pages in each state, with `messages`. */
function pages(messages: PageMessages): Record<string, string> {
  const account = (twoFactor: Parameters<typeof renderAccountPage>[0]['twoFactor']) =>
    renderAccountPage({
      user: {},
      csrfToken: 'c',
      accountUrl: `${AUTH}/account`,
      authUrl: AUTH,
      theme: { ...theme },
      messages,
      twoFactor,
    });
  return {
    'challenge totp': challenge({ messages }),
    'challenge backup code': challenge({ messages, method: 'backup-code', error: messages['error.CredentialsSignin'] }),
    'challenge by email': challenge({ messages, methods: [], method: 'email-code', emailCode: {} }),
    'challenge by email sent': challenge({
      messages,
      methods: ['email-code'],
      method: 'email-code',
      emailCode: { sentTo: 'a@example.test' },
    }),
    'enrol required': enrol({ messages }),
    'enrol from the account page': enrol({
      messages,
      required: false,
      nameField: true,
      cancelUrl: '/',
      error: messages['error.CredentialsSignin'],
    }),
    'backup codes': backupCodes({ messages }),
    'backup codes regenerated': backupCodes({ messages, regenerated: true }),
    'account two-factor': account({
      factors: [
        { id: 'f1', name: null, createdAt: new Date(0), lastUsedAt: null },
        { id: 'f2', name: 'Phone', createdAt: new Date(0), lastUsedAt: new Date(0) },
      ],
      backupCodesLeft: 0,
      required: true,
    }),
    'account two-factor none': account({ factors: [], backupCodesLeft: 0, required: false }),
  };
}

/** The words a person reads, without markers and the pages' own values (codes, the secret, names, dates). */
function leftover(html: string): string {
  let text = html
    .replace(/<style>[^]*?<\/style>|<script( nonce="[^"]*")?>[^]*?<\/script>|<svg[^]*?<\/svg>/g, ' ')
    .replace(/(?:placeholder|aria-label)="([^"]*)"/g, ' $1 ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\[\[[\w.-]+\]\]/g, ' ')
    .replace(/&#?\w+;/g, ' ');
  for (const v of [...CODES, 'JBSW', 'Y3DP', 'EHPK', '3PXP', 'Phone', 'UTC', 'a@example.test'])
    text = text.split(v).join(' ');
  return text.replace(/[\s\d.:?,()-]+/g, ' ').trim();
}

describe('the two-factor pages and `messages`', () => {
  it.each(Object.entries(pages(MARKED)))('%s: every sentence comes from messages', (_name, html) => {
    expect(leftover(html)).toBe('');
    expect(html).toContain('<html lang="xx">');
  });

  it.each(Object.entries(pages(GERMAN_MESSAGES)))('%s in German: no English sentence left', (_name, page) => {
    expect(page).toContain('<html lang="de">');
    const html = page.replace(/ name="[^"]*"/g, ' ');
    const german = Object.values(GERMAN_MESSAGES);
    for (const [key, sentence] of Object.entries(ENGLISH_MESSAGES)) {
      if (key === 'lang' || sentence.length < 8 || german.some((g) => g.includes(sentence))) continue;
      expect({ key, found: html.includes(sentence) }).toEqual({ key, found: false });
    }
  });

  it('speaks German in the Sie-form', () => {
    expect(challenge({ messages: GERMAN_MESSAGES })).toContain('<label for="two-factor-code">Bestätigungscode</label>');
    expect(GERMAN_MESSAGES['twoFactor.challenge.totpIntro']).toMatch(/^Öffnen Sie Ihre/);
    const keys = Object.keys(GERMAN_MESSAGES).filter((k) => k.startsWith('twoFactor.'));
    expect(keys.length).toBeGreaterThan(30);
    for (const k of keys) expect(GERMAN_MESSAGES[k as keyof PageMessages]).not.toMatch(/\b(du|dein\w*|dich|dir)\b/i);
  });
});
