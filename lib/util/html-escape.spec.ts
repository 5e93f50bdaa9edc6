import { describe, expect, it } from '@jest/globals';
import { escapeAttr, escapeHtml, readableTextColor, safeCssColor, safeUrl } from './html-escape.js';

describe('escapeHtml / escapeAttr', () => {
  it('escapes the five HTML metacharacters', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });

  it('turns null and undefined into empty strings and numbers into text', () => {
    expect(escapeHtml(undefined)).toBe('');
    expect(escapeHtml(null)).toBe('');
    expect(escapeHtml(42)).toBe('42');
  });

  it('escapes backticks and equals signs in attributes and drops control characters', () => {
    expect(escapeAttr('a`b=c"d')).toBe('a&#96;b&#61;c&quot;d');
    expect(escapeAttr('x\u0000y\u0007z\u007f')).toBe('xyz');
  });

  it('never lets a value leave a double-quoted attribute', () => {
    const hostile = `"><script>alert(1)</script><x y="`;
    expect(escapeAttr(hostile)).not.toMatch(/[<>"]/);
  });
});

describe('safeUrl', () => {
  it.each([
    ['https://idp.example.com/logo.png', 'https://idp.example.com/logo.png'],
    ['http://127.0.0.1:3000/a?b=c', 'http://127.0.0.1:3000/a?b=c'],
    ['/auth/signin', '/auth/signin'],
  ])('accepts %s', (input, expected) => {
    expect(safeUrl(input)).toBe(expected);
  });

  it.each([
    'javascript:alert(1)',
    ' JaVaScRiPt:alert(1)',
    'vbscript:x',
    'data:text/html,<script>alert(1)</script>',
    '//evil.example/x',
    '/\\evil.example',
    'file:///etc/passwd',
    '',
    42,
    undefined,
  ])('refuses %p', (input) => {
    expect(safeUrl(input)).toBeUndefined();
    expect(safeUrl(input, true)).toBeUndefined();
  });

  it('accepts data: images only when asked to', () => {
    const png = 'data:image/png;base64,iVBORw0KGgo=';
    expect(safeUrl(png)).toBeUndefined();
    expect(safeUrl(png, true)).toBe(png);
    expect(safeUrl('data:image/svg+xml,%3Csvg%3E', true)).toBe('data:image/svg+xml,%3Csvg%3E');
  });
});

describe('safeCssColor', () => {
  it.each(['#fff', '#24292F', '#11223344', 'rebeccapurple', 'rgb(1, 2, 3)', 'hsl(210 40% 50% / .5)'])(
    'accepts %s',
    (c) => {
      expect(safeCssColor(c)).toBeDefined();
    },
  );

  it.each([
    'red;}body{background:url(https://evil.example/x)}',
    '#fff;color:red',
    'url(https://evil.example)',
    'expression(alert(1))',
    'rgb(1,2,3);x',
    '</style><script>',
    '',
    undefined,
  ])('refuses %p', (c) => {
    expect(safeCssColor(c)).toBeUndefined();
  });
});

describe('readableTextColor', () => {
  it.each([
    ['#000000', '#fff'],
    ['#24292f', '#fff'],
    ['#ffffff', '#000'],
    ['#fff', '#000'],
    ['#fbbc05', '#000'],
    ['#1d4ed8', '#fff'],
    ['red', '#fff'],
  ])('%s → %s', (bg, text) => {
    expect(readableTextColor(bg)).toBe(text);
  });
});
