// The pages of two-factor authentication: the code asked for after the first factor, setting up an
// authenticator app, and the backup codes shown once. Plain forms and links: no script needed but
// for a passkey as the second factor.
import { ENGLISH_MESSAGES, text } from '../config/messages/page-messages.js';
import { escapeAttr, escapeHtml, safeUrl } from '../util/html-escape.js';
import { hiddenInputs } from './form-fields.js';
import { renderPage } from './page-layout.js';
import type {
  BackupCodesPageParams,
  TwoFactorChallengePageParams,
  TwoFactorEnrolPageParams,
  TwoFactorMethod,
} from './page.types.js';

/** The id of the refused code's message, which the code field points at (`aria-describedby`). */
const ERROR_ID = 'two-factor-error';
const CODE_ID = 'two-factor-code';
const HINT_ID = 'two-factor-hint';

const CSS =
  '.check{display:flex;gap:.5rem;align-items:center;font-weight:400;margin:0 0 1rem}.check>input{width:1.25rem;height:1.25rem;margin:0;flex:none}' +
  '.qr{width:13rem;max-width:100%;margin:0 auto 1rem;background:#fff;border-radius:.25rem}.qr>svg{display:block;width:100%;height:auto}' +
  // The other ways to prove it: quiet links under the primary action, centred.
  '.other-ways{margin-top:1.5rem}.other-ways>form{margin:0}.card>[data-webauthn-error]{margin:1rem 0 0}' +
  '.center{text-align:center}.secret{text-align:center;font-size:1.0625rem;margin:.75rem 0 0}' +
  // The disclosures (the key to type in; the setup again after a refused code): link-like, centred.
  '.manual,.setup{margin:0 0 1.5rem;text-align:center}.setup[open]{text-align:left}' +
  '.manual>summary,.setup>summary{display:block;width:fit-content;margin:0 auto;min-height:1.5rem;cursor:pointer;color:var(--link);font-weight:500;text-decoration:underline;text-underline-offset:.2em}' +
  '.manual>summary:hover,.setup>summary:hover{text-decoration-thickness:2px}.setup[open]>summary{margin-bottom:1rem}' +
  // The key is the fallback of the QR code: quieter than "Open in your authenticator app" above it.
  '.manual>summary{font-size:.875rem}' +
  '.open-app{margin:0 0 .5rem}' +
  // On a phone the code is scanned by another device, if at all ("Open in your authenticator app"): smaller.
  '@media (max-width:30rem){.qr{width:8rem}}' +
  'code,ol.codes{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace}' +
  'code[data-secret]{word-spacing:.25em;overflow-wrap:anywhere}' +
  'ol.codes{columns:2 15ch;column-gap:2rem;font-size:1.0625rem;margin:0 0 1rem;padding-left:2rem}ol.codes>li{break-inside:avoid;white-space:nowrap;padding:.125rem 0}';

