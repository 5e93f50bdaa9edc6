import type { Theme } from '../config/auth-options.interface.js';
import { ENGLISH_MESSAGES, html, text, type PageMessages } from '../config/messages/page-messages.js';
import { escapeAttr, escapeHtml, safeUrl } from '../util/html-escape.js';
import { isExpiredDate } from '../util/instant.js';
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
}

const CSS =
  'main{max-width:40rem}section{margin-top:1.75rem}h2{font-size:1.125rem;margin:0 0 .75rem}' +
  'ul.items{list-style:none;padding:0;margin:0 0 1rem}ul.items>li{border:1px solid var(--border);border-radius:.5rem;padding:.75rem;margin:0 0 .75rem}' +
  '.row{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end}.row>input{flex:1 1 10rem;margin:0}.row>.button{width:auto}' +
  '.tag{display:inline-block;font-size:.75rem;font-weight:600;border:1px solid var(--border);border-radius:1rem;padding:0 .5rem;margin-left:.5rem}' +
  '.item-title{font-weight:600;margin:0 0 .25rem}.inline{display:inline}.danger{background:var(--error-border);color:#fff}' +
  '.check{display:flex;gap:.5rem;align-items:center;font-weight:400}.check>input{width:auto;margin:0}' +
  '.backup-codes{margin-top:1.25rem}h3{font-size:1rem;margin:1.25rem 0 .5rem}' +
  'code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;overflow-wrap:anywhere}' +
  '.new-key{font-size:1.0625rem;padding:.75rem;border:1px solid var(--border);border-radius:.5rem}.new-key>code{user-select:all}';

