import { randomBytes } from 'node:crypto';
import type { Theme } from '../config/auth-options.interface.js';
import { ENGLISH_MESSAGES, html, text, type PageMessages } from '../config/messages/page-messages.js';
import { escapeAttr, escapeHtml, safeUrl } from '../util/html-escape.js';
import { dateMs, isExpiredDate } from '../util/instant.js';
import { userAgentLabelParts } from '../util/user-agent.js';
import { sentenceOf } from './account.messages.js';
import { renderPage } from './page-layout.js';

/** A session as the account page lists it. */
export interface AccountPageSession {
  id: string;
  current: boolean;
  /** A label like "Chrome on macOS", or null. */
  userAgent: string | null;
  createdAt: Date | null;
  lastSeenAt: Date | null;
}

/** A linked account as the page lists it. */
export interface AccountPageLinked {
  provider: string;
  providerAccountId: string;
  /** The provider's display name. */
  name: string;
}

/** A passkey as the page lists it. */
export interface AccountPagePasskey {
  credentialID: string;
  name: string | null;
  lastUsedAt: Date | null;
  credentialDeviceType: string;
}

/** A confirmed authenticator app (TOTP) as the page lists it. */
export interface AccountPageTwoFactor {
  id: string;
  name: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** An API key as the page lists it (never the key itself). */
export interface AccountPageApiKey {
  id: string;
  name: string;
  /** The key's last four characters (shown as `…abcd`). */
  hint: string;
  scopes: string[];
  createdAt: Date;
  expires: Date | null;
  lastUsedAt: Date | null;
}

/** A key just made (created, or rotated: a new value for an old key), shown once. */
export interface AccountPageNewApiKey {
  /** The key in clear: on this page only. */
  key: string;
  /** The key's name (user input: escaped). */
  name: string;
  /** A new value of an existing key: the page says the old value stopped working. */
  rotated: boolean;
}

/**
 * What the account page shows. A section whose data is `undefined` is left out (the feature is not
 * configured, or the adapter cannot do it). Every string is escaped by the renderer.
 */
export interface AccountPageParams {
  user: { name?: string | null; email?: string | null };
  csrfToken: string;
  /** `{authUrl}/account`: the page itself; its forms post below it. */
  accountUrl: string;
  /** `{authUrl}`: sign-out, link and passkey routes. */
  authUrl: string;
  theme: Required<Theme>;
  /** `?notice=` of the redirect after an action. */
  notice?: string;
  /** `?error=` of the redirect after a refused action. */
  error?: string;
  sessions?: AccountPageSession[];
  accounts?: { linked: AccountPageLinked[]; linkable: Array<{ id: string; name: string }> };
  /** The passkeys, and the WebAuthn provider that adds new ones. */
  passkeys?: { list: AccountPagePasskey[]; provider: string; scriptUrl: string };
  /**
   * Two-factor authentication: the confirmed authenticator apps, the backup codes left, and whether
   * the policy requires a second factor of this user (then the server refuses removing the last app).
   */
  twoFactor?: { factors: AccountPageTwoFactor[]; backupCodesLeft: number; required: boolean };
  /**
   * API keys (`apiKeys`): the user's keys, the scopes a key may have (`accessToken.scopes`; `null`:
   * any) and how many keys a user may have (`apiKeys.maxPerUser`: at the limit, no create form).
   */
  apiKeys?: { keys: AccountPageApiKey[]; scopes: string[] | null; max: number };
  /** Present when an email provider is configured. */
  email?: { current: string | null };
  /** Present when a credentials provider has a `passwordStore`. */
  password?: { hasPassword: boolean; minLength?: number };
  /** Whether the account can be deleted here. */
  canDelete?: boolean;
  /** The sentences (the `messages` option over English); English when absent. */
  messages?: PageMessages;
  /**
   * The response's CSP nonce for the page's inline script (the one that shows dates in the browser's
   * time zone); a fresh one when absent.
   */
  nonce?: string;
}

// The account page's own rules over the shared layout (page-layout.ts: its colours, `--line` for
// light separators): a wider card, sections split by light lines, each list a bordered group of rows
// (what it is on the left, its actions on the right, below it on a phone), small quiet buttons for a
// row's actions, and the account's deletion apart in red.
const CSS = [
  'main{max-width:42rem}',
  '.account-head{display:flex;flex-wrap:wrap;align-items:flex-start;justify-content:space-between;gap:.75rem 1rem;margin:0 0 1.5rem}',
  '.account-head h1{text-align:left;margin:0 0 .25rem}.account-head p{margin:0}.account-head>div{min-width:0;flex:1 1 14rem}',
  'section{margin:0;padding:1.5rem 0 0;border-top:1px solid var(--line)}section+section{margin-top:1.5rem}',
  'h2{font-size:1.0625rem;line-height:1.4;margin:0 0 .5rem}h3{font-size:1rem;margin:1.25rem 0 .5rem}',
  'ul.items{list-style:none;padding:0;margin:0 0 1rem;border:1px solid var(--line);border-radius:.625rem}',
  'ul.items>li{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.5rem 1rem;padding:.75rem 1rem}',
  'ul.items>li+li{border-top:1px solid var(--line)}',
  '.item-main{flex:1 1 14rem;min-width:0}.item-main>p{margin:0}.item-main>p+p{margin-top:.125rem}',
  '.item-title{font-weight:600}',
  '.item-actions{display:flex;flex-wrap:wrap;align-items:flex-start;gap:.5rem}',
  '.item-actions:has(details[open]){flex:1 1 100%}.item-actions details[open]{flex:1 1 100%}',
  '.item-actions details[open]>summary{margin:0 0 .75rem}',
  '.tag{display:inline-block;font-size:.75rem;font-weight:600;line-height:1.5;border:1px solid var(--line-strong);border-radius:1rem;padding:0 .5rem;margin-left:.5rem;vertical-align:.0625rem}',
  '.button.btn-sm{display:inline-flex;width:auto;min-height:2.25rem;padding:.375rem .875rem;font-size:.875rem;font-weight:500;gap:.5rem}',
  '.button.btn-auto{display:inline-flex;width:auto}',
  '.button.quiet-danger{color:var(--error-text)}',
  'summary.button{list-style:none;user-select:none}summary.button::-webkit-details-marker{display:none}',
  '.row{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}.row>input{flex:1 1 10rem;margin:0}',
  '.inline-actions{display:flex;flex-wrap:wrap;gap:.5rem;margin:0 0 1rem}.inline-actions>form{margin:0}',
  '.backup-codes{margin-top:1.25rem;padding-top:1rem;border-top:1px solid var(--line)}',
  'code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;overflow-wrap:anywhere}',
  '.new-key{font-size:1.0625rem;padding:.75rem;border:1px solid var(--border);border-radius:.5rem}.new-key>code{user-select:all}',
  // The offer of a first passkey, first on the page: a tinted panel, one line, one primary button.
  'section.offer{padding:1.25rem;border:1px solid var(--notice-line);border-radius:.75rem;background:var(--notice-bg)}',
  'section.offer+section{margin-top:2rem;padding-top:0;border-top:0}section.offer form .error{margin:0 0 1rem}',
  // The account's deletion, apart: a red frame, a red button with white text (6.5:1 in both schemes).
  'section.danger-zone{margin-top:2rem;padding:1.25rem;border:1px solid var(--error-border);border-radius:.75rem}',
  '.danger{background:#b91c1c;border-color:#b91c1c;color:#fff}',
  // The confirmation box: a 20 px box beside its words, the whole label a target.
  '.check{display:flex;gap:.75rem;align-items:flex-start;font-weight:400;margin:0 0 1rem;padding:.25rem 0;cursor:pointer}',
  '.check>input{flex:none;width:1.25rem;height:1.25rem;margin:.125rem 0 0;accent-color:#b91c1c;cursor:pointer}',
].join('');

/**
 * Puts every `<time data-local>` of the page in the browser's language and time zone (the server
 * wrote it in UTC, in the page's language, for when no script runs). Allowed by the page's nonce.
 */
const LOCAL_TIME_SCRIPT = [
  '(function(){var l=document.documentElement.lang,f;',
  'try{f=new Intl.DateTimeFormat(l,{dateStyle:"medium",timeStyle:"short"})}catch(e){return}',
  'document.querySelectorAll("time[data-local]").forEach(function(t){',
  'var d=new Date(t.getAttribute("datetime")||"");if(!isNaN(d))t.textContent=f.format(d)})})();',
].join('');

/** The built-in account page (`GET {basePath}/account`): works without JavaScript but for adding passkeys. */
export function renderAccountPage(p: AccountPageParams): string {
  const m = p.messages ?? ENGLISH_MESSAGES;
  const csrf = `<input type="hidden" name="csrfToken" value="${escapeAttr(p.csrfToken)}">`;
  const post = (path: string, inner: string, extra = '') =>
    `<form method="post" action="${escapeAttr(`${p.accountUrl}/${path}`)}"${extra}>${csrf}${inner}</form>`;
  const c: Ctx = { m, post, csrf, time: clock(m) };
  const who = p.user.email ?? p.user.name ?? '';
  const nonce = p.nonce ?? randomBytes(16).toString('base64');
  const prompt = p.passkeys !== undefined && p.passkeys.list.length === 0;
  const body = [
    `<div class="account-head"><div><h1>${escapeHtml(m['account.title'])}</h1>` +
      (who ? `<p class="muted">${escapeHtml(m['account.signedInAs'])} <strong>${escapeHtml(who)}</strong></p>` : '') +
      `</div><a class="button button-secondary btn-sm" href="${escapeAttr(`${p.authUrl}/signout`)}">${escapeHtml(m['account.signOut'])}</a></div>`,
    banner(m, p.notice, p.error),
    // No passkey yet: the offer to create one comes first, before the settings.
    prompt ? passkeysSection(c, p) : '',
    p.email ? emailSection(c, p.email.current) : '',
    p.password ? passwordSection(c, p.password.hasPassword, p.password.minLength ?? 8) : '',
    p.accounts ? accountsSection(c, p) : '',
    p.passkeys && !prompt ? passkeysSection(c, p) : '',
    p.twoFactor ? twoFactorSection(c, p.twoFactor) : '',
    p.sessions ? sessionsSection(c, p.sessions) : '',
    p.apiKeys ? apiKeysSection(c, p.apiKeys) : '',
    p.canDelete ? deleteSection(c) : '',
    `<script nonce="${escapeAttr(nonce)}">${LOCAL_TIME_SCRIPT}</script>`,
  ].join('\n');
  return renderPage({
    title: m['account.title'],
    lang: m.lang,
    theme: p.theme,
    body,
    css: CSS,
    busyStates: true,
    nonce,
    scriptUrls: p.passkeys ? [p.passkeys.scriptUrl] : undefined,
  });
}

/**
 * A new API key, shown once (like new backup codes): the key in a `<code>` element, what to do with
 * it, and "Continue" back to the account page (with the notice of what happened). The answer that
 * carries it is never cached (`Cache-Control: no-store`, set by the account routes).
 */
export function renderNewApiKeyPage(
  p: AccountPageNewApiKey & { continueUrl: string; theme: Required<Theme>; messages?: PageMessages },
): string {
  const m = p.messages ?? ENGLISH_MESSAGES;
  const title = m['account.apiKeys.newTitle'];
  const next = safeUrl(p.continueUrl);
  const notice = p.rotated ? 'api-key-rotated' : 'api-key-created';
  const body = [
    `<h1>${escapeHtml(title)}</h1>`,
    `<p>${escapeHtml(m['account.apiKeys.copyNow'])}</p>`,
    p.rotated ? `<p>${escapeHtml(m['account.apiKeys.replaced'])}</p>` : '',
    // The sentence before the key names it; the key is plain text (nothing hidden), read out in order.
    `<p>${html(m, 'account.apiKeys.newKeyFor', { name: `<strong>${escapeHtml(p.name)}</strong>` })}</p>`,
    `<p class="new-key"><code data-api-key>${escapeHtml(p.key)}</code></p>`,
    `<p class="muted">${escapeHtml(m['account.apiKeys.shownOnce'])}</p>`,
    next
      ? `<div class="actions"><a class="button" href="${escapeAttr(`${next}?notice=${notice}`)}">${escapeHtml(m['account.apiKeys.continue'])}</a></div>`
      : '',
  ].join('\n');
  return renderPage({ title, lang: m.lang, theme: p.theme, body, css: CSS });
}

/** The confirmation page of an email change link: a button that POSTs the token (a GET changes nothing). */
export function renderEmailChangeConfirmPage(p: {
  action: string;
  csrfToken: string;
  token: string;
  email: string;
  theme: Required<Theme>;
  messages?: PageMessages;
}): string {
  const m = p.messages ?? ENGLISH_MESSAGES;
  const body = [
    `<h1>${escapeHtml(m['account.confirmEmailTitle'])}</h1>`,
    `<p>${escapeHtml(m['account.confirmEmailText'])} <strong>${escapeHtml(p.email)}</strong></p>`,
    `<form method="post" action="${escapeAttr(p.action)}">`,
    `<input type="hidden" name="csrfToken" value="${escapeAttr(p.csrfToken)}">`,
    `<input type="hidden" name="token" value="${escapeAttr(p.token)}">`,
    `<input type="hidden" name="email" value="${escapeAttr(p.email)}">`,
    `<button type="submit" class="button">${escapeHtml(m['account.confirmEmailButton'])}</button>`,
    '</form>',
  ].join('\n');
  return renderPage({ title: m['account.confirmEmailTitle'], lang: m.lang, theme: p.theme, body, busyStates: true });
}

type Post = (path: string, inner: string, extra?: string) => string;

/** What every section renders with: the sentences, the form wrapper, the CSRF input, the dates. */
interface Ctx {
  m: PageMessages;
  post: Post;
  csrf: string;
  time: (date: Date) => string;
}

function banner(m: PageMessages, notice?: string, error?: string): string {
  if (error) {
    const text = sentenceOf(m, 'error', error) ?? m['account.error.default'];
    return `<div class="error" role="alert"><p>${escapeHtml(text)}</p></div>`;
  }
  const text = notice ? sentenceOf(m, 'notice', notice) : undefined;
  return text ? `<div class="notice" role="status"><p>${escapeHtml(text)}</p></div>` : '';
}

/** A row of a list: what it is, then its actions (right of it on a desktop, below it on a phone). */
function row(attrs: string, main: string, actions: string): string {
  return `<li${attrs}><div class="item-main">${main}</div>${actions ? `<div class="item-actions">${actions}</div>` : ''}</li>`;
}

/** A row's small button: its visible word, and a name that says which row (the word is part of it). */
function rowButton(label: string, name: string, danger = false): string {
  return `<button type="submit" class="button button-secondary btn-sm${danger ? ' quiet-danger' : ''}" aria-label="${escapeAttr(name)}">${escapeHtml(label)}</button>`;
}

/**
 * Renaming a row without a script: a disclosure ("Rename", named for the row) that opens a form with
 * the name field (labelled for the row) and "Save". Closed, the row shows only the button.
 */
function renameControl(
  c: Ctx,
  path: string,
  hidden: string,
  id: string,
  current: string | null,
  label: string,
): string {
  const { m } = c;
  const form = c.post(
    path,
    `${hidden}<label for="${id}">${escapeHtml(text(m, 'account.newNameFor', { name: label }))}</label>` +
      `<div class="row"><input id="${id}" name="name" maxlength="64" autocomplete="off" value="${escapeAttr(current ?? '')}">` +
      `<button type="submit" class="button btn-sm" aria-label="${escapeAttr(text(m, 'account.saveNamed', { name: label }))}">${escapeHtml(m['account.save'])}</button></div>`,
  );
  return (
    `<details class="rename"><summary class="button button-secondary btn-sm" aria-label="${escapeAttr(text(m, 'account.renameNamed', { name: label }))}">` +
    `${escapeHtml(m['account.rename'])}</summary>${form}</details>`
  );
}

/**
 * The rows' names, told apart: a name two rows share gets a number ("Chrome on macOS (2)"), so each
 * row and each of its buttons has a name of its own.
 */
function distinct(m: PageMessages, names: string[]): string[] {
  // "Laptop" and "laptop" sound the same to a screen reader: told apart too.
  const key = (name: string) => name.toLowerCase();
  const total = new Map<string, number>();
  for (const name of names) total.set(key(name), (total.get(key(name)) ?? 0) + 1);
  const seen = new Map<string, number>();
  return names.map((name) => {
    if (total.get(key(name)) === 1) return name;
    const n = (seen.get(key(name)) ?? 0) + 1;
    seen.set(key(name), n);
    return text(m, 'account.nth', { name, n });
  });
}

/** A session's device in the page's language ("Chrome unter macOS"); a label it does not know, as it is. */
function deviceLabel(m: PageMessages, label: string | null): string {
  if (!label) return m['account.unknownDevice'];
  const parts = userAgentLabelParts(label);
  if (!parts) return label;
  const browser = parts.browser ?? m['account.unknownBrowser'];
  return parts.system ? text(m, 'account.device', { browser, system: parts.system }) : browser;
}

/**
 * Dates as `<time datetime="…" data-local>`: in the page's language and UTC from the server, then in
 * the browser's language and time zone by {@link LOCAL_TIME_SCRIPT}.
 */
function clock(m: PageMessages): (date: Date) => string {
  const options: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' };
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat(m.lang, options);
  } catch {
    // A well-formed tag Intl still refuses: the dates stay readable in English.
    format = new Intl.DateTimeFormat('en', options);
  }
  return (date) => {
    if (dateMs(date) === undefined) return '';
    const shown = text(m, 'account.timeUtc', { time: format.format(date) });
    return `<time datetime="${escapeAttr(date.toISOString())}" data-local>${escapeHtml(shown)}</time>`;
  };
}

