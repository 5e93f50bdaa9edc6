import { createHash } from 'node:crypto';
import type { Theme } from '../config/auth-options.interface.js';
import { escapeAttr, escapeHtml, readableTextColor, safeCssColor, safeUrl } from '../util/html-escape.js';

/** One page, ready for the shared document shell. */
export interface PageDocument {
  /** The `<title>` (escaped here). */
  title: string;
  /** The document's language (`<html lang>`, the `lang` message): `en` when absent. */
  lang?: string;
  theme: Required<Theme> & { brandName?: string };
  /** The page's content: HTML whose dynamic values the page already escaped. */
  body: string;
  /** Extra rules, built only from values that passed `safeCssColor`. */
  css?: string;
  /** Images the page shows (already passed through `safeUrl`): their origins are allowed by the CSP. */
  imageUrls?: string[];
  /** Include {@link BUSY_SCRIPT} (pages with forms a person submits: sign-in, sign-out). */
  busyStates?: boolean;
  /** Scripts loaded with `<script src>` (already passed through `safeUrl`). */
  scriptUrls?: string[];
  /** A per-response nonce: `<script nonce>` and `<style nonce>` in the body (a render hook's) are allowed. */
  nonce?: string;
}

/** The default brand colour: white text on it passes WCAG AA. */
const DEFAULT_BRAND = '#2563eb';

// `--border` outlines fields (3:1 against the card, WCAG 1.4.11); `--line` is the light rule of cards,
// dividers and quiet buttons.
const LIGHT =
  '--bg:#f4f4f5;--card:#fff;--text:#18181b;--muted:#52525b;--border:#8b8b94;--line:#e4e4e7;--line-strong:#d4d4d8;--input-bg:#fff;--error-bg:#fef2f2;--error-text:#991b1b;--error-border:#dc2626;--error-line:#fecaca;--notice-bg:#eff6ff;--notice-line:#bfdbfe;--link:#1d4ed8;--focus:#1d4ed8;color-scheme:light';
const DARK =
  '--bg:#18181b;--card:#27272a;--text:#f4f4f5;--muted:#d4d4d8;--border:#8b8b94;--line:#3f3f46;--line-strong:#52525b;--input-bg:#18181b;--error-bg:#450a0a;--error-text:#fecaca;--error-border:#f87171;--error-line:#7f1d1d;--notice-bg:#1e293b;--notice-line:#334155;--link:#93c5fd;--focus:#93c5fd;color-scheme:dark';

