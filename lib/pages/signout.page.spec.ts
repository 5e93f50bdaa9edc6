import { describe, expect, it } from '@jest/globals';
import { externalResources, parseTags } from '../../test/setup/html-checks.js';
import { BUSY_SCRIPT } from './page-layout.js';
import { renderSignOutPage } from './signout.page.js';

const theme = { colorScheme: 'light', logo: '', brandColor: '#111827', buttonText: '' } as const;

describe('renderSignOutPage', () => {
  it('a refused sign-out (?error=MissingCSRF) says why above the form; an unknown type is never echoed', () => {
    const params = { csrfToken: 't0k', callbackUrl: '/after', signOutUrl: 'http://127.0.0.1:3000/auth/signout', theme };
    const html = renderSignOutPage({ ...params, error: 'MissingCSRF' });
    expect(html).toContain(
      '<div class="error" role="alert" data-error="MissingCSRF"><p>The form expired or was sent from another page. Please try again.</p></div>',
    );
    expect(html.indexOf('role="alert"')).toBeLessThan(html.indexOf('<form'));
    const hostile = renderSignOutPage({ ...params, error: '<script>x</script>' });
    expect(hostile).toContain('data-error="Unknown"');
    expect(hostile).not.toContain('<script>x');
    expect(renderSignOutPage(params)).not.toContain('role="alert"');
  });
  it('asks for confirmation with a POST form carrying the CSRF token and callback URL', () => {
    const html = renderSignOutPage({
      csrfToken: 't0k',
      callbackUrl: '/after',
      signOutUrl: 'http://127.0.0.1:3000/auth/signout',
      theme,
    });
    const tags = parseTags(html);
    expect(tags.find((t) => t.name === 'form')!.attrs).toEqual({
      action: 'http://127.0.0.1:3000/auth/signout',
      method: 'post',
    });
    expect(tags.filter((t) => t.name === 'input')).toEqual([
      { name: 'input', attrs: { type: 'hidden', name: 'csrfToken', value: 't0k' } },
      { name: 'input', attrs: { type: 'hidden', name: 'callbackUrl', value: '/after' } },
    ]);
    expect(html).toContain('<button type="submit" class="button">Sign out</button>');
    expect(tags.find((t) => t.name === 'a')!.attrs.href).toBe('/after');
    expect(html).toContain('<body class="theme-light">');
    expect(html).toContain('--brand:#111827;--brand-text:#fff');
    expect(externalResources(html)).toEqual([]);
  });

  it('escapes hostile values and drops a cancel link that is not http(s)', () => {
    const xss = '"><script>alert(1)</script>';
    const html = renderSignOutPage({
      csrfToken: xss,
      callbackUrl: `javascript:alert(1)//${xss}`,
      signOutUrl: `http://127.0.0.1/auth/signout?${xss}`,
      theme,
    });
    expect(html.replace(`<script>${BUSY_SCRIPT}</script>`, '')).not.toMatch(/<script/i);
    expect(parseTags(html).filter((t) => t.name === 'a')).toEqual([]);
    expect(parseTags(html).find((t) => t.name === 'input')!.attrs.value).toBe(xss);
  });
});