/**
 * An expiry day (`YYYY-MM-DD`, kept as its start in UTC): the day picked, in the page's language,
 * never moved to another day by a time zone.
 */
function day(m: PageMessages, date: Date): string {
  if (dateMs(date) === undefined) return '';
  let shown: string;
  try {
    shown = new Intl.DateTimeFormat(m.lang, { dateStyle: 'medium', timeZone: 'UTC' }).format(date);
  } catch {
    shown = date.toISOString().slice(0, 10);
  }
  return `<time datetime="${escapeAttr(date.toISOString().slice(0, 10))}">${escapeHtml(shown)}</time>`;
}

function sessionsSection(c: Ctx, sessions: AccountPageSession[]): string {
  const { m, post } = c;
  // Numbered among the sessions that can be ended: the current one has no button and its tag.
  const others = distinct(
    m,
    sessions.filter((s) => !s.current).map((s) => deviceLabel(m, s.userAgent)),
  );
  let other = 0;
  const labels = sessions.map((s) => (s.current ? deviceLabel(m, s.userAgent) : others[other++]!));
  const items = sessions.map((s, i) => {
    const label = labels[i]!;
    const title = `${escapeHtml(label)}${s.current ? `<span class="tag">${escapeHtml(m['account.thisDevice'])}</span>` : ''}`;
    const when = [
      s.createdAt ? `${escapeHtml(m['account.started'])} ${c.time(s.createdAt)}` : '',
      s.lastSeenAt ? `${escapeHtml(m['account.lastSeen'])} ${c.time(s.lastSeenAt)}` : '',
    ]
      .filter(Boolean)
      .join(', ');
    const end = s.current
      ? ''
      : post(
          'sessions/end',
          `<input type="hidden" name="id" value="${escapeAttr(s.id)}">` +
            rowButton(m['account.endSession'], text(m, 'account.endSessionNamed', { device: label }), true),
        );
    return row(
      s.current ? ' aria-current="true"' : '',
      `<p class="item-title">${title}</p>${when ? `<p class="muted">${when}</p>` : ''}`,
      end,
    );
  });
  const endOthers = sessions.some((s) => !s.current)
    ? `<div class="inline-actions">${post(
        'sessions/end-others',
        `<button type="submit" class="button button-secondary btn-auto">${escapeHtml(m['account.endOtherSessions'])}</button>`,
      )}</div>`
    : '';
  return section(
    'sessions',
    m['account.sessionsHeading'],
    `<p class="muted">${escapeHtml(m['account.sessionsIntro'])}</p><ul class="items">${items.join('')}</ul>${endOthers}`,
  );
}