/** `otpauth://totp/…`: the only URI of that scheme a page links to. */
const OTPAUTH = /^otpauth:\/\/totp\/[^\s<>"'`]+$/;

/**
 * The second step of a sign-in: a code from the authenticator app, or a backup code. The field is
 * labelled, focused, filled by the browser's one-time-code autofill, and marked invalid (with the
 * message tied to it) after a refused code.
 */
export function renderTwoFactorChallengePage(p: TwoFactorChallengePageParams): string {
  const m = p.messages ?? ENGLISH_MESSAGES;
  const totp = p.method === 'totp';
  const email = p.method === 'email-code';
  const other: TwoFactorMethod = totp ? 'backup-code' : 'totp';
  const switchTo = p.switchUrl && p.methods.includes(other) && !email ? safeUrl(p.switchUrl(other)) : undefined;
  const intro = email
    ? text(m, 'twoFactor.challenge.emailIntro', { to: p.emailCode?.sentTo ?? '' })
    : m[totp ? 'twoFactor.challenge.totpIntro' : 'twoFactor.challenge.backupIntro'];
  const label = m[email ? 'twoFactor.emailCodeLabel' : totp ? 'twoFactor.codeLabel' : 'twoFactor.backupCodeLabel'];
  const cancel = safeUrl(p.cancelUrl);
  const codes = p.methods.includes(p.method);
  // One primary action: the code form's Verify; without a code field, the passkey, else the button
  // that emails a code. Every other way is a quiet link-style control under it.
  const primary = codes ? 'code' : p.passkey ? 'passkey' : 'email';
  const look = (way: 'passkey' | 'email') => (primary === way ? 'button' : 'link-button');
  // A code by email: a button that sends one ("again" once one went: its field is on the page).
  const sent = email && codes;
  const sendCode = p.emailCode
    ? `<form method="post" action="${escapeAttr(safeUrl(p.action) ?? '')}" class="send-code">` +
      hiddenInputs({ csrfToken: p.csrfToken, method: 'email-code', send: '1' }) +
      `<button type="submit" class="${look('email')}">${escapeHtml(m[sent ? 'twoFactor.emailCodeAgain' : 'twoFactor.emailCodeSend'])}</button></form>`
    : '';
  const passkey = p.passkey
    ? `<button type="button" class="${look('passkey')}" data-webauthn-two-factor="${escapeAttr(safeUrl(p.action) ?? '')}" data-csrf-token="${escapeAttr(p.csrfToken)}">${escapeHtml(m['twoFactor.usePasskey'])}</button>`
    : '';
  const switchLink = switchTo
    ? `<a href="${escapeAttr(switchTo)}" data-two-factor-switch="${escapeAttr(other)}">${escapeHtml(m[totp ? 'twoFactor.useBackupCode' : 'twoFactor.useApp'])}</a>`
    : '';
  const others = [primary === 'passkey' ? '' : passkey, primary === 'email' ? '' : sendCode, switchLink].filter(
    Boolean,
  );
  const body = [
    `<h1>${escapeHtml(m['twoFactor.title'])}</h1>`,
    codes
      ? [
          `<p id="${HINT_ID}">${escapeHtml(intro)}</p>`,
          `<form method="post" action="${escapeAttr(safeUrl(p.action) ?? '')}" data-two-factor="${escapeAttr(p.method)}">`,
          hiddenInputs({ csrfToken: p.csrfToken }) + hiddenInputs(without(p.hidden, ['csrfToken', 'method', 'code'])),
          hiddenInputs({ method: p.method }),
          `<label for="${CODE_ID}">${escapeHtml(label)}</label>`,
          codeInput(p.method, p.error, true),
          errorMessage(p.error),
          p.rememberDays
            ? `<label class="check"><input type="checkbox" name="remember" value="1"> ${escapeHtml(text(m, 'twoFactor.remember', { days: String(p.rememberDays) }))}</label>`
            : '',
          `<button type="submit" class="button">${escapeHtml(m['twoFactor.verify'])}</button>`,
          '</form>',
        ].join('\n')
      : `<p>${escapeHtml(m[p.passkey ? 'twoFactor.challenge.passkeyIntro' : 'twoFactor.challenge.chooseIntro'])}</p>` +
        errorMessage(p.error),
    primary === 'passkey' ? passkey : primary === 'email' ? sendCode : '',
    // The passkey's refusal (its script fills it), under the primary action.
    p.passkey ? '<p class="error" data-webauthn-error hidden role="alert"></p>' : '',
    others.length ? `<div class="alternatives other-ways">${others.join('')}</div>` : '',
    p.passkey ? `<noscript><p class="muted">${escapeHtml(m['twoFactor.passkeyNeedsScript'])}</p></noscript>` : '',
    cancel
      ? `<p class="switch"><a href="${escapeAttr(cancel)}">${escapeHtml(m['twoFactor.signInAnotherWay'])}</a></p>`
      : '',
  ]
    .filter(Boolean)
    .join('\n');
  return renderPage({
    title: m['twoFactor.title'],
    lang: m.lang,
    theme: p.theme,
    body: p.replaceBody ? p.replaceBody(body) : body,
    css: CSS,
    nonce: p.nonce,
    busyStates: true,
    ...(p.passkey ? { scriptUrls: [p.passkey.scriptUrl] } : {}),
  });
}

/**
 * Setting up an authenticator app: the QR code (and an `otpauth:` link for the app on this device),
 * the secret to type in by hand behind its question, then the first code, which confirms it. After a
 * refused code the setup folds away behind "Show the QR code again" (the app is set up already: the
 * code is what to fix), so the field and its button stay on a phone's first screen.
 */
export function renderTwoFactorEnrolPage(p: TwoFactorEnrolPageParams): string {
  const m = p.messages ?? ENGLISH_MESSAGES;
  const title = m[p.required ? 'twoFactor.enrol.requiredTitle' : 'twoFactor.enrol.title'];
  const secret = p.secret.replace(/[\s=]+/g, '');
  const open = OTPAUTH.test(p.uri) ? p.uri : undefined;
  const cancel = p.cancelUrl ? safeUrl(p.cancelUrl) : undefined;
  const name = p.nameField
    ? `<label for="two-factor-name">${escapeHtml(m['twoFactor.enrol.nameLabel'])}</label>` +
      `<input id="two-factor-name" name="name" type="text" maxlength="64" autocomplete="off" aria-describedby="two-factor-name-hint">` +
      `<p class="muted" id="two-factor-name-hint">${escapeHtml(m['twoFactor.enrol.nameHint'])}</p>`
    : '';
  const setup = [
    // What to do, in one paragraph: it also describes the code field.
    `<p id="${HINT_ID}">${escapeHtml(m['twoFactor.enrol.scan'])} ${escapeHtml(m['twoFactor.enrol.confirm'])}</p>`,
    // role="img": one image with a name; the SVG's shapes mean nothing read out.
    `<div class="qr" role="img" aria-label="${escapeAttr(m['twoFactor.enrol.qrLabel'])}" data-qr>${p.qrSvg}</div>`,
    open
      ? `<p class="center open-app"><a href="${escapeAttr(open)}" data-otpauth>${escapeHtml(m['twoFactor.enrol.openApp'])}</a></p>`
      : '',
    // The key to type in, for when the code cannot be scanned: behind its question, as in the apps
    // people know (a native disclosure: no script).
    `<details class="manual"><summary>${escapeHtml(m['twoFactor.enrol.manual'])}</summary>` +
      `<p class="secret"><code data-secret="${escapeAttr(secret)}">${escapeHtml(groups(secret))}</code></p></details>`,
  ].join('\n');
  const body = [
    `<h1>${escapeHtml(title)}</h1>`,
    // From the account page the person just chose to add an app (the section above its button says
    // what it is); at sign-in the page says why it is asked.
    p.required ? `<p>${escapeHtml(m['twoFactor.enrol.requiredIntro'])}</p>` : '',
    p.error
      ? `<details class="setup"><summary>${escapeHtml(m['twoFactor.enrol.showQr'])}</summary>${setup}</details>`
      : setup,
    `<form method="post" action="${escapeAttr(safeUrl(p.action) ?? '')}">`,
    hiddenInputs({ csrfToken: p.csrfToken }) + hiddenInputs(without(p.hidden, ['csrfToken', 'code', 'name'])),
    name,
    `<label for="${CODE_ID}">${escapeHtml(m['twoFactor.codeLabel'])}</label>`,
    // Focused only after a refused code: first the person scans.
    codeInput('totp', p.error, false),
    errorMessage(p.error),
    '<div class="actions">',
    `<button type="submit" class="button">${escapeHtml(m['twoFactor.enrol.submit'])}</button>`,
    cancel
      ? `<a class="button button-secondary" href="${escapeAttr(cancel)}">${escapeHtml(m['twoFactor.cancel'])}</a>`
      : '',
    '</div>',
    '</form>',
  ]
    .filter(Boolean)
    .join('\n');
  return renderPage({
    title,
    lang: m.lang,
    theme: p.theme,
    body: p.replaceBody ? p.replaceBody(body) : body,
    css: CSS,
    nonce: p.nonce,
    busyStates: true,
  });
}

/** New backup codes, shown once: each works once; the old ones (after a regeneration) no longer do. */
export function renderBackupCodesPage(p: BackupCodesPageParams): string {
  const m = p.messages ?? ENGLISH_MESSAGES;
  const title = m[p.regenerated ? 'twoFactor.backupCodes.newTitle' : 'twoFactor.backupCodes.title'];
  const next = safeUrl(p.continueUrl);
  const body = [
    `<h1>${escapeHtml(title)}</h1>`,
    `<p>${escapeHtml(m['twoFactor.backupCodes.intro'])}</p>`,
    p.regenerated ? `<p>${escapeHtml(m['twoFactor.backupCodes.replaced'])}</p>` : '',
    `<ol class="codes" data-backup-codes>${p.codes.map((c) => `<li>${escapeHtml(c)}</li>`).join('')}</ol>`,
    `<p class="muted">${escapeHtml(m['twoFactor.backupCodes.shownOnce'])}</p>`,
    next
      ? `<div class="actions"><a class="button" href="${escapeAttr(next)}">${escapeHtml(m['twoFactor.backupCodes.continue'])}</a></div>`
      : '',
  ].join('\n');
  return renderPage({
    title,
    lang: m.lang,
    theme: p.theme,
    body: p.replaceBody ? p.replaceBody(body) : body,
    css: CSS,
    nonce: p.nonce,
  });
}

/** The code field: digits for an app's code, free text (no capitals, no spell check) for a backup code. */
function codeInput(method: TwoFactorMethod, error: string | undefined, autofocus: boolean): string {
  const kind =
    method === 'totp' || method === 'email-code'
      ? 'type="text" inputmode="numeric" pattern="[0-9 ]*" maxlength="10"'
      : 'type="text" maxlength="64" autocapitalize="none" spellcheck="false"';
  const described = error ? `${ERROR_ID} ${HINT_ID}` : HINT_ID;
  return (
    `<input id="${CODE_ID}" name="code" ${kind} autocomplete="one-time-code" required aria-describedby="${described}"` +
    `${error ? ' aria-invalid="true"' : ''}${autofocus || error ? ' autofocus' : ''}>`
  );
}

function errorMessage(error: string | undefined): string {
  return error ? `<p class="error" id="${ERROR_ID}" role="alert">${escapeHtml(error)}</p>` : '';
}

/** `JBSWY3DPEHPK3PXP` as `JBSW Y3DP EHPK 3PXP`. */
function groups(secret: string): string {
  return (secret.match(/.{1,4}/g) ?? []).join(' ');
}

function without(values: Record<string, string> | undefined, names: string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(values ?? {}).filter(([k]) => !names.includes(k)));
}
