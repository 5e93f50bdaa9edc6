// The mark in an OAuth provider's button when the provider gives no `style.logo` (issue 20).
//
// It is our own, deliberately plain mark: the provider's initial cut out of a disc. No brand artwork
// is drawn or copied. The disc takes the button's text colour (`currentColor`) and the initial the
// button's background (`--mark-cut`), so the mark has exactly the contrast of the button's text,
// works in one colour, and follows dark mode and `theme.brandColor` like the rest of the button.
import { escapeHtml } from '../util/html-escape.js';

/** The inline SVG mark of a provider (a few hundred bytes; `aria-hidden`: the button's text names it). */
export function providerMark(name: string): string {
  const initial = /[\p{L}\p{N}]/u.exec(name)?.[0]?.toLocaleUpperCase('en') ?? '?';
  return (
    '<svg class="mark" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" focusable="false">' +
    '<circle cx="12" cy="12" r="12" fill="currentColor"/>' +
    `<text x="12" y="16.5" text-anchor="middle" font-size="13" font-weight="700">${escapeHtml(initial)}</text>` +
    '</svg>'
  );
}

/** The relative luminance of a `#rgb` or `#rrggbb` colour (WCAG 2.x), or `undefined` for anything else. */
export function relativeLuminance(color: string): number | undefined {
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(color)?.[1];
  if (!hex) return undefined;
  const full = hex.length === 3 ? [...hex].map((c) => c + c).join('') : hex;
  const [r, g, b] = [0, 2, 4].map((i) => {
    const c = parseInt(full.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The WCAG contrast ratio of two `#rgb`/`#rrggbb` colours (1 to 21), or `undefined` if either is not one. */
export function contrastRatio(a: string, b: string): number | undefined {
  const la = relativeLuminance(a);
  const lb = relativeLuminance(b);
  if (la === undefined || lb === undefined) return undefined;
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}
