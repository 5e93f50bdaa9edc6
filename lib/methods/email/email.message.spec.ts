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
});
