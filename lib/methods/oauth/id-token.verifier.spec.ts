import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import type * as o from 'oauth4webapi';
import { OAuthCallbackError } from '../../errors/auth.errors.js';
import { IdTokenVerifier } from './id-token.verifier.js';
import { normalized, oauthConfig, startServer, type TestServer } from './fixtures/oauth.fixture.js';

const LONG_SECRET = 'a-client-secret-of-exactly-32-b!';
let server: TestServer;
let jwks: { keys: JWK[] } = { keys: [] };
let jwksStatus = 200;
let signingKey: CryptoKey;

beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  signingKey = privateKey;
  jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] };
  server = await startServer(({ url }) =>
    url.pathname === '/jwks'
      ? { status: jwksStatus, body: jwksStatus === 200 ? jwks : { error: 'down' } }
      : { status: 404 },
  );
});
afterAll(() => server.close());

/** A verifier over a fresh config (fresh key cache), its provider, and the debug lines it logs. */
function setup(extra: Record<string, unknown> = {}) {
  const debug: Array<[string, unknown]> = [];
  const config = oauthConfig({
    providers: [
      {
        id: 'idp',
        name: 'IdP',
        type: 'oidc',
        issuer: 'https://op.example',
        clientId: 'c',
        clientSecret: LONG_SECRET,
        ...extra,
      } as never,
    ],
    logger: { debug: (message: string, metadata?: unknown) => debug.push([message, metadata]) },
  });
  const as: o.AuthorizationServer = { issuer: 'https://op.example', jwks_uri: `${server.url}/jwks` };
  return { verifier: new IdTokenVerifier(config), p: normalized(config, 'idp'), as, debug };
}

function rs256(kid = 'k1', key: CryptoKey = signingKey): Promise<string> {
  return new SignJWT({ sub: 'u1' })
    .setProtectedHeader({ alg: 'RS256', kid })
    .setIssuer('https://op.example')
    .setAudience('c')
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(key);
}

function hs(alg: 'HS256' | 'HS384' | 'HS512', secret: string): Promise<string> {
  return new SignJWT({ sub: 'u1' }).setProtectedHeader({ alg }).setIssuedAt().sign(new TextEncoder().encode(secret));
}

/** The message of the OAuthCallbackError `promise` rejects with. */
async function refusal(promise: Promise<void>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OAuthCallbackError);
  return (error as Error).message;
}

describe('IdTokenVerifier: asymmetric signatures (keys from jwks_uri)', () => {
  it('accepts a token signed with a key of the JWKS, fetching the key set once', async () => {
    const { verifier, p, as, debug } = setup();
    const before = server.received.length;
    await verifier.verifySignature(p, as, await rs256());
    await verifier.verifySignature(p, as, await rs256());
    expect(server.received.length - before).toBe(1);
    expect(debug).toContainEqual(['oauth_jwks_fetched', { provider: 'idp', jwkCount: 1 }]);
  });

  it('refuses a token whose signature does not verify', async () => {
    const { verifier, p, as } = setup();
    const token = await rs256();
    const [header, payload] = token.split('.');
    const other = (await rs256()).split('.')[2];
    const forged = `${header}.${payload.slice(0, -2)}AA.${other}`;
    expect(await refusal(verifier.verifySignature(p, as, forged))).toBe("IdP's ID token signature is invalid.");
  });

  it('refuses a key the JWKS lacks even after a refetch, naming the kid', async () => {
    const { verifier, p, as } = setup();
    const { privateKey } = await generateKeyPair('RS256');
    expect(await refusal(verifier.verifySignature(p, as, await rs256('k-unknown', privateKey)))).toBe(
      `IdP's ID token is signed with a signing key (kid "k-unknown") that is unknown to the provider's JWKS, fetched again just now.`,
    );
  });

  it('refuses unsupported algorithms and unreadable headers', async () => {
    const { verifier, p, as } = setup();
    const none = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${Buffer.from('{}').toString('base64url')}.`;
    expect(await refusal(verifier.verifySignature(p, as, none))).toBe(
      `IdP's ID token is not signed with a supported asymmetric algorithm ("none").`,
    );
    expect(await refusal(verifier.verifySignature(p, as, 'not-a-jwt'))).toBe("IdP's ID token has no readable header.");
  });

  it('needs a jwks_uri, https (or loopback), answering 200 with a key set', async () => {
    const { verifier, p } = setup();
    const token = await rs256();
    expect(await refusal(verifier.verifySignature(p, { issuer: 'https://op.example' }, token))).toContain(
      'has no jwks_uri',
    );
    expect(
      await refusal(
        verifier.verifySignature(p, { issuer: 'https://op.example', jwks_uri: 'http://op.example/jwks' }, token),
      ),
    ).toBe('IdP: jwks_uri must be an https URL.');
    jwksStatus = 503;
    try {
      const fresh = setup();
      expect(await refusal(fresh.verifier.verifySignature(fresh.p, fresh.as, token))).toBe(
        "IdP's JWKS endpoint answered 503.",
      );
    } finally {
      jwksStatus = 200;
    }
  });
});

describe('IdTokenVerifier: HS* ID tokens (MACed with the client secret)', () => {
  it('accepts only the algorithm the provider declares, with a long enough client secret', async () => {
    const { verifier, p, as } = setup({ client: { id_token_signed_response_alg: 'HS256' } });
    const before = server.received.length;
    await verifier.verifySignature(p, as, await hs('HS256', LONG_SECRET));
    expect(server.received.length).toBe(before);
    expect(await refusal(verifier.verifySignature(p, as, await hs('HS256', `${LONG_SECRET}-other`)))).toBe(
      "IdP's ID token signature is invalid.",
    );
    expect(await refusal(verifier.verifySignature(p, as, await hs('HS384', LONG_SECRET.repeat(2))))).toBe(
      `IdP's ID token is MACed with HS384, which is accepted only when the provider's \`client.id_token_signed_response_alg\` declares HS384 (it declares "HS256").`,
    );
  });

  it('refuses an undeclared HS* token, and a secret shorter than the MAC key', async () => {
    const undeclared = setup();
    expect(
      await refusal(undeclared.verifier.verifySignature(undeclared.p, undeclared.as, await hs('HS256', LONG_SECRET))),
    ).toBe(
      `IdP's ID token is MACed with HS256, which is accepted only when the provider's \`client.id_token_signed_response_alg\` declares HS256.`,
    );
    const short = setup({ client: { id_token_signed_response_alg: 'HS512' } });
    expect(await refusal(short.verifier.verifySignature(short.p, short.as, await hs('HS512', LONG_SECRET)))).toBe(
      "IdP's client secret is too short to verify HS512 ID tokens: it must be at least 64 bytes.",
    );
  });

  it('refuses HS* tokens when no client secret is configured', async () => {
    const { verifier, p, as } = setup({
      clientSecret: undefined,
      client: { token_endpoint_auth_method: 'none', id_token_signed_response_alg: 'HS256' },
    });
    expect(await refusal(verifier.verifySignature(p, as, await hs('HS256', LONG_SECRET)))).toBe(
      "IdP's ID tokens are MACed with the client secret (HS256), but no `clientSecret` is configured.",
    );
  });
});
