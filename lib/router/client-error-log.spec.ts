// Failures a client causes are logged as warnings, never as errors (issue 35): each type below, raised
// by the route that raises it, ends as one `[Type] message` warning and no error line. They used to
// be errors, so anyone could write ERROR lines at will (a forged logout token needs no credentials).
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { AUTH_SERVICES } from '../auth.providers.js';
import type { SendVerificationRequestParams } from '../methods/email/email.types.js';
import { createAuthTestbed, everyProvider, type AuthTestbed } from '../sign-in/fixtures/auth-testbed.fixture.js';
import { createAccountBed, Client } from './fixtures/account-client.fixture.js';
import { AuthRouterService } from './auth-router.service.js';

/** Captures the warnings and errors of the testbed's logger (the object `RequestErrorLog` writes to). */
function captureLog(bed: AuthTestbed) {
  const lines = { warn: [] as string[], error: [] as string[] };
  jest.spyOn(bed.config.logger, 'warn').mockImplementation((line: string) => void lines.warn.push(line));
  jest
    .spyOn(bed.config.logger, 'error')
    .mockImplementation((e: Error) => void lines.error.push(`${e.name}: ${e.message}`));
  return lines;
}

/** Exactly one warning of `type`, no error line, and none of `secrets` in any line. */
function expectWarnedOnce(lines: { warn: string[]; error: string[] }, type: string, secrets: string[] = []): void {
  expect(lines.error).toEqual([]);
  expect(lines.warn.filter((l) => l.startsWith(`[${type}] `))).toHaveLength(1);
  for (const line of [...lines.warn, ...lines.error]) for (const s of secrets) expect(line).not.toContain(s);
}

// promise: security.logs
describe('client mistakes are logged as warnings, from the route that raises them', () => {
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('LogoutTokenError: an unsigned (`alg: none`) logout token posted by anyone', async () => {
    const bed = await createAuthTestbed(
      {
        providers: [
          {
            ...(everyProvider()[0] as object),
            id: 'bc',
            issuer: 'https://op.example',
            jwks_endpoint: 'https://op.example/jwks',
            backchannelLogout: true,
          } as never,
        ],
      },
      AUTH_SERVICES,
    );
    const lines = captureLog(bed);
    const b64u = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const claims = {
      iss: 'https://op.example',
      aud: 'c',
      iat: Math.floor(Date.now() / 1000),
      jti: 'forged-jti-0123456789',
      sub: 'victim',
      events: { 'http://schemas.openid.net/event/backchannel-logout': {} },
    };
    const payload = b64u(claims);
    const forged = `${b64u({ alg: 'none', typ: 'logout+jwt' })}.${payload}.`;
    const request = bed.request('POST', '/backchannel-logout/bc', { body: { logout_token: forged } });
    const response = await bed.get(AuthRouterService).handle(request, 'backchannel-logout', 'bc');
    expect(response).toMatchObject({
      status: 400,
      json: { error: 'LogoutTokenError', message: expect.stringMatching(/signature/) },
    });
    expectWarnedOnce(lines, 'LogoutTokenError', [payload, claims.jti]);
  });

  it('ReauthenticationRequired: POST /link/:provider with a sign-in older than the window', async () => {
    const bed = await createAuthTestbed(
      { providers: everyProvider(), account: { recentSignInMaxAge: 60 } },
      AUTH_SERVICES,
    );
    const client = new Client(bed);
    await client.form('/callback/credentials', { username: 'ada', password: 'right' });
    const csrfToken = await client.csrf();
    const lines = captureLog(bed);
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'setTimeout', 'setInterval', 'queueMicrotask'] });
    jest.setSystemTime(Date.now() + 61_000);
    const response = await client.send('POST', '/link/idp', { body: { csrfToken } });
    expect(new URL(response.redirect!).searchParams.get('error')).toBe('ReauthenticationRequired');
    expectWarnedOnce(lines, 'ReauthenticationRequired', [csrfToken]);
  });

  describe('the account API', () => {
    let bed: AuthTestbed;
    let client: Client;
    let mails: SendVerificationRequestParams[];
    let lines: { warn: string[]; error: string[] };

    beforeEach(async () => {
      ({ bed, client, mails } = await createAccountBed(AUTH_SERVICES));
      lines = captureLog(bed);
    });

    it('ReauthenticationRequired: a sensitive action from an old sign-in', async () => {
      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'setTimeout', 'setInterval', 'queueMicrotask'] });
      jest.setSystemTime(Date.now() + 11 * 60_000);
      const refused = await client.api('/account/sessions/end-others');
      expect(refused).toMatchObject({ status: 403, json: { error: 'ReauthenticationRequired' } });
      expectWarnedOnce(lines, 'ReauthenticationRequired');
    });

    it('WrongPassword: a wrong current password', async () => {
      expect((await client.api('/account/password', { newPassword: 'correct horse' })).json).toEqual({ ok: true });
      lines.warn.length = 0;
      const refused = await client.api('/account/password', {
        newPassword: 'battery staple',
        currentPassword: 'a wrong one',
      });
      expect(refused).toMatchObject({ status: 400, json: { error: 'WrongPassword' } });
      expectWarnedOnce(lines, 'WrongPassword', ['a wrong one', 'battery staple']);
    }, 20_000);

    it('LastSignInMethod: unlinking the only way in', async () => {
      await bed.adapter!.linkAccount({ userId: 'u1', provider: 'idp', providerAccountId: 'idp-1', type: 'oauth' });
      await bed.adapter!.unlinkAccount({ provider: 'credentials', providerAccountId: 'u1' });
      await bed.adapter!.updateUser({ id: 'u1', emailVerified: null });
      const refused = await client.api('/account/accounts/unlink', { provider: 'idp', providerAccountId: 'idp-1' });
      expect(refused).toMatchObject({ status: 400, json: { error: 'LastSignInMethod' } });
      expectWarnedOnce(lines, 'LastSignInMethod');
    });

    it('EmailInUse: confirming an address another user took meanwhile', async () => {
      await client.api('/account/email', { email: 'taken@example.com' });
      await bed.adapter!.createUser({ id: 'u2', email: 'taken@example.com', emailVerified: null });
      const link = new URL(mails[0]!.url);
      const refused = await client.api('/account/email/confirm', Object.fromEntries(link.searchParams));
      expect(refused).toMatchObject({ status: 400, json: { error: 'EmailInUse' } });
      expectWarnedOnce(lines, 'EmailInUse', [link.searchParams.get('token')!]);
    });
  });
});
