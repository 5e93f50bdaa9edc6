// A label for a User-Agent header ("Chrome on macOS"), for the list of a user's sessions. Small on
// purpose: the common browsers and systems by their tokens, in the order that tells them apart
// (Edge and Opera also say "Chrome", Chrome also says "Safari"). The label is built only from the
// fixed names below, never from the header's text, so it is safe to show and store.

/** Longest header read; longer ones are cut (the tokens sit near the start). */
const MAX_LENGTH = 512;

/** Browsers, most specific first: the first match names the browser. */
const BROWSERS: [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\b(?:OPR|Opera|OPT)\//, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\bYaBrowser\//, 'Yandex Browser'],
  [/\bVivaldi\//, 'Vivaldi'],
  [/\b(?:Firefox|FxiOS)\//, 'Firefox'],
  [/\b(?:Chrome|CriOS|Chromium)\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
  [/\b(?:iPhone|iPad|iPod)\b.*\bAppleWebKit\//, 'Safari'],
];

/** Systems, most specific first (Android says "Linux", iPadOS may say "Macintosh"). */
const SYSTEMS: [RegExp, string][] = [
  [/\bWindows Phone\b/, 'Windows Phone'],
  [/\bWindows\b/, 'Windows'],
  [/\biPhone\b|\biPod\b/, 'iOS'],
  [/\biPad\b/, 'iPadOS'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b|\bX11\b/, 'Linux'],
];

/**
 * "Chrome on macOS", "Safari on iOS", "Firefox" (system unknown), "Unknown browser on Android", or
 * `null` when neither is recognised (or there is no header).
 */
export function userAgentLabel(header: unknown): string | null {
  if (typeof header !== 'string' || header === '') return null;
  const ua = header.slice(0, MAX_LENGTH);
  const browser = BROWSERS.find(([re]) => re.test(ua))?.[1];
  const system = SYSTEMS.find(([re]) => re.test(ua))?.[1];
  if (!browser && !system) return null;
  if (!system) return browser!;
  return `${browser ?? UNKNOWN_BROWSER} on ${system}`;
}

/** What {@link userAgentLabel} says for a browser it does not know on a system it does. */
const UNKNOWN_BROWSER = 'Unknown browser';
const BROWSER_NAMES: ReadonlySet<string> = new Set(BROWSERS.map(([, name]) => name));
const SYSTEM_NAMES: ReadonlySet<string> = new Set(SYSTEMS.map(([, name]) => name));

/**
 * The parts of a label {@link userAgentLabel} made ("Chrome on macOS" is `{ browser: 'Chrome', system:
 * 'macOS' }`, "Unknown browser on Android" is `{ browser: null, system: 'Android' }`), so a page can
 * say it in its own language; `null` for any other text (a label an adapter or an older version
 * stored), which is then shown as it is.
 */
export function userAgentLabelParts(label: string): { browser: string | null; system: string | null } | null {
  if (BROWSER_NAMES.has(label)) return { browser: label, system: null };
  const at = label.indexOf(' on ');
  if (at < 0) return null;
  const browser = label.slice(0, at);
  const system = label.slice(at + 4);
  if (!SYSTEM_NAMES.has(system)) return null;
  if (browser === UNKNOWN_BROWSER) return { browser: null, system };
  return BROWSER_NAMES.has(browser) ? { browser, system } : null;
}