/** The built-in account page (`GET {basePath}/account`): works without JavaScript but for adding passkeys. */
export function renderAccountPage(p: AccountPageParams): string {
  const m = p.messages ?? ENGLISH_MESSAGES;
  const csrf = `<input type="hidden" name="csrfToken" value="${escapeAttr(p.csrfToken)}">`;
  const post = (path: string, inner: string, extra = '') =>
    `<form method="post" action="${escapeAttr(`${p.accountUrl}/${path}`)}"${extra}>${csrf}${inner}</form>`;
  const who = p.user.email ?? p.user.name ?? '';
  const body = [
    `<h1>${escapeHtml(m['account.title'])}</h1>`,
    who ? `<p>${escapeHtml(m['account.signedInAs'])} <strong>${escapeHtml(who)}</strong></p>` : '',
    banner(m, p.notice, p.error),
    p.sessions ? sessionsSection(m, p.sessions, post) : '',
    p.accounts ? accountsSection(m, p, csrf, post) : '',
    p.passkeys ? passkeysSection(m, p, csrf, post) : '',
    p.twoFactor ? twoFactorSection(m, p.twoFactor, post) : '',
    p.apiKeys ? apiKeysSection(m, p.apiKeys, post) : '',
    p.email ? emailSection(m, p.email.current, post) : '',
    p.password ? passwordSection(m, p.password.hasPassword, p.password.minLength ?? 8, post) : '',
    p.canDelete ? deleteSection(m, post) : '',
    `<p class="muted"><a href="${escapeAttr(`${p.authUrl}/signout`)}">${escapeHtml(m['account.signOut'])}</a></p>`,
  ].join('\n');
  return renderPage({
    title: m['account.title'],
    lang: m.lang,
    theme: p.theme,
    body,
    css: CSS,
    busyStates: true,
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

function banner(m: PageMessages, notice?: string, error?: string): string {
  if (error) {
    const text = sentenceOf(m, 'error', error) ?? m['account.error.default'];
    return `<div class="error" role="alert"><p>${escapeHtml(text)}</p></div>`;
  }
  const text = notice ? sentenceOf(m, 'notice', notice) : undefined;
  return text ? `<div class="notice" role="status"><p>${escapeHtml(text)}</p></div>` : '';
}

function sessionsSection(m: PageMessages, sessions: AccountPageSession[], post: Post): string {
  const items = sessions.map((s) => {
    const title = `${escapeHtml(s.userAgent ?? m['account.unknownDevice'])}${s.current ? `<span class="tag">${escapeHtml(m['account.thisDevice'])}</span>` : ''}`;
    const when = [
      s.createdAt ? `${escapeHtml(m['account.started'])} ${time(s.createdAt)}` : '',
      s.lastSeenAt ? `${escapeHtml(m['account.lastSeen'])} ${time(s.lastSeenAt)}` : '',
    ]
      .filter(Boolean)
      .join(', ');
    const end = s.current
      ? ''
      : post(
          'sessions/end',
          `<input type="hidden" name="id" value="${escapeAttr(s.id)}"><button type="submit" class="button button-secondary">${escapeHtml(m['account.endSession'])}</button>`,
        );
    return `<li${s.current ? ' aria-current="true"' : ''}><p class="item-title">${title}</p>${when ? `<p class="muted">${when}</p>` : ''}${end}</li>`;
  });
  const others = sessions.some((s) => !s.current)
    ? post(
        'sessions/end-others',
        `<button type="submit" class="button button-secondary">${escapeHtml(m['account.endOtherSessions'])}</button>`,
      )
    : '';
  return section(
    'sessions',
    m['account.sessionsHeading'],
    `<p class="muted">${escapeHtml(m['account.sessionsIntro'])}</p><ul class="items">${items.join('')}</ul>${others}`,
  );
}

function accountsSection(m: PageMessages, p: AccountPageParams, csrf: string, post: Post): string {
  const { linked, linkable } = p.accounts!;
  const items = linked.map((a) => {
    const form = post(
      'accounts/unlink',
      `<input type="hidden" name="provider" value="${escapeAttr(a.provider)}"><input type="hidden" name="providerAccountId" value="${escapeAttr(a.providerAccountId)}">` +
        `<button type="submit" class="button button-secondary" aria-label="${escapeAttr(text(m, 'account.unlinkNamed', { name: a.name }))}">${escapeHtml(m['account.unlink'])}</button>`,
    );
    return `<li><p class="item-title">${escapeHtml(a.name)}</p>${form}</li>`;
  });
  const links = linkable.map(
    (l) =>
      `<form method="post" action="${escapeAttr(`${p.authUrl}/link/${encodeURIComponent(l.id)}`)}">${csrf}<input type="hidden" name="callbackUrl" value="${escapeAttr(p.accountUrl)}">` +
      `<button type="submit" class="button button-secondary">${escapeHtml(text(m, 'account.link', { provider: l.name }))}</button></form>`,
  );
  const list = linked.length
    ? `<ul class="items">${items.join('')}</ul>`
    : `<p>${escapeHtml(m['account.noAccounts'])}</p>`;
  return section('accounts', m['account.accountsHeading'], `${list}<div class="actions">${links.join('')}</div>`);
}

function passkeysSection(m: PageMessages, p: AccountPageParams, csrf: string, post: Post): string {
  const { list, provider } = p.passkeys!;
  const items = list.map((k, i) => {
    const label = k.name ?? m['account.unnamedPasskey'];
    const kind =
      k.credentialDeviceType === 'multiDevice' ? m['account.syncedPasskey'] : m['account.deviceBoundPasskey'];
    const used = k.lastUsedAt
      ? `${escapeHtml(m['account.lastUsed'])} ${time(k.lastUsedAt)}`
      : escapeHtml(m['account.neverUsed']);
    const id = `passkey-name-${i}`;
    const hidden = `<input type="hidden" name="credentialID" value="${escapeAttr(k.credentialID)}">`;
    const rename = post(
      'passkeys/rename',
      `${hidden}<label for="${id}">${escapeHtml(m['account.passkeyName'])}</label><div class="row"><input id="${id}" name="name" maxlength="64" autocomplete="off" value="${escapeAttr(k.name ?? '')}">` +
        `<button type="submit" class="button button-secondary" aria-label="${escapeAttr(text(m, 'account.renameNamed', { name: label }))}">${escapeHtml(m['account.rename'])}</button></div>`,
    );
    const remove = post(
      'passkeys/delete',
      `${hidden}<button type="submit" class="button button-secondary" aria-label="${escapeAttr(text(m, 'account.removeNamed', { name: label }))}">${escapeHtml(m['account.remove'])}</button>`,
    );
    return `<li data-passkey><p class="item-title">${escapeHtml(label)}<span class="tag">${escapeHtml(kind)}</span></p><p class="muted">${used}</p>${rename}<div class="actions">${remove}</div></li>`;
  });
  const add =
    `<form data-webauthn-provider="${escapeAttr(provider)}" data-webauthn-action="register" data-webauthn-base-url="${escapeAttr(p.authUrl)}">${csrf}` +
    `<input type="hidden" name="callbackUrl" value="${escapeAttr(`${p.accountUrl}?notice=passkey-added`)}">` +
    `<p class="error" data-webauthn-error id="passkey-error" role="alert" hidden></p>` +
    `<button type="submit" class="button">${escapeHtml(m['account.addPasskey'])}</button><noscript><p class="muted">${escapeHtml(m['account.passkeysNeedScript'])}</p></noscript></form>`;
  const listed = list.length
    ? `<ul class="items">${items.join('')}</ul>`
    : `<p>${escapeHtml(m['account.noPasskeys'])}</p>`;
  return section('passkeys', m['account.passkeysHeading'], `${listed}${add}`);
}

function twoFactorSection(m: PageMessages, t: NonNullable<AccountPageParams['twoFactor']>, post: Post): string {
  const items = t.factors.map((f, i) => {
    const label = f.name ?? m['twoFactor.account.unnamed'];
    const when = [
      `${escapeHtml(m['twoFactor.account.added'])} ${time(f.createdAt)}`,
      f.lastUsedAt ? `${escapeHtml(m['account.lastUsed'])} ${time(f.lastUsedAt)}` : escapeHtml(m['account.neverUsed']),
    ].join(', ');
    const id = `two-factor-name-${i}`;
    const hidden = `<input type="hidden" name="id" value="${escapeAttr(f.id)}">`;
    const rename = post(
      'two-factor/rename',
      `${hidden}<label for="${id}">${escapeHtml(m['twoFactor.account.nameLabel'])}</label><div class="row"><input id="${id}" name="name" maxlength="64" autocomplete="off" value="${escapeAttr(f.name ?? '')}">` +
        `<button type="submit" class="button button-secondary" aria-label="${escapeAttr(text(m, 'account.renameNamed', { name: label }))}">${escapeHtml(m['account.rename'])}</button></div>`,
    );
    const remove = post(
      'two-factor/remove',
      `${hidden}<button type="submit" class="button button-secondary" aria-label="${escapeAttr(text(m, 'account.removeNamed', { name: label }))}">${escapeHtml(m['account.remove'])}</button>`,
    );
    return `<li data-two-factor><p class="item-title">${escapeHtml(label)}</p><p class="muted">${when}</p>${rename}<div class="actions">${remove}</div></li>`;
  });
  const listed = t.factors.length
    ? `<ul class="items">${items.join('')}</ul>`
    : `<p>${escapeHtml(m['twoFactor.account.none'])}</p>`;
  const add = post(
    'two-factor/totp',
    `<button type="submit" class="button">${escapeHtml(m['twoFactor.account.add'])}</button>`,
  );
  // Backup codes come with the first app: without one there is nothing they could stand in for.
  const backup =
    t.factors.length || t.backupCodesLeft
      ? `<p data-backup-codes-left="${escapeAttr(t.backupCodesLeft)}">${escapeHtml(text(m, 'twoFactor.account.backupCodesLeft', { count: t.backupCodesLeft }))}</p>` +
        (t.backupCodesLeft ? '' : `<p>${escapeHtml(m['twoFactor.account.noBackupCodes'])}</p>`) +
        post(
          'two-factor/backup-codes',
          `<p class="muted">${escapeHtml(m['twoFactor.account.regenerateNote'])}</p><button type="submit" class="button button-secondary">${escapeHtml(m['twoFactor.account.regenerate'])}</button>`,
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
function apiKeysSection(m: PageMessages, a: NonNullable<AccountPageParams['apiKeys']>, post: Post): string {
  const now = Date.now();
  const items = a.keys.map((k) => {
    const expired = k.expires !== null && isExpiredDate(k.expires, now);
    const title = `${escapeHtml(k.name)}${expired ? `<span class="tag">${escapeHtml(m['account.apiKeys.expired'])}</span>` : ''}`;
    const hint = html(m, 'account.apiKeys.endsIn', { hint: `<code>…${escapeHtml(k.hint)}</code>` });
    const scopes = k.scopes.length
      ? `${escapeHtml(m['account.apiKeys.scopes'])}: ${k.scopes.map((s) => `<code>${escapeHtml(s)}</code>`).join(' ')}`
      : escapeHtml(m['account.apiKeys.noScopes']);
    const when = [
      `${escapeHtml(m['account.apiKeys.created'])} ${time(k.createdAt)}`,
      k.expires
        ? `${escapeHtml(m[expired ? 'account.apiKeys.expiredOn' : 'account.apiKeys.expires'])} ${time(k.expires)}`
        : escapeHtml(m['account.apiKeys.noExpiry']),
    ].join(', ');
    const used = k.lastUsedAt
      ? `${escapeHtml(m['account.lastUsed'])} ${time(k.lastUsedAt)}`
      : escapeHtml(m['account.neverUsed']);
    const hidden = `<input type="hidden" name="id" value="${escapeAttr(k.id)}">`;
    const button = (key: 'rotate' | 'revoke') =>
      `<button type="submit" class="button button-secondary" aria-label="${escapeAttr(text(m, `account.apiKeys.${key}Named`, { name: k.name }))}">${escapeHtml(m[`account.apiKeys.${key}`])}</button>`;
    return (
      `<li data-api-key><p class="item-title">${title}</p><p class="muted">${hint}</p><p class="muted">${scopes}</p>` +
      `<p class="muted">${when}</p><p class="muted">${used}</p>` +
      `<div class="actions">${post('api-keys/rotate', `${hidden}${button('rotate')}`)}${post('api-keys/revoke', `${hidden}${button('revoke')}`)}</div></li>`
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
            `<button type="submit" class="button">${escapeHtml(m['account.apiKeys.create'])}</button>`,
        );
  return section(
    'api-keys',
    m['account.apiKeys.heading'],
    `<p class="muted">${escapeHtml(m['account.apiKeys.intro'])}</p>${listed}` +
      `<h3 id="api-key-create-heading">${escapeHtml(m['account.apiKeys.createHeading'])}</h3>${create}`,
  );
}

function emailSection(m: PageMessages, current: string | null, post: Post): string {
  const now = current
    ? `<p>${escapeHtml(m['account.currentEmail'])}: <strong>${escapeHtml(current)}</strong></p>`
    : `<p>${escapeHtml(m['account.noEmail'])}</p>`;
  const form = post(
    'email',
    `<label for="new-email">${escapeHtml(m['account.newEmail'])}</label><input id="new-email" name="email" type="email" autocomplete="email" required>` +
      `<button type="submit" class="button button-secondary">${escapeHtml(m['account.changeEmail'])}</button>`,
  );
  return section('email', m['account.emailHeading'], `${now}${form}`);
}

function passwordSection(m: PageMessages, hasPassword: boolean, minLength: number, post: Post): string {
  const current = hasPassword
    ? `<label for="current-password">${escapeHtml(m['account.currentPassword'])}</label><input id="current-password" name="currentPassword" type="password" autocomplete="current-password" required>`
    : '';
  const form = post(
    'password',
    `${current}<label for="new-password">${escapeHtml(m['account.newPassword'])}</label><input id="new-password" name="newPassword" type="password" autocomplete="new-password" minlength="${minLength}" required>` +
      `<button type="submit" class="button button-secondary">${escapeHtml(hasPassword ? m['account.changePassword'] : m['account.setPassword'])}</button>`,
  );
  return section('password', m['account.passwordHeading'], form);
}

function deleteSection(m: PageMessages, post: Post): string {
  const form = post(
    'delete',
    `<p>${escapeHtml(m['account.deleteWarning'])}</p><label class="check"><input type="checkbox" name="confirm" value="yes" required> ${escapeHtml(m['account.deleteConfirm'])}</label>` +
      `<div class="actions"><button type="submit" class="button danger">${escapeHtml(m['account.deleteAccount'])}</button></div>`,
  );
  return section('delete', m['account.deleteHeading'], form);
}

function section(id: string, heading: string, inner: string): string {
  return `<section aria-labelledby="${id}-heading"><h2 id="${id}-heading">${escapeHtml(heading)}</h2>${inner}</section>`;
}

/** A date in UTC, to the minute, in a `<time>` element. */
function time(date: Date): string {
  const iso = date.toISOString();
  return `<time datetime="${escapeAttr(iso)}">${escapeHtml(`${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`)}</time>`;
}