function accountsSection(c: Ctx, p: AccountPageParams): string {
  const { m, post, csrf } = c;
  const { linked, linkable } = p.accounts!;
  const names = distinct(
    m,
    linked.map((a) => a.name),
  );
  const items = linked.map((a, i) =>
    row(
      '',
      `<p class="item-title">${escapeHtml(names[i]!)}</p>`,
      post(
        'accounts/unlink',
        `<input type="hidden" name="provider" value="${escapeAttr(a.provider)}"><input type="hidden" name="providerAccountId" value="${escapeAttr(a.providerAccountId)}">` +
          rowButton(m['account.unlink'], text(m, 'account.unlinkNamed', { name: names[i]! }), true),
      ),
    ),
  );
  // Back with a notice: the provider's callback comes here only once the account is linked.
  const back = `${p.accountUrl}?notice=account-linked`;
  const links = linkable.map(
    (l) =>
      `<form method="post" action="${escapeAttr(`${p.authUrl}/link/${encodeURIComponent(l.id)}`)}">${csrf}<input type="hidden" name="callbackUrl" value="${escapeAttr(back)}">` +
      `<button type="submit" class="button button-secondary btn-auto">${escapeHtml(text(m, 'account.link', { provider: l.name }))}</button></form>`,
  );
  const list = linked.length
    ? `<ul class="items">${items.join('')}</ul>`
    : `<p>${escapeHtml(m['account.noAccounts'])}</p>`;
  return section(
    'accounts',
    m['account.accountsHeading'],
    `${list}${links.length ? `<div class="inline-actions">${links.join('')}</div>` : ''}`,
  );
}

