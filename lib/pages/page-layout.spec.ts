import { describe, expect, it } from '@jest/globals';
import { parseTags } from '../../test/setup/html-checks.js';
import { theme } from './fixtures/signin-page.fixture.js';
import { renderPage } from './page-layout.js';
import { renderSignOutPage } from './signout.page.js';

function csp(html: string): string {
  return parseTags(html).find((t) => t.attrs['http-equiv'] === 'Content-Security-Policy')!.attrs.content!;
}

describe('renderPage', () => {
  it("adds a render hook's nonce to script-src and style-src, and nothing for a malformed one", () => {
    const nonce = 'AAECAwQFBgcICQoLDA0ODw==';
    const html = renderPage({ title: 't', theme: { ...theme }, body: '<p>x</p>', nonce });
    expect(csp(html)).toMatch(new RegExp(`style-src 'sha256-[^']+' 'nonce-${nonce}'`));
    expect(csp(html)).toContain(`script-src 'nonce-${nonce}'`);
    for (const bad of ["x' 'unsafe-inline", 'short', 'a b c d e f g h i j k l']) {
      const page = csp(renderPage({ title: 't', theme: { ...theme }, body: '', nonce: bad }));
      expect(page).not.toContain('nonce-');
      expect(page).not.toContain('unsafe-inline');
    }
    expect(csp(renderPage({ title: 't', theme: { ...theme }, body: '' }))).not.toContain('script-src');
  });

  it('sets <html lang> from a well-formed tag only', () => {
    expect(renderPage({ title: 't', theme: { ...theme }, body: '', lang: 'pt-BR' })).toContain('<html lang="pt-BR">');
    expect(renderPage({ title: 't', theme: { ...theme }, body: '', lang: 'x"><script>' })).toContain(
      '<html lang="en">',
    );
  });

  it('a page replaced by a hook keeps its document, title and CSP', () => {
    const html = renderSignOutPage({
      theme: { ...theme },
      csrfToken: 'c',
      callbackUrl: '/',
      signOutUrl: '/auth/signout',
      nonce: 'AAECAwQFBgcICQoLDA0ODw==',
      replaceBody: (built) => `<section data-own>${built.includes('csrfToken') ? 'had the form' : ''}</section>`,
    });
    expect(html).toContain('<div class="card"><section data-own>had the form</section></div>');
    expect(csp(html)).toContain("'nonce-AAECAwQFBgcICQoLDA0ODw=='");
    expect(html).toContain('<title>Sign out</title>');
  });
});
