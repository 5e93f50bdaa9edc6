import { beforeEach, describe, expect, it } from '@jest/globals';
import { AUTH_SERVICES } from '../../auth.providers.js';
import { AccessDenied, EmailSignInError, RateLimited, Verification } from '../../errors/auth.errors.js';
import { Email } from './email.provider.js';
import type { EmailUserConfig, SendVerificationRequestParams } from './email.types.js';
import type { AuthModuleOptions } from '../../config/auth-options.interface.js';
import {
  createAuthTestbed,
  rejectionOf,
  SECRET,
  type AuthTestbed,
} from '../../sign-in/fixtures/auth-testbed.fixture.js';
import { hashEmailToken } from './email-token.js';
import { EmailService } from './email.service.js';

const ADDRESS = 'ada@example.com';

/** A testbed with one email provider whose mails land in `sent`. */
async function emailTestbed(provider: EmailUserConfig = {}, options: Partial<AuthModuleOptions> = {}) {
  const sent: SendVerificationRequestParams[] = [];
  const bed = await createAuthTestbed(
    {
      providers: [Email({ sendVerificationRequest: async (params) => void sent.push(params), ...provider })],
      ...options,
    },
    AUTH_SERVICES,
  );
  return { bed, sent, flow: bed.get(EmailService) };
}

/** Asks for a link to `email` and returns the link the mail carried. */
async function requestLink(
  bed: AuthTestbed,
  flow: EmailService,
  sent: SendVerificationRequestParams[],
  email = ADDRESS,
  ip?: string,
): Promise<URL> {
  await flow.signIn(bed.providerContext(bed.request('POST', '/signin/email', { body: { email }, ip }), 'email'));
  return new URL(sent.at(-1)!.url);
}

/** Posts the confirmation form of `link` (its token and address). */
function confirm(bed: AuthTestbed, flow: EmailService, link: URL, over: Record<string, string> = {}) {
  const body = { token: link.searchParams.get('token')!, email: link.searchParams.get('email')!, ...over };
  return flow.callback(bed.providerContext(bed.request('POST', '/callback/email', { body }), 'email'));
}

