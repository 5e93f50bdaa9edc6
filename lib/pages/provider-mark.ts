// The mark and colours of an OAuth provider's button on the sign-in page (issue 41).
//
// People trust the marks they know, so a catalogue provider shows its own brand mark, taken from the
// `simple-icons` package (CC0): the path data of the 60 icons the catalogue uses is generated from it
// into provider-marks.generated.ts (scripts/provider-marks.mjs; a test fails when it is out of date),
// so apps get those 60 (about 59 KB) and not the package's 3,400 icons (26 MB installed), and the mark
// is inlined (no request, the CSP stays closed). Microsoft's mark is not in simple-icons (Microsoft asked for it
// to be removed); its four squares are drawn here from Microsoft's sign-in button guidance.
//
// Buttons are neutral (the card's colours, a light border) with the mark in the brand's colour, which
// is how most providers' guidance shows them; Apple (black, white mark) and GitHub (dark) follow their
// own guidance. A provider without a mark gets a monogram in a disc on the same neutral button, so it
// never looks like the page's primary "Continue" button.
import { escapeHtml, safeCssColor } from '../util/html-escape.js';
import { SIMPLE_ICON_PATHS } from './provider-marks.generated.js';

/** The colours of one provider button in one colour scheme (hex), as the page draws them. */
export interface ProviderButtonColors {
  /** The button's background. */
  background: string;
  /** Its text (and a one-colour mark's colour when the brand colour would not stand out). */
  text: string;
  /** Its border. */
  border: string;
  /** The mark's colour: the brand colour where it has 3:1 against the background, else the text colour. */
  mark: string;
}

/** A provider button: the inline SVG mark and its colours in the light and the dark scheme. */
export interface ProviderButtonLook {
  /** The inline `<svg class="mark">` (`aria-hidden`: the button's text names the provider). */
  mark: string;
  /** What tells this mark from others on the page (`si:github`, `microsoft`, `monogram:Ki`). */
  markKey: string;
  /** Colours in the light scheme. */
  light: ProviderButtonColors;
  /** Colours in the dark scheme. */
  dark: ProviderButtonColors;
}

type Scheme = 'light' | 'dark';
type Surface = Omit<ProviderButtonColors, 'mark'>;

/** The neutral button: the card's own colours (see page-layout.ts) with a light border. */
export const NEUTRAL_BUTTON: Record<Scheme, Surface> = {
  light: { background: '#ffffff', text: '#18181b', border: '#d4d4d8' },
  dark: { background: '#27272a', text: '#f4f4f5', border: '#52525b' },
};

/** Buttons whose provider publishes its own colours (the mark then takes the button's text colour). */
const GUIDANCE: Record<string, Record<Scheme, Surface>> = {
  // Apple: black with a white mark; white with a black mark on dark backgrounds.
  apple: {
    light: { background: '#000000', text: '#ffffff', border: '#000000' },
    dark: { background: '#ffffff', text: '#000000', border: '#ffffff' },
  },
  // GitHub: its dark button, with a visible border on a dark card.
  github: {
    light: { background: '#24292f', text: '#ffffff', border: '#24292f' },
    dark: { background: '#24292f', text: '#ffffff', border: '#6e7681' },
  },
  // Microsoft: white, grey text and border; dark grey in dark themes.
  microsoft: {
    light: { background: '#ffffff', text: '#5e5e5e', border: '#8c8c8c' },
    dark: { background: '#2f2f2f', text: '#ffffff', border: '#8c8c8c' },
  },
  // Google: a neutral button with Google's own greys (the mark stays blue where it has contrast).
  google: {
    light: { background: '#ffffff', text: '#1f1f1f', border: '#747775' },
    dark: { background: '#131314', text: '#e3e3e3', border: '#8e918f' },
  },
};

/** Guidance that colours the mark with the button's text, not the brand colour. */
const MARK_IN_TEXT_COLOR = new Set(['apple', 'github']);

/**
 * Catalogue provider ids and the simple-icons slug of their mark, where simple-icons has one (the
 * ids that are already slugs are listed as they are). `microsoft` is our own mark.
 */
export const PROVIDER_MARK_SLUGS: Readonly<Record<string, string>> = {
  '42-school': '42',
  apple: 'apple',
  atlassian: 'atlassian',
  auth0: 'auth0',
  authentik: 'authentik',
  'azure-ad': 'microsoft',
  battlenet: 'battledotnet',
  bitbucket: 'bitbucket',
  box: 'box',
  bungie: 'bungie',
  'click-up': 'clickup',
  coinbase: 'coinbase',
  discord: 'discord',
  dribbble: 'dribbble',
  dropbox: 'dropbox',
  facebook: 'facebook',
  faceit: 'faceit',
  figma: 'figma',
  foursquare: 'foursquare',
  fusionauth: 'fusionauth',
  github: 'github',
  gitlab: 'gitlab',
  google: 'google',
  hubspot: 'hubspot',
  huggingface: 'huggingface',
  hydra: 'ory',
  instagram: 'instagram',
  kakao: 'kakao',
  keycloak: 'keycloak',
  line: 'line',
  mailchimp: 'mailchimp',
  mailru: 'maildotru',
  mastodon: 'mastodon',
  mattermost: 'mattermost',
  medium: 'medium',
  'microsoft-entra-id': 'microsoft',
  naver: 'naver',
  netlify: 'netlify',
  nextcloud: 'nextcloud',
  notion: 'notion',
  okta: 'okta',
  osu: 'osu',
  patreon: 'patreon',
  pinterest: 'pinterest',
  reddit: 'reddit',
  roblox: 'roblox',
  simplelogin: 'simplelogin',
  spotify: 'spotify',
  strava: 'strava',
  threads: 'threads',
  tiktok: 'tiktok',
  todoist: 'todoist',
  trakt: 'trakt',
  twitch: 'twitch',
  twitter: 'x',
  vk: 'vk',
  webex: 'webex',
  wechat: 'wechat',
  wikimedia: 'wikimediafoundation',
  wordpress: 'wordpress',
  zoho: 'zoho',
  zoom: 'zoom',
};

