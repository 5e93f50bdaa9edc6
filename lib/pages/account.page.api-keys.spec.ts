import { describe, expect, it } from '@jest/globals';
import { parseTags, unlabeledInputs, visibleInputs } from '../../test/setup/html-checks.js';
import { ENGLISH_MESSAGES, GERMAN_MESSAGES } from '../config/messages/page-messages.js';
import {
  renderAccountPage,
  renderNewApiKeyPage,
  type AccountPageApiKey,
  type AccountPageParams,
} from './account.page.js';

const theme = { colorScheme: 'auto', logo: '', brandColor: '', buttonText: '' } as const;
const ACCOUNT = 'https://app.example/auth/account';
const base: AccountPageParams = {
  user: { email: 'ada@example.com' },
  csrfToken: 'tok"en',
  accountUrl: ACCOUNT,
  authUrl: 'https://app.example/auth',
  theme,
};
const DAY = 86_400_000;
const HOSTILE = '"><script>alert(1)</script>';

const keys: AccountPageApiKey[] = [
  {
    id: 'AbCdEf123456',
    name: 'Deploy bot',
    hint: 'x9Z2',
    scopes: ['notes:read', 'notes:write'],
    createdAt: new Date(0),
    expires: new Date('2999-01-01T00:00:00Z'),
    lastUsedAt: new Date(60_000),
  },
  {
    id: 'ZyXwVu654321',
    name: 'Old script',
    hint: 'q0Q0',
    scopes: [],
    createdAt: new Date(0),
    expires: new Date(DAY),
    lastUsedAt: null,
  },
];

/** Every POST form of the page: where it goes and its inputs' attributes. */
function forms(html: string) {
  return [...html.matchAll(/<form method="post" action="([^"]*)">([\s\S]*?)<\/form>/g)].map((f) => ({
    action: f[1]!,
    inputs: parseTags(f[2]!)
      .filter((t) => t.name === 'input')
      .map((t) => t.attrs),
  }));
}

/** The section alone (from its opening tag to its end). */
function sectionOf(html: string): string {
  const start = html.indexOf('<section aria-labelledby="api-keys-heading">');
  return start < 0 ? '' : html.slice(start, html.indexOf('</section>', start) + '</section>'.length);
}