// Plain CSS, no framework: the pages must render offline, without JavaScript, on any width. Spacing
// keeps to one scale (0.25, 0.5, 0.75, 1, 1.5, 2 rem). The card sits at a fixed distance from the top,
// so it does not move between steps of different heights.
const BASE_CSS = [
  '*,*::before,*::after{box-sizing:border-box}',
  // `hidden` wins over the display rules below (the identifier-first username field, empty errors).
  '[hidden]{display:none!important}',
  'html{-webkit-text-size-adjust:100%;text-size-adjust:100%}',
  'body{margin:0;min-height:100vh;padding:clamp(1rem,6vh,4rem) 1rem 2rem;',
  'font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;font-size:1rem;line-height:1.5;background:var(--bg);color:var(--text)}',
  `.theme-light,.theme-auto{${LIGHT}}`,
  `.theme-dark{${DARK}}`,
  `@media (prefers-color-scheme:dark){.theme-auto{${DARK}}}`,
  'main{width:100%;max-width:25rem;margin:0 auto}',
  '.logo{display:block;height:2.5rem;width:auto;max-width:12rem;object-fit:contain;margin:0 auto 1.5rem}',
  '.card{background:var(--card);border:1px solid var(--line);border-radius:.75rem;padding:2rem 1.5rem;box-shadow:0 1px 2px rgb(0 0 0/.05);overflow-wrap:break-word}',
  '@media (max-width:30rem){.card{padding:1.5rem 1rem}}',
  'h1{font-size:1.375rem;line-height:1.3;letter-spacing:-.01em;margin:0 0 1.5rem;text-align:center}',
  'p{margin:0 0 1rem}',
  'form{margin:0}',
  '.providers{display:flex;flex-direction:column;gap:.75rem}',
  '.divider{display:flex;align-items:center;gap:.75rem;color:var(--muted);margin:1.5rem 0;font-size:.875rem}',
  '.divider::before,.divider::after{content:"";flex:1;border-top:1px solid var(--line)}',
  'label{display:block;font-size:.875rem;font-weight:500;margin:0 0 .25rem}',
  'input{display:block;width:100%;min-height:2.75rem;font:inherit;padding:.5rem .75rem;margin:0 0 1rem;border:1px solid var(--border);border-radius:.5rem;background:var(--input-bg);color:var(--text)}',
  'input::placeholder{color:var(--muted);opacity:.8}',
  'input[type=checkbox]{display:inline-block;width:1.25rem;height:1.25rem;min-height:0;margin:0;accent-color:var(--brand)}',
  // Marked invalid without the field growing: a second ring instead of a thicker border.
  'input[aria-invalid=true]{border-color:var(--error-border);box-shadow:0 0 0 1px var(--error-border)}',
  '.label-row{display:flex;align-items:baseline;justify-content:space-between;gap:1rem}.label-row .link-button{font-size:.875rem}',
  '.button{display:flex;align-items:center;justify-content:center;gap:.75rem;width:100%;min-height:2.75rem;padding:.5rem 1rem;',
  'font:inherit;font-weight:600;line-height:1.25;text-align:center;text-decoration:none;border:1px solid transparent;border-radius:.5rem;cursor:pointer;background:var(--brand);color:var(--brand-text)}',
  '.button:hover{filter:brightness(1.08)}',
  '.button-secondary{background:transparent;color:var(--text);border-color:var(--line-strong);font-weight:500}',
  '.button-secondary:hover{filter:none;background:var(--bg)}',
  '.button img{width:1.25rem;height:1.25rem;object-fit:contain;flex:none}',
  // OAuth buttons: each sets its light (`--l-*`) and dark (`--d-*`) colours; the scheme picks one set.
  '.oauth{--b:var(--l-bg);--f:var(--l-fg);--o:var(--l-border);--mark:var(--l-mark);background:var(--b);color:var(--f);border-color:var(--o);font-weight:500}',
  '.theme-dark .oauth{--b:var(--d-bg);--f:var(--d-fg);--o:var(--d-border);--mark:var(--d-mark)}',
  '@media (prefers-color-scheme:dark){.theme-auto .oauth{--b:var(--d-bg);--f:var(--d-fg);--o:var(--d-border);--mark:var(--d-mark)}}',
  '.oauth:hover{filter:none;box-shadow:inset 0 0 0 99px rgb(128 128 128/.1)}',
  '.mark{width:1.25rem;height:1.25rem;flex:none;fill:var(--mark,currentColor)}.mark text{fill:var(--b,var(--card));font-family:inherit}',
  // Secondary actions: quiet, link-like, still at least 24 px tall to tap (WCAG 2.5.8).
  '.link-button{display:inline-block;min-height:1.5rem;background:none;border:0;padding:0;margin:0;font:inherit;font-weight:500;color:var(--link);cursor:pointer;text-decoration:underline;text-underline-offset:.2em}',
  '.quiet{font-weight:500;text-underline-offset:.2em}',
  '.link-button:hover,.quiet:hover{text-decoration-thickness:2px}',
  '.alternatives{display:flex;flex-direction:column;align-items:center;gap:.75rem}',
  '.new-here{text-align:center;margin:1.5rem 0 0;font-size:.875rem}.new-here .link-button{font-size:inherit}',
  '.field-link{margin:-.5rem 0 1rem;font-size:.875rem;text-align:right}',
  ':focus-visible{outline:2px solid var(--focus);outline-offset:2px}',
  'a{color:var(--link)}',
  '.error{background:var(--error-bg);color:var(--error-text);border:1px solid var(--error-line);border-radius:.5rem;padding:.75rem 1rem;margin:0 0 1rem}',
  '.error>p{margin:0}.error>p+p{margin-top:.25rem}',
  // A form's own error is compact text under the field; under a button it keeps clear of the focus ring.
  'form .error{background:none;border:0;border-radius:0;padding:0;margin:-.5rem 0 1rem;font-size:.875rem}',
  '.provider>.error{margin:.75rem 0 0}',
  '.notice{background:var(--notice-bg);color:var(--text);border:1px solid var(--notice-line);border-radius:.5rem;padding:.75rem 1rem;margin:0 0 1rem}.notice>p{margin:0}',
  '.muted{color:var(--muted);font-size:.875rem}',
  '.button:disabled,[aria-busy=true] .button{cursor:progress}',
  'button[data-busy]::after{content:"";flex:none;width:1em;height:1em;border:2px solid currentColor;border-right-color:transparent;border-radius:50%;animation:spin .8s linear infinite}',
  '@keyframes spin{to{transform:rotate(360deg)}}',
  '@media (prefers-reduced-motion:reduce){button[data-busy]::after{animation:none}}',
  '.actions{display:flex;flex-direction:column;gap:.75rem;margin-top:1.5rem}',
  '.passkey{margin-top:.75rem}[data-form] .button+.button{margin-top:.75rem}',
  '.identity{margin:-.75rem 0 1.5rem;text-align:center}',
  '.identity>strong{font-weight:600;overflow-wrap:anywhere;margin-right:.5rem}',
  // An address moves to its own line whole; only one longer than the line breaks, and anywhere.
  '.address{display:inline-block;max-width:100%;overflow-wrap:anywhere}',
  '.nowrap{white-space:nowrap}',
  '.switch{text-align:center;margin:1.5rem 0 0}',
  '.visually-hidden{position:absolute!important;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}',
].join('');