function passkeysSection(c: Ctx, p: AccountPageParams): string {
  const { m, post, csrf } = c;
  const { list, provider } = p.passkeys!;
  const labels = distinct(
    m,
    list.map((k) => k.name ?? m['account.unnamedPasskey']),
  );
  const items = list.map((k, i) => {
    const label = labels[i]!;
    const kind =
      k.credentialDeviceType === 'multiDevice' ? m['account.syncedPasskey'] : m['account.deviceBoundPasskey'];
    const used = k.lastUsedAt
      ? `${escapeHtml(m['account.lastUsed'])} ${c.time(k.lastUsedAt)}`
      : escapeHtml(m['account.neverUsed']);
    const hidden = `<input type="hidden" name="credentialID" value="${escapeAttr(k.credentialID)}">`;
    const rename = renameControl(c, 'passkeys/rename', hidden, `passkey-name-${i}`, k.name, label);
    const remove = post(
      'passkeys/delete',
      `${hidden}${rowButton(m['account.remove'], text(m, 'account.removeNamed', { name: label }), true)}`,
    );
    return row(
      ' data-passkey',
      `<p class="item-title">${escapeHtml(label)}<span class="tag">${escapeHtml(kind)}</span></p><p class="muted">${used}</p>`,
      `${rename}${remove}`,
    );
  });
  // Without a passkey the button is the section's one primary action; beside a list, a quiet one.
  const add =
    `<form data-webauthn-provider="${escapeAttr(provider)}" data-webauthn-action="register" data-webauthn-base-url="${escapeAttr(p.authUrl)}">${csrf}` +
    `<input type="hidden" name="callbackUrl" value="${escapeAttr(`${p.accountUrl}?notice=passkey-added`)}">` +
    `<p class="error" data-webauthn-error id="passkey-error" role="alert" hidden></p>` +
    `<button type="submit" class="button${list.length ? ' button-secondary' : ''} btn-auto">${escapeHtml(m['account.addPasskey'])}</button><noscript><p class="muted">${escapeHtml(m['account.passkeysNeedScript'])}</p></noscript></form>`;
  if (!list.length)
    return section(
      'passkeys',
      m['account.passkeysHeading'],
      `<p data-passkey-offer>${escapeHtml(m['account.passkeysOffer'])}</p>${add}`,
      'offer',
    );
  return section('passkeys', m['account.passkeysHeading'], `<ul class="items">${items.join('')}</ul>${add}`);
}

