import { beforeEach, describe, expect, it } from '@jest/globals';
import { SoftAuthenticator } from '../../../test/setup/soft-authenticator.js';
import { AUTH_SERVICES } from '../../auth.providers.js';
import { InvalidRequest, RateLimited, WebAuthnVerificationError } from '../../errors/auth.errors.js';
import { Passkey } from './webauthn.provider.js';
import type { WebAuthnUserConfig } from './webauthn.types.js';
import {
  applyCookies,
  createAuthTestbed,
  ORIGIN,
  rejectionOf,
  type AuthTestbed,
} from '../../sign-in/fixtures/auth-testbed.fixture.js';
import type { AuthResponse } from '../../types/http.types.js';
import { WebAuthnService } from './webauthn.service.js';
import { storedCredentialId } from './webauthn.utils.js';

type Options = {
  challenge: string;
  rp: { id: string; name: string };
  user: { id: string; name: string };
  rpId: string;
} & Record<string, unknown>;

/** One browser: its cookie jar, and the flow it talks to. */
class Browser {
  jar: Record<string, string> = {};
  constructor(
    readonly bed: AuthTestbed,
    readonly flow: WebAuthnService,
  ) {}

  /** `GET /webauthn-options/passkey`; keeps the challenge cookie. */
  async options(
    query: Record<string, string> = {},
  ): Promise<{ action: string; options: Options; response: AuthResponse }> {
    const ctx = this.bed.providerContext(
      this.bed.request('GET', '/webauthn-options/passkey', { query, cookies: this.jar }),
      'passkey',
    );
    const response = await this.flow.options(ctx);
    this.jar = applyCookies(this.jar, ctx.responseCookies);
    const { action, options } = response.json as { action: string; options: Options };
    return { action, options, response };
  }

  /** `POST /callback/passkey` with the authenticator's answer; keeps the session cookie. */
  async callback(action: string, data: unknown, method = 'POST'): Promise<AuthResponse> {
    const ctx = this.bed.providerContext(
      this.bed.request(method, '/callback/passkey', { body: { action, data }, cookies: this.jar }),
      'passkey',
    );
    const response = await this.flow.callback(ctx);
    this.jar = applyCookies(applyCookies(this.jar, ctx.responseCookies), response.cookies);
    return response;
  }

  /** Registers `authenticator` as a new user with `email`. */
  async register(authenticator: SoftAuthenticator, email = 'ada@example.com'): Promise<AuthResponse> {
    const { options } = await this.options({ action: 'register', email });
    return this.callback('register', authenticator.register(options, { origin: ORIGIN }));
  }
}

async function passkeyTestbed(config: WebAuthnUserConfig = {}) {
  const bed = await createAuthTestbed({ providers: [Passkey(config)] }, AUTH_SERVICES);
  return { bed, browser: new Browser(bed, bed.get(WebAuthnService)) };
}

