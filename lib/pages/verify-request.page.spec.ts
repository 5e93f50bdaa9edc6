import { describe, expect, it } from '@jest/globals';
import { externalResources, parseTags } from '../../test/setup/html-checks.js';
import { renderVerifyRequestPage } from './verify-request.page.js';

const theme = {
  colorScheme: 'auto',
  logo: 'https://cdn.example.com/logo.png',
  brandColor: '',
  buttonText: '',
} as const;

describe('renderVerifyRequestPage', () => {
  it('tells the user to check their email and links back to the site', () => {
    const html = renderVerifyRequestPage({ url: 'http://127.0.0.1:3000', theme });
    expect(html).toContain('<h1>Check your email</h1>');
    expect(html).toContain('<a href="http://127.0.0.1:3000/">Back to 127.0.0.1:3000</a>');
    expect(html).toContain('<img class="logo" src="https://cdn.example.com/logo.png" alt="">');
    expect(externalResources(html, ['https://cdn.example.com'])).toEqual([]);
    expect(parseTags(html).find((t) => t.attrs['http-equiv'])!.attrs.content).toContain(
      'img-src https://cdn.example.com',
    );
  });

  it('drops a link that is not http(s)', () => {
    const html = renderVerifyRequestPage({
      url: 'javascript:alert(1)',
      theme: { ...theme, logo: 'javascript:alert(2)' },
    });
    expect(html).not.toContain('javascript:');
    expect(parseTags(html).filter((t) => t.name === 'a' || t.name === 'img')).toEqual([]);
  });
});