describe('the account page: API keys', () => {
  const csrf = { type: 'hidden', name: 'csrfToken', value: 'tok"en' };
  const url = (path: string) => `${ACCOUNT}/api-keys/${path}`;

  it('is left out without `apiKeys`, and shown after the email address and two-factor', () => {
    expect(renderAccountPage(base)).not.toContain('id="api-keys-heading"');
    const html = renderAccountPage({
      ...base,
      twoFactor: { factors: [], backupCodesLeft: 0, required: false },
      apiKeys: { keys: [], scopes: null, max: 20 },
      email: { current: null },
    });
    expect(html).toContain('<section aria-labelledby="api-keys-heading"><h2 id="api-keys-heading">API keys</h2>');
    const order = ['email', 'two-factor', 'api-keys'].map((id) => html.indexOf(`id="${id}-heading"`));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(order[0]).toBeGreaterThan(-1);
    expect(sectionOf(html)).toContain(`<p>${ENGLISH_MESSAGES['account.apiKeys.none']}</p>`);
  });

  it('lists each key (name, hint, scopes, created, expires, last used) but never a key, with rotate and revoke forms', () => {
    const html = renderAccountPage({ ...base, apiKeys: { keys, scopes: null, max: 20 } });
    // (Some ICU versions put a narrow no-break space before "AM".)
    const section = sectionOf(html).replace(/\u202f/g, ' ');
    expect(section.match(/<li data-api-key>/g)).toHaveLength(2);
    expect(section).toContain('<p class="item-title">Deploy bot</p>');
    expect(section).toContain('Ends in <code>…x9Z2</code>');
    expect(section).toContain('Scopes: <code>notes:read</code> <code>notes:write</code>');
    expect(section).toContain(
      'Created <time datetime="1970-01-01T00:00:00.000Z" data-local>Jan 1, 1970, 12:00 AM UTC</time>, expires <time datetime="2999-01-01">Jan 1, 2999</time>',
    );
    expect(section).toContain(
      'Last used <time datetime="1970-01-01T00:01:00.000Z" data-local>Jan 1, 1970, 12:01 AM UTC</time>',
    );
    // The second one expired: marked, and said so; it has no scopes and was never used.
    expect(section).toContain('<p class="item-title">Old script<span class="tag">Expired</span></p>');
    expect(section).toContain('expired <time datetime="1970-01-02">Jan 2, 1970</time>');
    expect(section).toContain(ENGLISH_MESSAGES['account.apiKeys.noScopes']);
    expect(section).toContain(ENGLISH_MESSAGES['account.neverUsed']);
    expect(section).toContain(ENGLISH_MESSAGES['account.apiKeys.rotateNote']);
    // Each button names its key.
    for (const name of ['Deploy bot', 'Old script']) {
      expect(section).toContain(`aria-label="Rotate ${name}">Rotate</button>`);
      expect(section).toContain(`aria-label="Revoke ${name}">Revoke</button>`);
    }
    const hidden = (id: string) => ({ type: 'hidden', name: 'id', value: id });
    expect(forms(section)).toEqual([
      { action: url('rotate'), inputs: [csrf, hidden('AbCdEf123456')] },
      { action: url('revoke'), inputs: [csrf, hidden('AbCdEf123456')] },
      { action: url('rotate'), inputs: [csrf, hidden('ZyXwVu654321')] },
      { action: url('revoke'), inputs: [csrf, hidden('ZyXwVu654321')] },
      {
        action: url('create'),
        inputs: [
          csrf,
          expect.objectContaining({ id: 'api-key-name', name: 'name', type: 'text', maxlength: '100', required: '' }),
          expect.objectContaining({ id: 'api-key-scopes', name: 'scopes', type: 'text' }),
          expect.objectContaining({ id: 'api-key-expires', name: 'expires', type: 'date' }),
        ],
      },
    ]);
  });

  it('creates a key with a labelled form: the name required, scopes and an expiry date optional, each with its hint', () => {
    const before = Date.now();
    const html = renderAccountPage({ ...base, apiKeys: { keys: [], scopes: null, max: 20 } });
    const section = sectionOf(html);
    expect(section).toContain(
      `<h3 id="api-key-create-heading">${ENGLISH_MESSAGES['account.apiKeys.createHeading']}</h3>`,
    );
    expect(visibleInputs(section)).toEqual(['<input name="name">', '<input name="scopes">', '<input name="expires">']);
    expect(unlabeledInputs(section)).toEqual([]);
    const inputs = forms(section)[0]!.inputs;
    expect(inputs[2]).not.toHaveProperty('required');
    expect(inputs[3]).not.toHaveProperty('required');
    // No past date can be picked: the earliest is tomorrow (UTC).
    const min = Date.parse(`${inputs[3]!.min}T00:00:00Z`);
    expect(min).toBeGreaterThan(before);
    expect(min).toBeLessThanOrEqual(Date.now() + DAY);
    // Each field points at its hint.
    for (const [id, key] of [
      ['api-key-name-hint', 'account.apiKeys.nameHint'],
      ['api-key-scopes-hint', 'account.apiKeys.scopesHint'],
      ['api-key-expires-hint', 'account.apiKeys.expiresHint'],
    ] as const) {
      expect(section).toContain(`aria-describedby="${id}"`);
      expect(section).toContain(`<p class="muted" id="${id}">${ENGLISH_MESSAGES[key]}</p>`);
    }
    expect(section).toContain(`<button type="submit" class="button btn-auto">Create key</button>`);
    // No script is needed for any of it.
    expect(html).not.toContain('<script src');
  });

  it('names the scopes a key may have when `accessToken.scopes` lists them; at the limit, says so instead of the form', () => {
    const listed = sectionOf(renderAccountPage({ ...base, apiKeys: { keys, scopes: ['notes:read', 'a<b'], max: 20 } }));
    expect(listed).toContain('Separate them with spaces. Available: notes:read a&lt;b');
    const full = sectionOf(renderAccountPage({ ...base, apiKeys: { keys, scopes: null, max: 2 } }));
    expect(full).toContain('<p data-api-keys-limit>You have as many API keys as allowed (2).');
    expect(forms(full).map((f) => f.action)).not.toContain(url('create'));
  });

  it('escapes every value of a key: a key named <script>, its id, hint and scopes', () => {
    const html = renderAccountPage({
      ...base,
      apiKeys: {
        keys: [
          {
            id: HOSTILE,
            name: '<script>alert(1)</script>',
            hint: '<b>',
            scopes: ['"><img src=x>'],
            createdAt: new Date(0),
            expires: null,
            lastUsedAt: null,
          },
        ],
        scopes: null,
        max: 20,
      },
    });
    expect(html).not.toContain('<script>alert(1)');
    expect(html).not.toContain('<img src=x>');
    expect(html).not.toContain('<b>');
    // The page's own hashed busy-states script is the only inline one.
    expect(html.match(/<script>/g)).toHaveLength(1);
    expect(html).toContain('<p class="item-title">&lt;script&gt;alert(1)&lt;/script&gt;</p>');
    expect(html).toContain('aria-label="Revoke &lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(html).toContain('<code>…&lt;b&gt;</code>');
    expect(html).toContain(ENGLISH_MESSAGES['account.apiKeys.noExpiry']);
    expect(forms(sectionOf(html))[0]!.inputs).toContainEqual({ type: 'hidden', name: 'id', value: HOSTILE });
  });

  it('speaks German with GERMAN_MESSAGES', () => {
    const html = renderAccountPage({ ...base, messages: GERMAN_MESSAGES, apiKeys: { keys, scopes: null, max: 20 } });
    expect(html).toContain('<h2 id="api-keys-heading">API-Schlüssel</h2>');
    expect(html).toContain('aria-label="Deploy bot widerrufen">Widerrufen</button>');
    expect(html).toContain('aria-label="Deploy bot neu erzeugen">Neu erzeugen</button>');
    expect(html).toContain('Endet auf <code>…x9Z2</code>');
    expect(html).toContain('>Schlüssel erstellen</button>');
    expect(html).not.toContain('API keys');
    expect(html).not.toContain('Revoke');
  });

  it('says what happened after creating, rotating or revoking a key', () => {
    for (const notice of ['api-key-created', 'api-key-rotated', 'api-key-revoked'] as const)
      expect(renderAccountPage({ ...base, notice })).toContain(
        `<div class="notice" role="status"><p>${ENGLISH_MESSAGES[`account.notice.${notice}`]}</p></div>`,
      );
    expect(renderAccountPage({ ...base, notice: 'api-key-revoked', messages: GERMAN_MESSAGES })).toContain(
      'Der API-Schlüssel wurde widerrufen.',
    );
  });
});

describe('the page that shows a new API key once', () => {
  const KEY = 'nak_AbCdEf123456secretSecretSecret0000';

  it('shows the key in a <code> element, says to copy it now, and continues to the account page with the notice', () => {
    const html = renderNewApiKeyPage({ key: KEY, name: 'Deploy bot', rotated: false, continueUrl: ACCOUNT, theme });
    expect(html).toContain(`<h1>${ENGLISH_MESSAGES['account.apiKeys.newTitle']}</h1>`);
    expect(html).toContain(`<code data-api-key>${KEY}</code>`);
    expect(html.split(KEY)).toHaveLength(2);
    // Nothing hides the key from a screen reader; the sentence before it names it.
    expect(html).not.toMatch(/aria-hidden|role="presentation"/);
    expect(html).toContain('<p>The new key for <strong>Deploy bot</strong>:</p>');
    expect(html).toContain(ENGLISH_MESSAGES['account.apiKeys.copyNow']);
    expect(html).toContain(ENGLISH_MESSAGES['account.apiKeys.shownOnce']);
    expect(html).not.toContain(ENGLISH_MESSAGES['account.apiKeys.replaced']);
    expect(html).toContain(`<a class="button" href="${ACCOUNT}?notice&#61;api-key-created">Continue</a>`);
    // A page to read, not a form: nothing posts from it, nothing is typed in.
    expect(html).not.toContain('<form');
    expect(visibleInputs(html)).toEqual([]);
  });

  it('after a rotation: says the old value stopped working', () => {
    const html = renderNewApiKeyPage({ key: KEY, name: 'Deploy bot', rotated: true, continueUrl: ACCOUNT, theme });
    expect(html).toContain(ENGLISH_MESSAGES['account.apiKeys.replaced']);
    expect(html).toContain(`href="${ACCOUNT}?notice&#61;api-key-rotated"`);
  });

  it('escapes the name and the key, and links only to a safe URL', () => {
    const html = renderNewApiKeyPage({ key: HOSTILE, name: HOSTILE, rotated: false, continueUrl: ACCOUNT, theme });
    expect(html).not.toContain('<script>alert(1)');
    expect(html).toContain('<code data-api-key>&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;</code>');
    expect(html).toContain('<strong>&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;</strong>');
    const unsafe = renderNewApiKeyPage({
      key: KEY,
      name: 'x',
      rotated: false,
      continueUrl: 'javascript:alert(1)',
      theme,
    });
    expect(unsafe).not.toContain('javascript:');
  });

  it('speaks German with GERMAN_MESSAGES', () => {
    const html = renderNewApiKeyPage({
      key: KEY,
      name: 'Deploy bot',
      rotated: true,
      continueUrl: ACCOUNT,
      theme,
      messages: GERMAN_MESSAGES,
    });
    expect(html).toContain('<html lang="de">');
    expect(html).toContain('<h1>Kopieren Sie Ihren neuen API-Schlüssel</h1>');
    expect(html).toContain('Der alte Wert dieses Schlüssels funktioniert nicht mehr.');
    expect(html).toContain('>Weiter</a>');
    expect(html).not.toContain('Continue');
  });
});