function twoFactorSection(c: Ctx, t: NonNullable<AccountPageParams['twoFactor']>): string {
  const { m, post } = c;
  const labels = distinct(
    m,
    t.factors.map((f) => f.name ?? m['twoFactor.account.unnamed']),
  );
  const items = t.factors.map((f, i) => {
    const label = labels[i]!;
    const when = [
      `${escapeHtml(m['twoFactor.account.added'])} ${c.time(f.createdAt)}`,
      f.lastUsedAt
        ? `${escapeHtml(m['account.lastUsed'])} ${c.time(f.lastUsedAt)}`
        : escapeHtml(m['account.neverUsed']),
    ].join(', ');
    const hidden = `<input type="hidden" name="id" value="${escapeAttr(f.id)}">`;
    const rename = renameControl(c, 'two-factor/rename', hidden, `two-factor-name-${i}`, f.name, label);
    const remove = post(
      'two-factor/remove',
      `${hidden}${rowButton(m['account.remove'], text(m, 'account.removeNamed', { name: label }), true)}`,
    );
    return row(
      ' data-two-factor',
      `<p class="item-title">${escapeHtml(label)}</p><p class="muted">${when}</p>`,
      `${rename}${remove}`,
    );
  });
  const listed = t.factors.length
    ? `<ul class="items">${items.join('')}</ul>`
    : `<p>${escapeHtml(m['twoFactor.account.none'])}</p>`;
  const add = post(
    'two-factor/totp',
    `<button type="submit" class="button button-secondary btn-auto">${escapeHtml(m['twoFactor.account.add'])}</button>`,
  );
  // Backup codes come with the first app: without one there is nothing they could stand in for.
  const backup =
    t.factors.length || t.backupCodesLeft
      ? `<p data-backup-codes-left="${escapeAttr(t.backupCodesLeft)}">${escapeHtml(text(m, 'twoFactor.account.backupCodesLeft', { count: t.backupCodesLeft }))}</p>` +
        (t.backupCodesLeft ? '' : `<p>${escapeHtml(m['twoFactor.account.noBackupCodes'])}</p>`) +
        post(
          'two-factor/backup-codes',
          `<p class="muted">${escapeHtml(m['twoFactor.account.regenerateNote'])}</p><button type="submit" class="button button-secondary btn-auto">${escapeHtml(m['twoFactor.account.regenerate'])}</button>`,
        )
      : '';
  return section(
    'two-factor',
    m['twoFactor.title'],
    `<p class="muted">${escapeHtml(m['twoFactor.intro'])}</p>` +
      (t.required
        ? `<p class="muted" data-two-factor-required>${escapeHtml(m['twoFactor.account.required'])}</p>`
        : '') +
      `${listed}${add}${backup ? `<div class="backup-codes">${backup}</div>` : ''}`,
  );
}

