import { describe, expect, it } from '@jest/globals';
import { externalResources, parseTags, visibleInputs } from '../../test/setup/html-checks.js';
import { renderEmailConfirmPage } from './email-confirm.page.js';

const theme = { colorScheme: 'auto', logo: '', brandColor: '', buttonText: '' } as const;

describe('renderEmailConfirmPage', () => {
  it('is a same-site form that posts the link values back, with no script and nothing external', () => {
    const html = renderEmailConfirmPage({
      action: 'https://app.example.com/auth/callback/email',
      token: 'abc_DEF-123',
      email: 'alice@example.com',
      callbackUrl: 'https://app.example.com/dashboard?a=1&b=2',
      theme,
    });
    const tags = parseTags(html);
    const form = tags.find((t) => t.name === 'form')!;
    expect(form.attrs).toMatchObject({ method: 'post', action: 'https://app.example.com/auth/callback/email' });
    const hidden = Object.fromEntries(tags.filter((t) => t.name === 'input').map((t) => [t.attrs.name, t.attrs.value]));
    expect(hidden).toEqual({
      token: 'abc_DEF-123',
      email: 'alice@example.com',
      callbackUrl: 'https://app.example.com/dashboard?a=1&b=2',
    });
    expect(tags.some((t) => t.name === 'button' && t.attrs.type === 'submit')).toBe(true);
    expect(tags.some((t) => t.name === 'script')).toBe(false);
    // Hidden fields only: nothing to label (the test says so rather than finding no unlabelled input).
    expect(visibleInputs(html)).toEqual([]);
    expect(externalResources(html)).toEqual([]);
  });

  it('escapes every value', () => {
    const html = renderEmailConfirmPage({
      action: 'javascript:alert(1)',
      token: '"><script>alert(2)</script>',
      email: '<img src=x onerror=alert(3)>@example.com',
      callbackUrl: '" autofocus onfocus="alert(4)',
      theme,
    });
    expect(html).not.toMatch(/<script|<img|javascript:|onfocus="/i);
    const form = parseTags(html).find((t) => t.name === 'form')!;
    expect(form.attrs.action).toBe('');
  });
});
