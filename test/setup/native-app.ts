/**
 * A native app (RFC 8252) for e2e tests, as `oauth4webapi` makes one: the authorization request with
 * PKCE and state, the code exchange, refresh and revocation; and the system browser's part, the
 * authorization route followed through the credentials sign-in to the app's redirect (not followed).
 */
import { expect } from '@jest/globals';
import * as oauth from 'oauth4webapi';
import { location, type TestClient } from './http-client.js';

/** The issuer the native-app tests configure (`accessToken.issuer`). */
export const NATIVE_ISSUER = 'https://api.example.test/auth';
/** The password of the credentials users the native-app tests create. */
export const NATIVE_PASSWORD = 'correct horse battery';
/** A private-use scheme redirect the tests register. */
export const NATIVE_SCHEME_REDIRECT = 'com.example.app:/oauth';

/** The app's side: oauth4webapi's view of this server. */
export function appOf(url: string, clientId = 'ios', issuer = NATIVE_ISSUER) {
  const as: oauth.AuthorizationServer = {
    issuer,
    authorization_endpoint: `${url}/auth/authorize`,
    token_endpoint: `${url}/auth/token`,
    revocation_endpoint: `${url}/auth/revoke`,
    jwks_uri: `${url}/auth/jwks`,
    authorization_response_iss_parameter_supported: true,
  };
  const client: oauth.Client = { client_id: clientId };
  const insecure = { [oauth.allowInsecureRequests]: true } as const;
  return {
    as,
    client,
    /** A new authorization request: its URL and what the app keeps to finish it. */
    async request(redirectUri = NATIVE_SCHEME_REDIRECT, extra: Record<string, string> = {}) {
      const verifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const url = new URL(as.authorization_endpoint!);
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('client_id', clientId);
      url.searchParams.set('redirect_uri', redirectUri);
      url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
      url.searchParams.set('code_challenge_method', 'S256');
      url.searchParams.set('state', state);
      for (const [k, v] of Object.entries(extra)) url.searchParams.set(k, v);
      return { url, verifier, state, redirectUri };
    },
    /** The code exchange, as the app makes it. */
    async exchange(req: { verifier: string; state: string; redirectUri: string }, redirect: URL) {
      const params = oauth.validateAuthResponse(as, client, redirect, req.state);
      const res = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        oauth.None(),
        params,
        req.redirectUri,
        req.verifier,
        insecure,
      );
      return oauth.processAuthorizationCodeResponse(as, client, res);
    },
    refreshRaw(token: string) {
      return oauth.refreshTokenGrantRequest(as, client, oauth.None(), token, insecure);
    },
    async refresh(token: string) {
      return oauth.processRefreshTokenResponse(as, client, await this.refreshRaw(token));
    },
    revoke(token: string) {
      return oauth.revocationRequest(as, client, oauth.None(), token, insecure);
    },
  };
}

/** The browser: follows the authorization route through the sign-in to the app's redirect (not followed). */
export async function authorizeInBrowser(
  browser: TestClient,
  url: URL,
  email: string,
  password = NATIVE_PASSWORD,
): Promise<URL> {
  let res = await browser.get(url.href);
  let hop = location(res);
  if (hop.pathname === '/auth/signin') {
    // The sign-in page, then the password form posted as the page would.
    expect(hop.searchParams.get('callbackUrl')).toContain('/auth/authorize?');
    await browser.get(hop.href);
    const csrfToken = await browser.csrf();
    res = await browser.post('/auth/callback/credentials', { csrfToken, email, password });
    hop = location(res);
    expect(hop.pathname).toBe('/auth/authorize');
    res = await browser.get(hop.href);
    hop = location(res);
  }
  return hop;
}
