/**
 * Checks over rendered HTML, shared by the page unit specs and the sample's e2e suite: every
 * input labelled, nothing loaded from elsewhere. A small tag tokenizer is enough for HTML we
 * generate ourselves (attributes are always quoted); the browser suite checks the live DOM too.
 */

/** One start tag with its attributes (entity-decoded for `&amp; &lt; &gt; &quot; &#39;`). */
export interface HtmlTag {
  name: string;
  attrs: Record<string, string>;
}

const TAG = /<([a-zA-Z][\w-]*)((?:\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)\s*\/?>/g;
const ATTR = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

/** Every start tag of the document, in order. */
export function parseTags(html: string): HtmlTag[] {
  const tags: HtmlTag[] = [];
  for (const m of html.matchAll(TAG)) {
    const attrs: Record<string, string> = {};
    for (const a of (m[2] ?? '').matchAll(ATTR)) attrs[a[1]!.toLowerCase()] = decode(a[2] ?? a[3] ?? a[4] ?? '');
    tags.push({ name: m[1]!.toLowerCase(), attrs });
  }
  return tags;
}

function decode(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)))
    .replace(/&amp;/g, '&');
}

/**
 * Inputs (other than hidden ones) that have no label: neither `<label for=id>`, nor
 * `aria-label`/`aria-labelledby`. Returns a description of each.
 */
export function unlabeledInputs(html: string): string[] {
  const tags = parseTags(html);
  const labelled = new Set(tags.filter((t) => t.name === 'label' && t.attrs.for).map((t) => t.attrs.for));
  return visibleInputTags(tags)
    .filter((t) => !(t.attrs.id && labelled.has(t.attrs.id)) && !t.attrs['aria-label'] && !t.attrs['aria-labelledby'])
    .map((t) => `<${t.name} name="${t.attrs.name ?? ''}">`);
}

/**
 * The inputs a label check applies to (every input but hidden ones, selects, text areas), as
 * `<input name="email">`: a test of {@link unlabeledInputs} first says which inputs the page has,
 * so "none unlabelled" is never true merely because there were none.
 */
export function visibleInputs(html: string): string[] {
  return visibleInputTags(parseTags(html)).map((t) => `<${t.name} name="${t.attrs.name ?? ''}">`);
}

function visibleInputTags(tags: ReturnType<typeof parseTags>): ReturnType<typeof parseTags> {
  return tags.filter(
    // An element with the `hidden` attribute is not rendered (like identifier-first's username field).
    (t) =>
      !('hidden' in t.attrs) &&
      ((t.name === 'input' && t.attrs.type !== 'hidden') || t.name === 'select' || t.name === 'textarea'),
  );
}

/**
 * URLs the page would load from another origin: `src` of any tag, `href` of `<link>`, `url(...)`
 * and `@import` in inline CSS. `allowed` lists origins that may be loaded (e.g. a logo the user
 * configured). Paths on the same site and `data:` URIs are fine.
 */
export function externalResources(html: string, allowed: string[] = []): string[] {
  const urls: string[] = [];
  for (const t of parseTags(html)) {
    if (t.attrs.src !== undefined) urls.push(t.attrs.src);
    if (t.name === 'link' && t.attrs.href !== undefined) urls.push(t.attrs.href);
    if (t.attrs.srcset !== undefined) urls.push(...t.attrs.srcset.split(',').map((s) => s.trim().split(/\s+/)[0]!));
    if (t.attrs.style) urls.push(...cssUrls(t.attrs.style));
  }
  for (const m of html.matchAll(/<style[^>]*>([\s\S]*?)<\/style>/gi)) urls.push(...cssUrls(m[1]!));
  return urls.filter((u) => isExternal(u, allowed));
}

function cssUrls(css: string): string[] {
  const out: string[] = [];
  for (const m of css.matchAll(/url\(\s*(['"]?)([^'")]*)\1\s*\)/gi)) out.push(m[2]!);
  for (const m of css.matchAll(/@import\s+(['"])([^'"]*)\1/gi)) out.push(m[2]!);
  return out;
}

function isExternal(url: string, allowed: string[]): boolean {
  const u = url.trim();
  if (u.startsWith('data:')) return false;
  if (u.startsWith('/') && !u.startsWith('//')) return false;
  if (!/^([a-z][a-z0-9+.-]*:|\/\/)/i.test(u)) return false; // relative path
  try {
    const origin = new URL(u, 'http://same.invalid').origin;
    return !allowed.includes(origin);
  } catch {
    return true;
  }
}