describe('EmailService', () => {
  let bed: AuthTestbed;
  let sent: SendVerificationRequestParams[];
  let flow: EmailService;
  beforeEach(async () => {
    ({ bed, sent, flow } = await emailTestbed());
  });

  it('stores only the keyed hash of the token it mails, and redirects to the verify-request page', async () => {
    const response = await flow.signIn(
      bed.providerContext(bed.request('POST', '/signin/email', { body: { email: ' Ada@Example.com ' } }), 'email'),
    );
    expect(response.redirect).toBe(
      'http://127.0.0.1:3000/auth/verify-request?provider=email&type=email&email=ada%40example.com',
    );
    expect(sent).toHaveLength(1);
    const link = new URL(sent[0]!.url);
    expect(link.origin + link.pathname).toBe('http://127.0.0.1:3000/auth/callback/email');
    expect(link.searchParams.get('email')).toBe(ADDRESS);
    const token = link.searchParams.get('token')!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await bed.adapter!.useVerificationToken({ identifier: ADDRESS, token })).toBeNull();
    expect(
      await bed.adapter!.useVerificationToken({ identifier: ADDRESS, token: hashEmailToken(SECRET, ADDRESS, token) }),
    ).toMatchObject({ identifier: ADDRESS });
  });

  it('shows a confirmation page on GET and leaves the token unused', async () => {
    const link = await requestLink(bed, flow, sent);
    const query = Object.fromEntries(link.searchParams);
    const page = await flow.callback(bed.providerContext(bed.request('GET', '/callback/email', { query }), 'email'));
    expect(page.html).toContain('method="post"');
    expect(page.headers).toMatchObject({ 'Referrer-Policy': 'same-origin', 'X-Frame-Options': 'DENY' });
    expect(page.cookies).toBeUndefined();
    expect((await confirm(bed, flow, link)).redirect).toBe('http://127.0.0.1:3000/');
  });

  it('signs in once per link: the first POST creates a verified user and a session, the second is refused', async () => {
    const link = await requestLink(bed, flow, sent);
    const first = await confirm(bed, flow, link);
    expect(first.cookies?.map((c) => c.name)).toContain('authjs.session-token');
    const user = await bed.adapter!.getUserByEmail(ADDRESS);
    expect(user?.emailVerified).toBeInstanceOf(Date);
    const again = await rejectionOf(confirm(bed, flow, link));
    expect(again).toBeInstanceOf(Verification);
    expect(again.message).toMatch(/invalid or was already used/);
  });

  it('signs in directly on GET with consumeOnGet', async () => {
    ({ bed, sent, flow } = await emailTestbed({ consumeOnGet: true }));
    const link = await requestLink(bed, flow, sent);
    const response = await flow.callback(
      bed.providerContext(
        bed.request('GET', '/callback/email', { query: Object.fromEntries(link.searchParams) }),
        'email',
      ),
    );
    expect(response.cookies?.map((c) => c.name)).toContain('authjs.session-token');
    expect(await rejectionOf(confirm(bed, flow, link))).toBeInstanceOf(Verification);
  });

  it.each([
    ['a wrong token', { token: 'not-the-token' }],
    ['another address', { email: 'eve@example.com' }],
    ['a malformed token', { token: 'a\u0000b' }],
  ])('refuses %s with Verification and signs nobody in', async (_label, over) => {
    const link = await requestLink(bed, flow, sent);
    expect(await rejectionOf(confirm(bed, flow, link, over))).toBeInstanceOf(Verification);
    expect(await bed.adapter!.getUserByEmail(ADDRESS)).toBeNull();
  });

  it('refuses an expired token', async () => {
    const token = 'an-expired-token';
    await bed.adapter!.createVerificationToken({
      identifier: ADDRESS,
      token: hashEmailToken(SECRET, ADDRESS, token),
      expires: new Date(Date.now() - 1000),
    });
    const error = await rejectionOf(confirm(bed, flow, new URL(`http://x/?token=${token}&email=${ADDRESS}`)));
    expect(error).toBeInstanceOf(Verification);
    expect(error.message).toMatch(/expired/);
  });

  it('keeps only the latest link of an address working', async () => {
    const older = await requestLink(bed, flow, sent);
    const newer = await requestLink(bed, flow, sent);
    expect(await rejectionOf(confirm(bed, flow, older))).toBeInstanceOf(Verification);
    expect((await confirm(bed, flow, newer)).redirect).toBe('http://127.0.0.1:3000/');
  });

  it('refuses a fourth link for one address within the window (RateLimited), with no token stored or mail sent', async () => {
    for (let i = 0; i < 3; i++) await requestLink(bed, flow, sent);
    const error = await rejectionOf(requestLink(bed, flow, sent));
    expect(error).toBeInstanceOf(RateLimited);
    expect((error as RateLimited).retryAfter).toBeGreaterThan(0);
    expect(sent).toHaveLength(3);
    // Another address from another IP is not affected.
    await requestLink(bed, flow, sent, 'bob@example.com', '198.51.100.9');
    expect(sent).toHaveLength(4);
  });

  it('counts links per client IP across addresses', async () => {
    ({ bed, sent, flow } = await emailTestbed({ rateLimit: { maxPerIp: 2 } }));
    await requestLink(bed, flow, sent, 'a@example.com');
    await requestLink(bed, flow, sent, 'b@example.com');
    expect(await rejectionOf(requestLink(bed, flow, sent, 'c@example.com'))).toBeInstanceOf(RateLimited);
  });

  it('sends nothing and stores nothing when the signIn callback refuses the address', async () => {
    ({ bed, sent, flow } = await emailTestbed({}, { callbacks: { signIn: ({ user }) => user.email !== ADDRESS } }));
    expect(await rejectionOf(requestLink(bed, flow, sent))).toBeInstanceOf(AccessDenied);
    expect(sent).toEqual([]);
  });

  it('takes the token back when the mail cannot be sent', async () => {
    let token = '';
    ({ bed, flow } = await emailTestbed({
      sendVerificationRequest: async (params) => {
        token = params.token;
        throw new Error('SMTP down');
      },
    }));
    const error = await rejectionOf(
      flow.signIn(bed.providerContext(bed.request('POST', '/signin/email', { body: { email: ADDRESS } }), 'email')),
    );
    expect(error).toBeInstanceOf(EmailSignInError);
    expect(error.message).not.toContain(ADDRESS);
    expect(
      await bed.adapter!.useVerificationToken({ identifier: ADDRESS, token: hashEmailToken(SECRET, ADDRESS, token) }),
    ).toBeNull();
  });

  it.each([
    ['an empty address', ''],
    ['a list of addresses', 'a@example.com, b@example.com'],
    ['no address', undefined],
  ])('refuses %s with EmailSignin before counting or sending', async (_label, email) => {
    const error = await rejectionOf(
      flow.signIn(bed.providerContext(bed.request('POST', '/signin/email', { body: { email } }), 'email')),
    );
    expect(error).toBeInstanceOf(EmailSignInError);
    expect(sent).toEqual([]);
  });
});
