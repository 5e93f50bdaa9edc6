import { describe, expect, it } from '@jest/globals';
import { renderVerificationEmail } from './email.message.js';

describe('renderVerificationEmail', () => {
  const url =
    'https://app.example.com/auth/callback/email?callbackUrl=https%3A%2F%2Fapp.example.com%2F&token=abc_DEF-123&email=alice%40example.com';

  it('says "Sign in to <host>" in the subject, the text and the HTML, with the link', () => {
    const mail = renderVerificationEmail({ url });
    expect(mail.subject).toBe('Sign in to app.example.com');
    expect(mail.text).toContain('Sign in to app.example.com');
    expect(mail.text).toContain(url);
    expect(mail.html).toContain('Sign in to <strong>app&#8203;.example&#8203;.com</strong>');
    expect(mail.html).toContain(`href="${url.replace(/&/g, '&amp;').replace(/=/g, '&#61;')}"`);
  });

  it('escapes every dynamic value: link, host and theme', () => {
    const hostile = "https://evil.example/\"><script>alert(1)</script>?q=<b>&x='y'";
    const mail = renderVerificationEmail({
      url: hostile,
      theme: {
        brandColor: 'red;}</style><script>alert(2)</script>',
        buttonText: '#fff" onload="x',
        logo: 'javascript:alert(3)',
        colorScheme: 'dark',
      },
    });
    expect(mail.html).not.toMatch(/<script/i);
    expect(mail.html).toContain(
      'href="https://evil.example/&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;?q&#61;&lt;b&gt;&amp;x&#61;&#39;y&#39;"',
    );
    expect(mail.html).not.toContain('javascript:');
    expect(mail.html).not.toContain('onload="');
    // The unsafe colour fell back to the default brand colour.
    expect(mail.html).toContain('background:#2563eb');
  });

  it('uses a safe theme: brand colour, readable button text and an https logo', () => {
    const mail = renderVerificationEmail({
      url,
      theme: { brandColor: '#ffcc00', logo: 'https://cdn.example.com/logo.png' },
    });
    expect(mail.html).toContain('background:#ffcc00');
    expect(mail.html).toContain('color:#000');
    expect(mail.html).toContain('src="https://cdn.example.com/logo.png"');
  });

  it("a second factor's code is shown instead of the button (digits only), in the text part too", () => {
    const url = 'https://app.example.com/auth/two-factor';
    const mail = renderVerificationEmail({ url, purpose: 'two-factor-code', code: '042917' });
    expect(mail.subject).toBe('Your sign-in code for app.example.com');
    expect(mail.html).toContain('>042917</span>');
    expect(mail.html).not.toContain('<a href=');
    expect(mail.text).toContain('042917');
    expect(mail.text).not.toContain(url);
    // Anything but digits is not shown as a code: the link is.
    const odd = renderVerificationEmail({ url, purpose: 'two-factor-code', code: '<b>1</b>' });
    expect(odd.html).not.toContain('<b>1</b>');
    expect(odd.html).toContain('<a href=');
  });
});