describe('WebAuthnService', () => {
  let bed: AuthTestbed;
  let browser: Browser;
  beforeEach(async () => {
    ({ bed, browser } = await passkeyTestbed());
  });

  describe('options', () => {
    it('offers an anonymous discoverable sign-in (Passkey: user verification required): no credentials listed, the challenge sealed in a cookie', async () => {
      const { action, options, response } = await browser.options();
      expect(action).toBe('authenticate');
      expect(options).toMatchObject({ rpId: '127.0.0.1', allowCredentials: [], userVerification: 'required' });
      expect(options.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(response.cookies).toBeUndefined();
      expect(browser.jar['authjs.challenge']).toBeDefined();
      expect(browser.jar['authjs.challenge']).not.toContain(options.challenge);
    });

    it("offers a new user's registration for the address asked for", async () => {
      const { action, options } = await browser.options({ action: 'register', email: ' Ada@Example.com' });
      expect(action).toBe('register');
      expect(options).toMatchObject({
        rp: { id: '127.0.0.1', name: '127.0.0.1:3000' },
        user: { name: 'ada@example.com', displayName: 'ada@example.com' },
        excludeCredentials: [],
        authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
      });
      expect((options.pubKeyCredParams as Array<{ alg: number }>).map((p) => p.alg)).toEqual(
        expect.arrayContaining([-7, -257]),
      );
    });

    it('answers the same for an address with an account as for one without', async () => {
      await browser.register(new SoftAuthenticator());
      const shape = async (email: string) => {
        const { options } = await new Browser(bed, browser.flow).options({ action: 'register', email });
        return JSON.stringify({
          ...options,
          challenge: '',
          user: { ...options.user, id: '', name: '', displayName: '' },
        });
      };
      expect(await shape('ada@example.com')).toBe(await shape('nobody@example.com'));
    });

    it.each([
      ['an unknown action', { action: 'delete' }],
      ['a malformed address', { action: 'register', email: 'not an address' }],
      ['a registration without an address', { action: 'register' }],
    ])('refuses %s with InvalidRequest', async (_label, query) => {
      expect(await rejectionOf(browser.options(query))).toBeInstanceOf(InvalidRequest);
    });

    it('counts requests per address (RateLimited past the limit)', async () => {
      ({ browser } = await passkeyTestbed({ rateLimit: { maxPerAddress: 2 } }));
      await browser.options({ action: 'register', email: 'ada@example.com' });
      await browser.options({ action: 'register', email: 'ada@example.com' });
      expect(await rejectionOf(browser.options({ action: 'register', email: 'ada@example.com' }))).toBeInstanceOf(
        RateLimited,
      );
    });
  });

  describe('registration', () => {
    it('stores a new user, the credential and its account, and starts a session', async () => {
      const authenticator = new SoftAuthenticator();
      const response = await browser.register(authenticator);
      expect(response.redirect).toBe(`${ORIGIN}/`);
      expect(browser.jar['authjs.session-token']).toBeDefined();
      const user = await bed.adapter!.getUserByEmail('ada@example.com');
      const stored = await bed.adapter!.getAuthenticator(storedCredentialId(authenticator.id));
      expect(stored).toMatchObject({ userId: user!.id, counter: 0, transports: 'internal' });
      expect(
        await bed.adapter!.getUserByAccount({ provider: 'passkey', providerAccountId: stored!.providerAccountId }),
      ).toMatchObject({ id: user!.id });
    });

    it('refuses a response from another origin and stores nothing', async () => {
      const { options } = await browser.options({ action: 'register', email: 'ada@example.com' });
      const error = await rejectionOf(
        browser.callback('register', new SoftAuthenticator().register(options, { origin: 'https://evil.example' })),
      );
      expect(error).toBeInstanceOf(WebAuthnVerificationError);
      expect(await bed.adapter!.getUserByEmail('ada@example.com')).toBeNull();
    });

    it('refuses an authenticator that cannot store a passkey', async () => {
      const { options } = await browser.options({ action: 'register', email: 'ada@example.com' });
      const error = await rejectionOf(
        browser.callback(
          'register',
          new SoftAuthenticator({ discoverable: false }).register(options, { origin: ORIGIN }),
        ),
      );
      expect(error.message).toMatch(/discoverable/);
    });

    it('refuses a credential registered already', async () => {
      const authenticator = new SoftAuthenticator();
      await browser.register(authenticator);
      const other = new Browser(bed, browser.flow);
      expect(await rejectionOf(other.register(authenticator, 'bob@example.com'))).toBeInstanceOf(
        WebAuthnVerificationError,
      );
      expect(await bed.adapter!.getUserByEmail('bob@example.com')).toBeNull();
    });
  });

  describe('authentication', () => {
    let authenticator: SoftAuthenticator;
    beforeEach(async () => {
      authenticator = new SoftAuthenticator();
      await browser.register(authenticator);
      browser = new Browser(bed, browser.flow);
    });

    it('signs the owner in and moves the counter', async () => {
      const { options } = await browser.options();
      const response = await browser.callback('authenticate', authenticator.authenticate(options, { origin: ORIGIN }));
      expect(response.cookies?.some((c) => c.name === 'authjs.session-token')).toBe(true);
      expect((await bed.adapter!.getAuthenticator(storedCredentialId(authenticator.id)))!.counter).toBe(1);
    });

    it.each([
      ['a tampered signature', { tamper: true }],
      ["another user's handle", { userHandle: Buffer.from('someone else').toString('base64url') }],
      ['a discoverable sign-in without a user handle', { userHandle: null }],
      ['a cross-origin frame', { crossOrigin: true }],
      ['another RP ID', { rpId: 'example.com' }],
      ['no user verification (required by Passkey)', { uv: false }],
    ])('refuses %s, leaving the counter and the session alone', async (_label, override) => {
      const { options } = await browser.options();
      const error = await rejectionOf(
        browser.callback('authenticate', authenticator.authenticate(options, { origin: ORIGIN, ...override })),
      );
      expect(error).toBeInstanceOf(WebAuthnVerificationError);
      expect((await bed.adapter!.getAuthenticator(storedCredentialId(authenticator.id)))!.counter).toBe(0);
      expect(browser.jar['authjs.session-token']).toBeUndefined();
    });

    it('uses a challenge once', async () => {
      const { options } = await browser.options();
      const jar = { ...browser.jar };
      await browser.callback('authenticate', authenticator.authenticate(options, { origin: ORIGIN }));
      browser.jar = jar;
      expect(
        await rejectionOf(browser.callback('authenticate', authenticator.authenticate(options, { origin: ORIGIN }))),
      ).toBeInstanceOf(WebAuthnVerificationError);
    });

    it('refuses without a challenge cookie, and with a challenge of the other ceremony', async () => {
      const { options } = await browser.options();
      const answer = authenticator.authenticate(options, { origin: ORIGIN });
      const jar = browser.jar;
      browser.jar = {};
      expect((await rejectionOf(browser.callback('authenticate', answer))).message).toMatch(/challenge is missing/);
      browser.jar = jar;
      expect(
        (
          await rejectionOf(
            browser.callback(
              'register',
              new SoftAuthenticator().register(
                { ...options, rp: { id: '127.0.0.1' }, user: { id: 'AA' } },
                { origin: ORIGIN },
              ),
            ),
          )
        ).message,
      ).toMatch(/another ceremony/);
    });

    it('refuses an unknown credential and a GET', async () => {
      const { options } = await browser.options();
      expect(
        (
          await rejectionOf(
            browser.callback('authenticate', new SoftAuthenticator().authenticate(options, { origin: ORIGIN })),
          )
        ).message,
      ).toMatch(/not registered/);
      expect(await rejectionOf(browser.callback('authenticate', {}, 'GET'))).toBeInstanceOf(InvalidRequest);
    });
  });
});
