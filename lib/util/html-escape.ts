/**
 * Escaping and sanitising for the built-in pages. Every dynamic value on a page passes through
 * one of these: text through `escapeHtml`, attribute values through `escapeAttr`, URLs through
 * `safeUrl`, colours through `safeCssColor`.
 */

const HTML_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for use between tags. Also safe inside quoted attributes. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => HTML_ENTITIES[c]!);
}

/**
 * Escapes a value for a double-quoted attribute. Beyond `escapeHtml` it encodes backticks and `=`
 * (old parsers treated them as delimiters) and drops control characters, which have no business
 * in an attribute and can confuse parsers.
 */
export function escapeAttr(value: unknown): string {
  return String(value ?? '')
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '')
    .replace(/[&<>"'`=]/g, (c) => HTML_ENTITIES[c] ?? `&#${c.charCodeAt(0)};`);
}

/**
 * A URL for `href`/`src`/`action`, or `undefined` when it is not one a page may use: only
 * `http:`/`https:` URLs, paths on this site (`/x`, not `//host`), and, when `allowDataImage` is
 * set, `data:image/(png|gif|jpeg|webp|svg+xml)` URIs. `javascript:` and every other scheme are refused.
 */
export function safeUrl(value: unknown, allowDataImage = false): string | undefined {
  if (typeof value !== 'string') return undefined;
  const v = value.trim();
  if (!v) return undefined;
  if (allowDataImage && /^data:image\/(png|gif|jpe?g|webp|svg\+xml)[;,]/i.test(v)) return v;
  if (v.startsWith('/') && !v.startsWith('//') && !v.startsWith('/\\')) return v;
  try {
    const url = new URL(v);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A CSS colour safe to put in a style sheet, or `undefined`: hex colours, a named colour, or an
 * `rgb()`/`hsl()` function of numbers. Anything that could close the declaration is refused.
 */
export function safeCssColor(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const v = value.trim();
  if (/^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i.test(v)) return v;
  if (/^[a-z]{3,20}$/i.test(v)) return v.toLowerCase();
  if (/^(?:rgb|rgba|hsl|hsla)\([0-9.,%\s/a-z-]{1,60}\)$/i.test(v)) return v;
  return undefined;
}

/**
 * Black or white, whichever reads better on `background` (WCAG relative luminance). Colours that
 * are not hex fall back to white, which suits the saturated brand colours providers use.
 */
export function readableTextColor(background: string): string {
  const hex = /^#([0-9a-f]{3,8})$/i.exec(background)?.[1];
  if (!hex || hex.length === 5 || hex.length === 7) return '#fff';
  const full = hex.length <= 4 ? [...hex.slice(0, 3)].map((c) => c + c).join('') : hex.slice(0, 6);
  const [r, g, b] = [0, 2, 4].map((i) => {
    const c = parseInt(full.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  // Contrast against white is (1.05)/(L+0.05), against black (L+0.05)/0.05; they cross near 0.179.
  return luminance > 0.179 ? '#000' : '#fff';
}
