import { describe, expect, it } from '@jest/globals';
import { externalResources, parseTags, unlabeledInputs, visibleInputs } from '../../test/setup/html-checks.js';
import { AUTH, params, provider } from './fixtures/signin-page.fixture.js';
import { BUSY_SCRIPT } from './page-layout.js';
import { renderSignInPage } from './signin.page.js';

// promise: pages.escaping
describe('renderSignInPage', () => {
  describe('hostile values', () => {
    const xss = '"><script>alert(1)</script><img src=x onerror=alert(1)>';
    const hostile = params({
      providers: [
        provider('evil', 'oauth', {
          name: xss,
          signinUrl: `${AUTH}/signin/evil?x=${xss}`,
          style: {
            brandColor: 'red;}body{background:url(https://evil.example/a)}',
            logo: 'javascript:alert(1)',
            text: '#fff;x:url(https://evil.example/b)',
          },
        }),
        provider('mail', 'email', { name: xss }),
        provider('creds', 'credentials', {
          name: xss,
          credentials: { [`u"><script>`]: { label: xss, type: `text"><script>`, placeholder: xss, value: xss } },
        }),
        provider(`pk"><script>`, 'webauthn', { name: xss, formFields: { email: { label: xss } } }),
      ],
      csrfToken: xss,
      callbackUrl: `"><script>alert(1)</script>`,
      email: xss,
      error: xss,
      code: xss,
      theme: {
        colorScheme: `dark"><script>` as never,
        logo: `"><script>alert(1)</script>`,
        brandColor: '#000;}</style><script>alert(1)</script>',
        buttonText: xss,
      },
      webauthnScriptUrl: 'javascript:alert(1)',
    });
    // Without the page's own busy-state script, which no value reaches.
    const html = renderSignInPage(hostile).replace(`<script>${BUSY_SCRIPT}</script>`, '');
    const tags = parseTags(html);

    it('creates no script, image or event handler from a value', () => {
      expect(tags.filter((t) => t.name === 'script')).toEqual([]);
      expect(tags.filter((t) => t.name === 'img')).toEqual([]);
      expect(tags.filter((t) => Object.keys(t.attrs).some((a) => a.startsWith('on')))).toEqual([]);
      expect(html).not.toMatch(/<script/i);
      expect(html).not.toContain('javascript:');
    });

    it('keeps hostile values inside their attributes, intact', () => {
      const hidden = tags.filter((t) => t.name === 'input' && t.attrs.type === 'hidden');
      expect(hidden.filter((t) => t.attrs.name === 'csrfToken').map((t) => t.attrs.value)).toEqual([xss, xss, xss]); // no passkey form: its script URL was refused
      expect(
        hidden
          .filter((t) => t.attrs.name === 'callbackUrl')
          .every((t) => t.attrs.value === `"><script>alert(1)</script>`),
      ).toBe(true);
      expect(tags.find((t) => t.name === 'input' && t.attrs.name === 'email')!.attrs.value).toBe(xss);
    });

    it('keeps hostile colours and logos out of the style sheet', () => {
      const style = /<style>([\s\S]*)<\/style>/.exec(html)![1]!;
      expect(style).not.toContain('evil.example');
      expect(style).not.toContain('</style');
      expect(style).toContain('--brand:#2563eb');
      expect(externalResources(html)).toEqual([]);
      expect(html).toContain('<body class="theme-auto">');
    });

    it('still labels every input', () => {
      expect(visibleInputs(html)).toEqual(['<input name="email">', '<input name="u"><script>">']);
      expect(unlabeledInputs(html)).toEqual([]);
    });
  });
});
