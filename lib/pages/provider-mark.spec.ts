import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { oauthProviderCatalog } from '../providers/catalog/catalog.js';
import { params, provider } from './fixtures/signin-page.fixture.js';
import {
  NEUTRAL_BUTTON,
  PROVIDER_MARK_SLUGS,
  contrastRatio,
  providerButtonLook,
  simpleIconPath,
  type ProviderButtonColors,
} from './provider-mark.js';
import { renderSignInPage } from './signin.page.js';

/** Every catalogue provider as its factory builds it (options that some factories require given). */
const catalogue = Object.entries(oauthProviderCatalog).map(([id, factory]) => {
  const config = (factory as (o: object) => { name: string; style?: { brandColor?: string; text?: string } })({
    clientId: 'id',
    clientSecret: 'secret',
    issuer: 'https://idp.example.com',
  });
  return { id, name: config.name, style: config.style ?? {} };
});

/** The page with every catalogue provider's button. */
const everyButton = renderSignInPage(
  params({ providers: catalogue.map(({ id, name, style }) => provider(id, 'oauth', { name, style })) }),
);

/** The colours the page's style sheet gives button `index`, per scheme. */
function pageColors(html: string, index: number): Record<'l' | 'd', ProviderButtonColors> {
  const rule = new RegExp(`\\.provider-${index}\\{([^}]*)\\}`).exec(html)?.[1];
  expect(rule).toBeDefined();
  const v = Object.fromEntries(rule!.split(';').map((d) => d.split(':') as [string, string]));
  const scheme = (s: 'l' | 'd') => ({
    background: v[`--${s}-bg`]!,
    text: v[`--${s}-fg`]!,
    border: v[`--${s}-border`]!,
    mark: v[`--${s}-mark`]!,
  });
  return { l: scheme('l'), d: scheme('d') };
}