/** Microsoft's four squares (its sign-in button guidance), in its colours. */
const MICROSOFT_MARK =
  '<rect x="1" y="1" width="10.5" height="10.5" fill="#f25022"/><rect x="12.5" y="1" width="10.5" height="10.5" fill="#7fba00"/>' +
  '<rect x="1" y="12.5" width="10.5" height="10.5" fill="#00a4ef"/><rect x="12.5" y="12.5" width="10.5" height="10.5" fill="#ffb900"/>';

/** The `d` of a simple-icons icon (generated from the package), or undefined for a slug it lacks. */
export function simpleIconPath(slug: string): string | undefined {
  return Object.hasOwn(SIMPLE_ICON_PATHS, slug) ? SIMPLE_ICON_PATHS[slug] : undefined;
}

/**
 * The button of an OAuth provider: its mark (a simple-icons mark by id, Microsoft's squares, or a
 * monogram) and colours. `used` holds the marks already on the page: a provider whose mark is taken
 * (Azure AD beside Microsoft Entra ID) gets a monogram, and monograms grow a letter until they differ,
 * so no two buttons on a page share a mark.
 */
export function providerButtonLook(
  provider: { id: string; name: string; style?: { brandColor?: string; bg?: string } },
  used: Set<string>,
): ProviderButtonLook {
  const slug = Object.hasOwn(PROVIDER_MARK_SLUGS, provider.id) ? PROVIDER_MARK_SLUGS[provider.id] : undefined;
  const brand = hexColor(provider.style?.brandColor) ?? hexColor(provider.style?.bg);
  const guidance = slug === 'microsoft' ? GUIDANCE.microsoft : GUIDANCE[provider.id];
  const surface = (s: Scheme): Surface => guidance?.[s] ?? NEUTRAL_BUTTON[s];
  const colors = (s: Scheme): ProviderButtonColors => {
    const c = surface(s);
    const ownColor = !MARK_IN_TEXT_COLOR.has(provider.id) && brand && contrastRatio(brand, c.background)! >= 3;
    return { ...c, mark: ownColor ? brand : c.text };
  };
  const light = colors('light');
  const dark = colors('dark');

  if (slug && !used.has(`si:${slug}`)) {
    const inner =
      slug === 'microsoft'
        ? MICROSOFT_MARK
        : simpleIconPath(slug) !== undefined
          ? `<path d="${simpleIconPath(slug)}"/>`
          : undefined;
    if (inner) {
      used.add(`si:${slug}`);
      return { mark: svg(inner), markKey: slug === 'microsoft' ? 'microsoft' : `si:${slug}`, light, dark };
    }
  }
  const letters = monogram(provider.name, used);
  used.add(`monogram:${letters}`);
  const mark = svg(
    '<circle cx="12" cy="12" r="12"/>' +
      `<text x="12" y="16.5" text-anchor="middle" font-size="${letters.length > 1 ? 10 : 13}" font-weight="700">${escapeHtml(letters)}</text>`,
  );
  return { mark, markKey: `monogram:${letters}`, light, dark };
}

function svg(inner: string): string {
  return `<svg class="mark" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">${inner}</svg>`;
}

/** One letter of the name, or two when another button on the page already shows that one. */
function monogram(name: string, used: Set<string>): string {
  const chars = [...name.normalize('NFC')].filter((c) => /[\p{L}\p{N}]/u.test(c));
  const words = name.split(/[\s._-]+/).filter((w) => /[\p{L}\p{N}]/u.test(w));
  const first = chars[0]?.toLocaleUpperCase('en') ?? '?';
  const candidates = [
    first,
    ...(words.length > 1
      ? [
          words
            .map((w) => [...w].find((c) => /[\p{L}\p{N}]/u.test(c))!)
            .join('')
            .slice(0, 2),
        ]
      : []),
    ...chars.slice(1).map((c) => first + c.toLocaleLowerCase('en')),
    ...Array.from({ length: 9 }, (_, i) => `${first}${i + 1}`),
  ].map((c) => (c.toLocaleUpperCase('en') === c ? c : c[0]!.toLocaleUpperCase('en') + c.slice(1)));
  return candidates.find((c) => !used.has(`monogram:${c}`)) ?? first;
}

function hexColor(value: string | undefined): string | undefined {
  const c = safeCssColor(value);
  return c && relativeLuminance(c) !== undefined ? c : undefined;
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
