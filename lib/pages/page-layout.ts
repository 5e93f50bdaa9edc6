import { createHash } from 'node:crypto';
import type { Theme } from '../config/auth-options.interface.js';
import { escapeAttr, escapeHtml, readableTextColor, safeCssColor, safeUrl } from '../util/html-escape.js';

/** One page, ready for the shared document shell. */
export interface PageDocument {
  /** The `<title>` (escaped here). */
  title: string;
  /** The document's language (`<html lang>`, the `lang` message): `en` when absent. */
  lang?: string;
  theme: Required<Theme>;
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

const LIGHT =
  '--bg:#f4f4f5;--card:#fff;--text:#18181b;--muted:#52525b;--border:#8b8b94;--input-bg:#fff;--error-bg:#fef2f2;--error-text:#991b1b;--error-border:#dc2626;--notice-bg:#eff6ff;--link:#1d4ed8;--focus:#1d4ed8;color-scheme:light';
const DARK =
  '--bg:#18181b;--card:#27272a;--text:#f4f4f5;--muted:#d4d4d8;--border:#8b8b94;--input-bg:#18181b;--error-bg:#450a0a;--error-text:#fecaca;--error-border:#f87171;--notice-bg:#1e293b;--link:#93c5fd;--focus:#93c5fd;color-scheme:dark';

// Plain CSS, no framework: the pages must render offline, without JavaScript, on any width.
const BASE_CSS = [
  '*,*::before,*::after{box-sizing:border-box}',
  // `hidden` wins over the display rules below (the identifier-first username field, empty errors).
  '[hidden]{display:none!important}',
  'html{-webkit-text-size-adjust:100%;text-size-adjust:100%}',
  'body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;padding:1rem;',
  'font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;font-size:1rem;line-height:1.5;background:var(--bg);color:var(--text)}',
  `.theme-light,.theme-auto{${LIGHT}}`,
  `.theme-dark{${DARK}}`,
  `@media (prefers-color-scheme:dark){.theme-auto{${DARK}}}`,
  'main{width:100%;max-width:24rem}',
  '.logo{display:block;max-width:10rem;max-height:4.5rem;margin:0 auto 1.5rem}',
  '.card{background:var(--card);border-radius:.75rem;padding:1.5rem;box-shadow:0 1px 3px rgb(0 0 0/.2);overflow-wrap:break-word}',
  'h1{font-size:1.375rem;line-height:1.3;margin:0 0 1rem;text-align:center}',
  'p{margin:0 0 1rem}',
  'form{margin:0}',
  '.provider+.provider{margin-top:.75rem}',
  '.divider{display:flex;align-items:center;gap:.75rem;color:var(--muted);margin:1.25rem 0;font-size:.875rem}',
  '.divider::before,.divider::after{content:"";flex:1;border-top:1px solid var(--border)}',
  'label{display:block;font-weight:500;margin:0 0 .25rem}',
  'input{display:block;width:100%;font:inherit;padding:.625rem .75rem;margin:0 0 .75rem;border:1px solid var(--border);border-radius:.5rem;background:var(--input-bg);color:var(--text)}',
  '.button{display:flex;align-items:center;justify-content:center;gap:.75rem;width:100%;min-height:2.75rem;padding:.625rem 1rem;',
  'font:inherit;font-weight:600;text-align:center;text-decoration:none;border:1px solid transparent;border-radius:.5rem;cursor:pointer;background:var(--brand);color:var(--brand-text)}',
  '.button:hover{filter:brightness(1.1)}',
  '.button-secondary{background:transparent;color:var(--text);border-color:var(--border)}',
  '.button img{width:1.5rem;height:1.5rem;object-fit:contain;flex:none}',
  '.mark{width:1.5rem;height:1.5rem;flex:none}.mark text{fill:var(--mark-cut,var(--brand));font-family:inherit}',
  ':focus-visible{outline:3px solid var(--focus);outline-offset:2px}',
  'a{color:var(--link)}',
  '.error{background:var(--error-bg);color:var(--error-text);border:1px solid var(--error-border);border-radius:.5rem;padding:.75rem 1rem;margin:0 0 1rem}',
  '.error>p{margin:0}.error>p+p{margin-top:.25rem}',
  'form .error{margin:-.25rem 0 .75rem}',
  '.notice{background:var(--notice-bg);color:var(--text);border:1px solid var(--border);border-radius:.5rem;padding:.75rem 1rem;margin:0 0 1rem}.notice>p{margin:0}',
  'input[aria-invalid=true]{border-color:var(--error-border);border-width:2px}',
  '.muted{color:var(--muted);font-size:.875rem}',
  '.button:disabled,[aria-busy=true] .button{cursor:progress}',
  'button[data-busy]::after{content:"";flex:none;width:1em;height:1em;border:2px solid currentColor;border-right-color:transparent;border-radius:50%;animation:spin .8s linear infinite}',
  '@keyframes spin{to{transform:rotate(360deg)}}',
  '@media (prefers-reduced-motion:reduce){button[data-busy]::after{animation:none}}',
  '.actions{display:flex;flex-direction:column;gap:.75rem;margin-top:1rem}',
  '.passkey{margin-top:.75rem}[data-form] .button+.button{margin-top:.75rem}',
  '.identity{text-align:center;margin:0 0 1rem}',
  '.switch{text-align:center;margin:1.25rem 0 0}',
].join('');

/**
 * Busy states, the only inline script (allowed by its hash in the CSP): on submit a form is marked
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
    logo ? `<img class="logo" src="${escapeAttr(logo)}" alt="">` : '',
    `<div class="card">${doc.body}</div>`,
    '</main>',
    doc.busyStates ? `<script>${BUSY_SCRIPT}</script>` : '',
    ...scripts.map((src) => `<script src="${escapeAttr(src)}" defer></script>`),
    '</body>',
    '</html>',
  ].join('\n');
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