/**
 * The user's API keys (never a key: its name, `…hint`, scopes, dates), each with rotate and revoke
 * forms, and the create form. The expiry is a day (`YYYY-MM-DD`, what a date input sends; a browser
 * without one gets a text field and the pattern), which the server reads as its start in UTC: the
 * earliest a person can pick is tomorrow.
 */
function apiKeysSection(c: Ctx, a: NonNullable<AccountPageParams['apiKeys']>): string {
  const { m, post } = c;
  const now = Date.now();
  const names = distinct(
    m,
    a.keys.map((k) => k.name),
  );
  const items = a.keys.map((k, i) => {
    const name = names[i]!;
    const expired = k.expires !== null && isExpiredDate(k.expires, now);
    const title = `${escapeHtml(name)}${expired ? `<span class="tag">${escapeHtml(m['account.apiKeys.expired'])}</span>` : ''}`;
    const hint = html(m, 'account.apiKeys.endsIn', { hint: `<code>…${escapeHtml(k.hint)}</code>` });
    const scopes = k.scopes.length
      ? `${escapeHtml(m['account.apiKeys.scopes'])}: ${k.scopes.map((s) => `<code>${escapeHtml(s)}</code>`).join(' ')}`
      : escapeHtml(m['account.apiKeys.noScopes']);
    const when = [
      `${escapeHtml(m['account.apiKeys.created'])} ${c.time(k.createdAt)}`,
      k.expires
        ? `${escapeHtml(m[expired ? 'account.apiKeys.expiredOn' : 'account.apiKeys.expires'])} ${day(m, k.expires)}`
        : escapeHtml(m['account.apiKeys.noExpiry']),
    ].join(', ');
    const used = k.lastUsedAt
      ? `${escapeHtml(m['account.lastUsed'])} ${c.time(k.lastUsedAt)}`
      : escapeHtml(m['account.neverUsed']);
    const hidden = `<input type="hidden" name="id" value="${escapeAttr(k.id)}">`;
    const button = (key: 'rotate' | 'revoke') =>
      rowButton(m[`account.apiKeys.${key}`], text(m, `account.apiKeys.${key}Named`, { name }), key === 'revoke');
    return row(
      ' data-api-key',
      `<p class="item-title">${title}</p><p class="muted">${hint}</p><p class="muted">${scopes}</p>` +
        `<p class="muted">${when}</p><p class="muted">${used}</p>`,
      `${post('api-keys/rotate', `${hidden}${button('rotate')}`)}${post('api-keys/revoke', `${hidden}${button('revoke')}`)}`,
    );
  });
  const listed = a.keys.length
    ? `<p class="muted">${escapeHtml(m['account.apiKeys.rotateNote'])}</p><ul class="items">${items.join('')}</ul>`
    : `<p>${escapeHtml(m['account.apiKeys.none'])}</p>`;
  const scopesHint = a.scopes
    ? text(m, 'account.apiKeys.scopesAvailable', { scopes: a.scopes.join(' ') })
    : m['account.apiKeys.scopesHint'];
  const create =
    a.keys.length >= a.max
      ? `<p data-api-keys-limit>${escapeHtml(text(m, 'account.apiKeys.limit', { max: a.max }))}</p>`
      : post(
          'api-keys/create',
          `<label for="api-key-name">${escapeHtml(m['account.apiKeys.nameLabel'])}</label>` +
            `<input id="api-key-name" name="name" type="text" maxlength="100" autocomplete="off" required aria-describedby="api-key-name-hint">` +
            `<p class="muted" id="api-key-name-hint">${escapeHtml(m['account.apiKeys.nameHint'])}</p>` +
            `<label for="api-key-scopes">${escapeHtml(m['account.apiKeys.scopesLabel'])}</label>` +
            `<input id="api-key-scopes" name="scopes" type="text" autocomplete="off" autocapitalize="none" spellcheck="false" aria-describedby="api-key-scopes-hint">` +
            `<p class="muted" id="api-key-scopes-hint">${escapeHtml(scopesHint)}</p>` +
            `<label for="api-key-expires">${escapeHtml(m['account.apiKeys.expiresLabel'])}</label>` +
            `<input id="api-key-expires" name="expires" type="date" pattern="\\d{4}-\\d{2}-\\d{2}" min="${escapeAttr(new Date(now + 86_400_000).toISOString().slice(0, 10))}" aria-describedby="api-key-expires-hint">` +
            `<p class="muted" id="api-key-expires-hint">${escapeHtml(m['account.apiKeys.expiresHint'])}</p>` +
            `<button type="submit" class="button btn-auto">${escapeHtml(m['account.apiKeys.create'])}</button>`,
        );
  return section(
    'api-keys',
    m['account.apiKeys.heading'],
    `<p class="muted">${escapeHtml(m['account.apiKeys.intro'])}</p>${listed}` +
      `<h3 id="api-key-create-heading">${escapeHtml(m['account.apiKeys.createHeading'])}</h3>${create}`,
  );
}