describe('provider marks', () => {
  it('covers the whole catalogue', () => {
    expect(catalogue).toHaveLength(Object.keys(oauthProviderCatalog).length);
    expect(catalogue.length).toBeGreaterThan(90);
    for (const id of Object.keys(PROVIDER_MARK_SLUGS)) expect(Object.keys(oauthProviderCatalog)).toContain(id);
  });

  // promise: pages.provider-contrast
  it.each(catalogue.map((c, index) => ({ ...c, index })))(
    '$id: its button text has 4.5:1 and a one-colour mark 3:1 on the button, light and dark',
    ({ id, index }) => {
      const colors = pageColors(everyButton, index);
      for (const c of [colors.l, colors.d]) {
        expect(contrastRatio(c.text, c.background)).toBeGreaterThanOrEqual(4.5);
        expect(contrastRatio(c.mark, c.background)).toBeGreaterThanOrEqual(3);
      }
      // Never the page's primary colour: a provider's button must not look like "Continue".
      expect(`${colors.l.background}${colors.d.background}`).not.toContain('var(--brand)');
      expect(id).toBeTruthy();
    },
  );

  // promise: pages.provider-marks
  it('no two buttons on a page share a mark, even with the whole catalogue on it', () => {
    const marks = [...everyButton.matchAll(/<svg class="mark"[^]*?<\/svg>/g)].map((x) => x[0]);
    const keys = [...everyButton.matchAll(/data-mark="([^"]+)"/g)].map((x) => x[1]);
    expect(marks).toHaveLength(catalogue.length);
    expect(new Set(marks).size).toBe(marks.length);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it.each(Object.entries(PROVIDER_MARK_SLUGS).filter(([, slug]) => slug !== 'microsoft'))(
    '%s: shows the simple-icons mark "%s", inlined, hidden from assistive technology',
    (id, slug) => {
      const entry = catalogue.find((c) => c.id === id)!;
      const html = renderSignInPage(params({ providers: [provider(id, 'oauth', entry)] }));
      const mark = /<svg class="mark"[^]*?<\/svg>/.exec(html)![0];
      const file = readFileSync(createRequire(import.meta.url).resolve(`simple-icons/icons/${slug}.svg`), 'utf8');
      const d = /<path[^>]*\sd="([^"]+)"/.exec(file)![1];
      expect(mark).toContain(`<path d="${d}"/>`);
      expect(mark).toContain('aria-hidden="true"');
      expect(mark).not.toMatch(/href=|<image|<title|style=/);
      expect(html).toContain(`data-mark="si:${slug}"`);
    },
  );

  it('Microsoft Entra ID shows Microsoft four squares on its neutral button; Azure AD beside it a monogram', () => {
    const entra = catalogue.find((c) => c.id === 'microsoft-entra-id')!;
    const azure = catalogue.find((c) => c.id === 'azure-ad')!;
    const html = renderSignInPage(
      params({ providers: [provider(entra.id, 'oauth', entra), provider(azure.id, 'oauth', azure)] }),
    );
    expect(html).toContain('data-mark="microsoft"');
    expect(html.match(/<rect /g)).toHaveLength(4);
    expect(html).toMatch(/data-mark="monogram:A"/);
    expect(pageColors(html, 0).l).toMatchObject({ background: '#ffffff', text: '#5e5e5e' });
  });

  it('follows Apple, GitHub and Google guidance: black Apple, dark GitHub, neutral Google', () => {
    const look = (id: string) => {
      const c = catalogue.find((x) => x.id === id)!;
      return providerButtonLook(c, new Set());
    };
    expect(look('apple').light).toEqual({ background: '#000000', text: '#ffffff', border: '#000000', mark: '#ffffff' });
    expect(look('apple').dark.background).toBe('#ffffff');
    expect(look('github').light).toMatchObject({ background: '#24292f', mark: '#ffffff' });
    expect(look('github').dark).toMatchObject({ background: '#24292f', mark: '#ffffff' });
    expect(look('google').light).toMatchObject({ background: '#ffffff', text: '#1f1f1f' });
    // Google's blue mark where it has contrast.
    expect(look('google').light.mark).toBe('#1a73e8');
  });

  it('a provider without a mark or colour gets a neutral button with a monogram, never the primary colour', () => {
    const html = renderSignInPage(params({ providers: [provider('corp-sso', 'oidc', { name: 'Corp SSO' })] }));
    expect(pageColors(html, 0).l).toEqual({ ...NEUTRAL_BUTTON.light, mark: NEUTRAL_BUTTON.light.text });
    expect(pageColors(html, 0).d).toEqual({ ...NEUTRAL_BUTTON.dark, mark: NEUTRAL_BUTTON.dark.text });
    expect(html).toContain('data-mark="monogram:C"');
    expect(html).toMatch(/<text [^>]*>C<\/text>/);
    expect(html).toContain('class="button oauth provider-0"');
  });

  it('monograms differ on one page: a second letter when the first is taken', () => {
    const used = new Set<string>();
    const keys = ['Kinde', 'Keycloak Dev', 'Kin', '<->', '<b>'].map(
      (name) => providerButtonLook({ id: `x-${name}`, name }, used).markKey,
    );
    expect(keys).toEqual(['monogram:K', 'monogram:KD', 'monogram:Ki', 'monogram:?', 'monogram:B']);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('a mark that is not in the generated table, or not a slug, is not drawn', () => {
    expect(simpleIconPath('no-such-icon')).toBeUndefined();
    expect(simpleIconPath('../../package')).toBeUndefined();
    expect(simpleIconPath('constructor')).toBeUndefined();
    expect(simpleIconPath('github')).toMatch(/^M/);
  });

  it('the generated marks are what scripts/provider-marks.mjs makes from the installed simple-icons', async () => {
    // @ts-expect-error: a plain ES module script without types.
    const { generate } = (await import('../../scripts/provider-marks.mjs')) as { generate(): string };
    const committed = readFileSync(new URL('./provider-marks.generated.ts', import.meta.url), 'utf8');
    // Out of date: run `node scripts/provider-marks.mjs`.
    expect(committed).toBe(generate());
  });

  it('a logo of the provider replaces the mark', () => {
    const html = renderSignInPage(params({ providers: [provider('x', 'oauth', { style: { logo: '/x.svg' } })] }));
    expect(html).toContain('<img src="/x.svg"');
    expect(html).not.toContain('<svg class="mark"');
  });

  it('computes WCAG contrast ratios', () => {
    expect(contrastRatio('#000', '#fff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
    expect(contrastRatio('#0866ff', '#fff')).toBeGreaterThan(4.5);
    expect(contrastRatio('red', '#fff')).toBeUndefined();
  });
});