/**
 * Busy states and inline field errors, the only inline script (allowed by its hash in the CSP): a
 * field with `data-invalid-message` that fails the browser's own check shows that message under it
 * (marked `aria-invalid`, focused) instead of the browser's bubble. On submit a form is marked
 * `aria-busy`, its buttons are disabled (so a double click or a second Enter cannot post it twice)
 * and the pressed one shows a spinner. A page restored from the back/forward cache gets its forms
 * back. Without JavaScript the forms post as usual. Passkey forms are left to their own script.
 */
export const BUSY_SCRIPT = [
  '(function(){',
  'function reset(){document.querySelectorAll("form[aria-busy]").forEach(function(f){f.removeAttribute("aria-busy");',
  'f.querySelectorAll("button").forEach(function(b){b.disabled=false;b.removeAttribute("data-busy")})})}',
  'document.addEventListener("submit",function(e){var f=e.target;',
  'if(!(f instanceof HTMLFormElement)||f.hasAttribute("data-webauthn-provider"))return;',
  'if(e.defaultPrevented)return;',
  'if(f.getAttribute("aria-busy")==="true"){e.preventDefault();return}',
  'f.setAttribute("aria-busy","true");',
  'var s=e.submitter||f.querySelector("button[type=submit],button:not([type])");if(s)s.setAttribute("data-busy","");',
  // Disabled after the form data is read: a disabled submitter would drop its name and value.
  'setTimeout(function(){f.querySelectorAll("button").forEach(function(b){b.disabled=true})},0)});',
  'window.addEventListener("pageshow",function(e){if(e.persisted)reset()});',
  // The browser's own check stays on (without JavaScript it still stops a malformed address), but its
  // bubble is replaced by the page's inline error: the field's `data-invalid-message`, under the field,
  // the field marked invalid and focused. `invalid` does not bubble: listen in the capture phase.
  'var first=true;',
  'document.addEventListener("invalid",function(e){var i=e.target,msg=i.getAttribute&&i.getAttribute("data-invalid-message");',
  'if(!msg)return;e.preventDefault();',
  'var ids=(i.getAttribute("aria-describedby")||"").split(" ").filter(Boolean),el=null;',
  'ids.forEach(function(id){var x=document.getElementById(id);if(!el&&x&&x.classList.contains("error"))el=x});',
  'if(!el){el=document.createElement("p");el.className="error";el.id=i.id+"-error";i.insertAdjacentElement("afterend",el);ids.push(el.id);i.setAttribute("aria-describedby",ids.join(" "))}',
  'el.setAttribute("role","alert");el.setAttribute("data-error","InvalidEmail");el.textContent=msg;el.hidden=false;i.setAttribute("aria-invalid","true");',
  'if(first){first=false;i.focus();setTimeout(function(){first=true},0)}},true);',
  // Fixed: the mark goes as the person types (the message stays until the next try).
  'document.addEventListener("input",function(e){var i=e.target;',
  'if(i.hasAttribute&&i.hasAttribute("data-invalid-message")&&i.validity.valid)i.removeAttribute("aria-invalid")});',
  // Show/hide a password: the button names what it will do; the field is a password again on submit.
  'document.querySelectorAll("[data-reveal]").forEach(function(b){var i=document.getElementById(b.getAttribute("data-reveal"));',
  'if(!i)return;var show=b.textContent,hide=b.getAttribute("data-hide");b.hidden=false;',
  'b.addEventListener("click",function(){var on=i.type==="password";i.type=on?"text":"password";b.textContent=on?hide:show});',
  'if(i.form)i.form.addEventListener("submit",function(){i.type="password";b.textContent=show})});',
  '})();',
].join('');