function emailSection(c: Ctx, current: string | null): string {
  const { m, post } = c;
  const now = current
    ? `<p>${escapeHtml(m['account.currentEmail'])}: <strong>${escapeHtml(current)}</strong></p>`
    : `<p>${escapeHtml(m['account.noEmail'])}</p>`;
  const form = post(
    'email',
    `<label for="new-email">${escapeHtml(m['account.newEmail'])}</label><input id="new-email" name="email" type="email" autocomplete="email" required>` +
      `<button type="submit" class="button button-secondary btn-auto">${escapeHtml(m['account.changeEmail'])}</button>`,
  );
  return section('email', m['account.emailHeading'], `${now}${form}`);
}

function passwordSection(c: Ctx, hasPassword: boolean, minLength: number): string {
  const { m, post } = c;
  const current = hasPassword
    ? `<label for="current-password">${escapeHtml(m['account.currentPassword'])}</label><input id="current-password" name="currentPassword" type="password" autocomplete="current-password" required>`
    : '';
  const form = post(
    'password',
    `${current}<label for="new-password">${escapeHtml(m['account.newPassword'])}</label><input id="new-password" name="newPassword" type="password" autocomplete="new-password" minlength="${minLength}" required>` +
      `<button type="submit" class="button button-secondary btn-auto">${escapeHtml(hasPassword ? m['account.changePassword'] : m['account.setPassword'])}</button>`,
  );
  return section('password', m['account.passwordHeading'], form);
}

/**
 * Deleting the account, apart from everything else: the warning, a box to tick (required by the
 * browser, and checked again by the server: `confirm=yes`), then the red button. No script needed.
 */
function deleteSection(c: Ctx): string {
  const { m, post } = c;
  const form = post(
    'delete',
    `<p>${escapeHtml(m['account.deleteWarning'])}</p><label class="check"><input type="checkbox" name="confirm" value="yes" required> <span>${escapeHtml(m['account.deleteConfirm'])}</span></label>` +
      `<button type="submit" class="button btn-auto danger">${escapeHtml(m['account.deleteAccount'])}</button>`,
  );
  return section('delete', m['account.deleteHeading'], form, 'danger-zone');
}

function section(id: string, heading: string, inner: string, className = ''): string {
  return `<section aria-labelledby="${id}-heading"${className ? ` class="${className}"` : ''}><h2 id="${id}-heading">${escapeHtml(heading)}</h2>${inner}</section>`;
}
