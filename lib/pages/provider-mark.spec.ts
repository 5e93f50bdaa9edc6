import { describe, expect, it } from '@jest/globals';
import { oauthProviderCatalog } from '../providers/catalog/catalog.js';
import { readableTextColor } from '../util/html-escape.js';
import { params, provider } from './fixtures/signin-page.fixture.js';
import { contrastRatio, providerMark } from './provider-mark.js';
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

describe('provider marks', () => {
  it('covers the whole catalogue', () => {
    expect(catalogue).toHaveLength(Object.keys(oauthProviderCatalog).length);
    expect(catalogue.length).toBeGreaterThan(90);
  });

  // promise: pages.provider-contrast
  it.each(catalogue)('$id: its button text has WCAG AA contrast (4.5:1) on its brand colour', ({ style }) => {
    const bg = style.brandColor!;
    const text = style.text ?? readableTextColor(bg);
    expect(contrastRatio(bg, text)).toBeGreaterThanOrEqual(4.5);
  });

  // promise: pages.provider-marks
  it.each(catalogue)(
    '$id: its button shows its own small mark (the initial), no brand artwork',
    ({ id, name, style }) => {
      const html = renderSignInPage(params({ providers: [provider(id, 'oauth', { name, style })] }));
      const mark = /<svg class="mark"[^]*?<\/svg>/.exec(html)?.[0];
      expect(mark).toBe(providerMark(name));
      expect(Buffer.byteLength(mark!)).toBeLessThan(2048);
      expect(mark).not.toMatch(/<path|<image|href=/);
      expect(mark).toContain('aria-hidden="true"');
      expect(mark).toContain(`>${name.match(/[\p{L}\p{N}]/u)![0].toUpperCase()}</text>`);
      // The initial is cut out in the button's own colour.
      expect(html).toContain(`--mark-cut:${style.brandColor}}`);
    },
  );

  it('a logo of the provider replaces the mark; a name without a letter gets "?"', () => {
    const html = renderSignInPage(params({ providers: [provider('x', 'oauth', { style: { logo: '/x.svg' } })] }));
    expect(html).toContain('<img src="/x.svg"');
    expect(html).not.toContain('<svg class="mark"');
    expect(providerMark('<->')).toContain('>?</text>');
    expect(providerMark('<b>')).toContain('>B</text>');
  });

  it('computes WCAG contrast ratios', () => {
    expect(contrastRatio('#000', '#fff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
    expect(contrastRatio('#0866ff', '#fff')).toBeGreaterThan(4.5);
    expect(contrastRatio('red', '#fff')).toBeUndefined();
  });
});