/**
 * The HTML document around every built-in page: inline CSS, the theme, and a Content Security
 * Policy that allows nothing external except the logos and scripts the page names, so a value
 * that escaped escaping still could not load or run anything.
 */
export function renderPage(doc: PageDocument): string {
  const scheme = doc.theme.colorScheme === 'dark' || doc.theme.colorScheme === 'light' ? doc.theme.colorScheme : 'auto';
  const brand = safeCssColor(doc.theme.brandColor) ?? DEFAULT_BRAND;
  const brandText = safeCssColor(doc.theme.buttonText) ?? readableTextColor(brand);
  const css = `${BASE_CSS}body{--brand:${brand};--brand-text:${brandText}}${doc.css ?? ''}`;
  const logo = safeUrl(doc.theme.logo, true);
  const images = [...(doc.imageUrls ?? []), ...(logo ? [logo] : [])];
  const scripts = doc.scriptUrls ?? [];
  // Base64 characters only: anything else could end the CSP source.
  const nonce = doc.nonce && /^[A-Za-z0-9+/_-]{16,}={0,2}$/.test(doc.nonce) ? `'nonce-${doc.nonce}'` : '';

  const csp = [
    "default-src 'none'",
    `style-src '${sha256(css)}'${nonce ? ` ${nonce}` : ''}`,
    images.length ? `img-src ${sources(images)}` : undefined,
    doc.busyStates || scripts.length || nonce
      ? `script-src ${[doc.busyStates ? `'${sha256(BUSY_SCRIPT)}'` : '', scripts.length ? sources(scripts) : '', nonce].filter(Boolean).join(' ')}`
      : undefined,
    // The passkey script asks this site for options; nothing else may be fetched.
    scripts.length ? "connect-src 'self'" : undefined,
    "base-uri 'none'",
  ]
    .filter(Boolean)
    .join('; ');

  return [
    '<!DOCTYPE html>',
    `<html lang="${escapeAttr(doc.lang && /^[a-zA-Z]{2,8}(-[a-zA-Z0-9]{1,8})*$/.test(doc.lang) ? doc.lang : 'en')}">`,
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeAttr(csp)}">`,
    '<meta name="robots" content="noindex, nofollow">',
    `<title>${escapeHtml(doc.title)}</title>`,
    `<style>${css}</style>`,
    '</head>',
    `<body class="theme-${scheme}">`,
    '<main>',
    // The logo is the app's name in a picture: its alt text is the name (none given: decorative).
    logo ? `<img class="logo" src="${escapeAttr(logo)}" alt="${escapeAttr(appName(doc.theme) ?? '')}">` : '',
    `<div class="card">${doc.body}</div>`,
    '</main>',
    doc.busyStates ? `<script>${BUSY_SCRIPT}</script>` : '',
    ...scripts.map((src) => `<script src="${escapeAttr(src)}" defer></script>`),
    '</body>',
    '</html>',
  ].join('\n');
}

/**
 * Escaped sentence text with its hyphenated words ("E-Mail", "sign-in") kept on one line: a browser
 * may otherwise break after the hyphen ("E-" at the end of a line, "Mail" on the next).
 */
export function keepHyphenatedWords(escaped: string): string {
  return escaped.replace(
    /(^|[\s(>])([\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)+)(?=[\s.,;:!?)<]|$)/gu,
    (_all, before: string, word: string) => `${before}<span class="nowrap">${word}</span>`,
  );
}

/** The app's name from `theme.brandName`, trimmed and at most 80 characters, or `undefined`. */
export function appName(theme: { brandName?: unknown }): string | undefined {
  const name = typeof theme.brandName === 'string' ? theme.brandName.trim().replace(/\s+/g, ' ') : '';
  return name ? [...name].slice(0, 80).join('') : undefined;
}

function sha256(text: string): string {
  return `sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}`;
}

/** CSP sources for URLs that passed `safeUrl`: origins only (a path could carry `;` or `,`). */
function sources(urls: string[]): string {
  const set = new Set<string>();
  for (const u of urls) {
    if (u.startsWith('data:')) set.add('data:');
    else if (u.startsWith('/')) set.add("'self'");
    else {
      try {
        set.add(new URL(u).origin);
      } catch {
        // safeUrl already refused it; nothing to allow.
      }
    }
  }
  return [...set].join(' ');
}
