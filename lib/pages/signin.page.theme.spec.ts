import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { parseTags } from '../../test/setup/html-checks.js';
import { GERMAN_MESSAGES } from '../config/messages/page-messages.js';
import { params, theme } from './fixtures/signin-page.fixture.js';
import { renderSignInPage } from './signin.page.js';

describe('renderSignInPage', () => {
  describe('theme', () => {
    it.each(['auto', 'dark', 'light'] as const)('colour scheme %s sets the body class', (colorScheme) => {
      const html = renderSignInPage(params({ theme: { ...theme, colorScheme } }));
      expect(html).toContain(`<body class="theme-${colorScheme}">`);
    });

    it('follows the system colour scheme in auto mode', () => {
      const html = renderSignInPage(params());
      expect(html).toMatch(/@media \(prefers-color-scheme:dark\)\{\.theme-auto\{[^}]*color-scheme:dark\}\}/);
    });

    it('uses the brand colour, the button text colour and the logo', () => {
      const html = renderSignInPage(
        params({ theme: { colorScheme: 'light', brandColor: '#7c3aed', buttonText: '#fefefe', logo: '/logo.svg' } }),
      );
      expect(html).toContain('body{--brand:#7c3aed;--brand-text:#fefefe}');
      expect(html).toContain('<img class="logo" src="/logo.svg" alt="">');
      const csp = parseTags(html).find((t) => t.attrs['http-equiv'] === 'Content-Security-Policy')!.attrs.content!;
      expect(csp).toContain("img-src 'self'");
    });

    // promise: pages.app-name
    it("names the app in the heading, the tab title and the logo's alt text when the theme has a name", () => {
      const html = renderSignInPage(params({ theme: { ...theme, logo: '/logo.svg', brandName: 'Acme <Notes>' } }));
      expect(html).toContain('<title>Sign in to Acme &lt;Notes&gt;</title>');
      expect(html).toContain('<h1>Sign in to Acme &lt;Notes&gt;</h1>');
      expect(html).toContain('<img class="logo" src="/logo.svg" alt="Acme &lt;Notes&gt;">');
      const german = renderSignInPage(params({ theme: { ...theme, brandName: 'Acme' }, messages: GERMAN_MESSAGES }));
      expect(german).toContain('<h1>Bei Acme anmelden</h1>');
      // Blank is no name.
      expect(renderSignInPage(params({ theme: { ...theme, brandName: '  ' } }))).toContain('<h1>Sign in</h1>');
    });

    it('picks a readable text colour for a light brand colour', () => {
      expect(renderSignInPage(params({ theme: { ...theme, brandColor: '#fde047' } }))).toContain(
        '--brand:#fde047;--brand-text:#000',
      );
    });

    it('allows exactly its inline style sheet through the CSP hash', () => {
      const html = renderSignInPage(params());
      const style = /<style>([\s\S]*)<\/style>/.exec(html)![1]!;
      const hash = createHash('sha256').update(style).digest('base64');
      const csp = parseTags(html).find((t) => t.attrs['http-equiv'] === 'Content-Security-Policy')!.attrs.content!;
      expect(csp).toContain(`style-src 'sha256-${hash}'`);
      expect(html).not.toMatch(/\sstyle="/);
    });

    it('gives keyboard users a visible focus ring', () => {
      expect(renderSignInPage(params())).toContain(':focus-visible{outline:2px solid var(--focus)');
    });
  });
});
