import { createHmac, randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { AUTH_SERVICES } from '../../auth.providers.js';
import { clientText } from '../../core/error-log.js';
import { AuthRouterService } from '../../router/auth-router.service.js';
import { createAuthTestbed, type AuthTestbed } from '../../sign-in/fixtures/auth-testbed.fixture.js';
import type { AuthResponse } from '../../types/http.types.js';
import { BACKCHANNEL_LOGOUT_EVENT } from './backchannel-logout.js';

const ISSUER = 'https://op.example';
const CLIENT_ID = 'bc-client';
/** HS256 logout tokens MACed with the client secret: no JWKS to fetch. At least 32 bytes. */
const CLIENT_SECRET = 'a-client-secret-that-is-long-enough-for-hs256';

const b64u = (text: string) => Buffer.from(text).toString('base64url');

/** A logout token whose header and payload are exactly the JSON texts given, MACed with the client secret. */
function rawToken(payload: string, header = '{"alg":"HS256","typ":"logout+jwt"}'): string {
  const input = `${b64u(header)}.${b64u(payload)}`;
  return `${input}.${createHmac('sha256', CLIENT_SECRET).update(input).digest('base64url')}`;
}

/** The JSON text of valid claims (a fresh `jti`), with `extra` members spliced in at the end as written. */
function claimsText(overrides: Record<string, unknown> = {}, extra = ''): string {
  const claims: Record<string, unknown> = {
    iss: ISSUER,
    aud: CLIENT_ID,
    iat: Math.floor(Date.now() / 1000),
    jti: randomUUID(),
    sub: 'op-user',
    events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
    ...overrides,
  };
  for (const [k, v] of Object.entries(claims)) if (v === undefined) delete claims[k];
  const text = JSON.stringify(claims);
  return extra ? `${text.slice(0, -1)},${extra}}` : text;
}

describe('POST /backchannel-logout/:provider: strict logout tokens', () => {
  let bed: AuthTestbed;
  let warnings: string[];
  let errors: string[];

  beforeEach(async () => {
    warnings = [];
    errors = [];
    bed = await createAuthTestbed(
      {
        providers: [
          {
            id: 'bc',
            name: 'OP',
            type: 'oauth',
            issuer: ISSUER,
            clientId: CLIENT_ID,
            clientSecret: CLIENT_SECRET,
            authorization: `${ISSUER}/authorize`,
            token: `${ISSUER}/token`,
            userinfo: `${ISSUER}/userinfo`,
            client: { id_token_signed_response_alg: 'HS256' },
            backchannelLogout: true,
          } as never,
        ],
        logger: {
          warn: (line: string) => void warnings.push(line),
          error: (error: Error) => void errors.push(`${error.name}: ${error.message}`),
        },
      },
      AUTH_SERVICES,
    );
  });

  function post(logoutToken: string): Promise<AuthResponse> {
    const request = bed.request('POST', '/backchannel-logout/bc', {
      body: { logout_token: logoutToken },
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    return bed.get(AuthRouterService).handle(request, 'backchannel-logout', 'bc');
  }

  /** Posts the token; expects the 400 LogoutTokenError matching `message`, logged as one warning. */
  async function expectRefused(logoutToken: string, message: RegExp): Promise<void> {
    const response = await post(logoutToken);
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ error: 'LogoutTokenError', message: expect.stringMatching(message) });
    expect(warnings.at(-1)).toMatch(/^\[LogoutTokenError\] /);
    expect(errors).toEqual([]);
  }

  it('accepts a valid token (the control for every refusal below)', async () => {
    expect(await post(rawToken(claimsText()))).toMatchObject({ status: 200, json: {} });
    // Member names repeated in different objects are no duplicates.
    const nested = claimsText({ events: { [BACKCHANNEL_LOGOUT_EVENT]: { sub: 'x' } } });
    expect(await post(rawToken(nested))).toMatchObject({ status: 200 });
    expect(errors).toEqual([]);
  });

  it('refuses an `events` claim that is an array, or whose back-channel member is not an object', async () => {
    const refusals = [
      { events: [{ [BACKCHANNEL_LOGOUT_EVENT]: {} }] },
      { events: [BACKCHANNEL_LOGOUT_EVENT] },
      { events: { [BACKCHANNEL_LOGOUT_EVENT]: [] } },
      { events: { [BACKCHANNEL_LOGOUT_EVENT]: [{}] } },
      { events: { [BACKCHANNEL_LOGOUT_EVENT]: null } },
      { events: { [BACKCHANNEL_LOGOUT_EVENT]: 'yes' } },
      { events: 'x' },
    ];
    for (const overrides of refusals) await expectRefused(rawToken(claimsText(overrides)), /logout event/);
  });

  it('refuses a payload that names a member twice, whichever copy would win', async () => {
    const event = JSON.stringify(BACKCHANNEL_LOGOUT_EVENT);
    const cases: Array<[string, string]> = [
      // `events` twice: the last (valid) one would win under JSON.parse.
      [claimsText({ events: undefined }, `"events":[],"events":{${event}:{}}`), 'events'],
      [claimsText({}, `"events":{${event}:{}}`), 'events'],
      // `sub` twice: which user's sessions end depends on the parser.
      [claimsText({}, '"sub":"victim"'), 'sub'],
      // The same name written with an escape.
      [claimsText({}, '"s\\u0075b":"victim"'), 'sub'],
      // A duplicate inside the events object.
      [claimsText({ events: undefined }, `"events":{${event}:{},${event}:{}}`), BACKCHANNEL_LOGOUT_EVENT],
    ];
    for (const [payload, name] of cases) {
      // The duplicates are what is refused: each payload alone is valid JSON with valid (last-wins) claims.
      expect(JSON.parse(payload)).toMatchObject({ iss: ISSUER });
      await expectRefused(rawToken(payload), /names the member .* twice/);
      expect(warnings.at(-1)).toContain(clientText(name));
    }
  });

  it('refuses a header that names a member twice', async () => {
    await expectRefused(
      rawToken(claimsText(), '{"alg":"HS256","typ":"JWT","typ":"logout+jwt"}'),
      /names the member "typ" twice/,
    );
  });

  it('logs no part of a refused token', async () => {
    const token = rawToken(claimsText({}, '"sub":"victim"'));
    await expectRefused(token, /twice/);
    for (const line of warnings) for (const part of token.split('.')) expect(line).not.toContain(part);
  });
});
