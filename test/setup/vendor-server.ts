import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

/** A request the vendor server received. */
export interface VendorRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  /** Parsed form body (urlencoded), or `{}`. */
  form: Record<string, string>;
}

/** What a route answers. */
export interface VendorAnswer {
  status?: number;
  json?: unknown;
  html?: string;
  /** A redirect (302) to this URL. */
  redirect?: string;
  headers?: Record<string, string>;
}

/** An authorization the server granted: the code and what the token request must match. */
export interface VendorGrant {
  clientId: string;
  redirectUri: string;
  codeChallenge?: string;
  nonce?: string;
  /** Anything the scenario wants to carry to the token endpoint (the user, the tenant...). */
  data: Record<string, unknown>;
}

/**
 * A server on 127.0.0.1 that scenarios program to answer like a given vendor: routes by
 * `METHOD /path`, authorization codes, and RS256 ID tokens with a JWKS at `/jwks`.
 */
export interface VendorServer {
  readonly url: string;
  readonly requests: VendorRequest[];
  readonly jwks: { keys: JWK[] };
  /** Sets the answer of `METHOD /path`. */
  route(key: string, handler: (req: VendorRequest) => VendorAnswer | Promise<VendorAnswer>): void;
  /** Issues a one-time authorization code for a grant. */
  issueCode(grant: VendorGrant): string;
  /**
   * Redeems a code (once): checks client id, redirect URI (unless the vendor skips that check) and
   * the PKCE verifier when a challenge was sent. Returns the grant, or an OAuth error answer.
   */
  redeem(
    form: Record<string, string>,
    clientId: string | undefined,
    options?: { checkRedirectUri?: boolean },
  ): VendorGrant | VendorAnswer;
  /** Signs ID token claims with the server's key (RS256, `kid` of the JWKS). */
  signIdToken(claims: Record<string, unknown>): Promise<string>;
  /** Client id and secret of a request: HTTP Basic (RFC 6749 encoding) or form fields. */
  clientCredentials(req: VendorRequest): { method: 'basic' | 'post' | 'none'; id?: string; secret?: string };
  close(): Promise<void>;
}

export async function startVendorServer(): Promise<VendorServer> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = randomBytes(6).toString('hex');
  const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' }] };
  const routes = new Map<string, (req: VendorRequest) => VendorAnswer | Promise<VendorAnswer>>();
  const codes = new Map<string, VendorGrant>();
  const requests: VendorRequest[] = [];
  routes.set('GET /jwks', () => ({ json: jwks }));

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      void (async () => {
        const url = new URL(req.url ?? '/', 'http://127.0.0.1');
        const isForm = (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
        const request: VendorRequest = {
          method: req.method ?? 'GET',
          path: url.pathname,
          query: url.searchParams,
          headers: req.headers,
          form: isForm ? Object.fromEntries(new URLSearchParams(raw)) : {},
        };
        requests.push(request);
        const handler = routes.get(`${request.method} ${url.pathname}`);
        let answer: VendorAnswer;
        try {
          answer = handler ? await handler(request) : { status: 404, json: { error: 'not_found' } };
        } catch (error) {
          answer = { status: 500, json: { error: 'server_error', error_description: (error as Error).message } };
        }
        if (answer.redirect) {
          res.writeHead(302, { location: answer.redirect, ...(answer.headers ?? {}) });
          res.end();
        } else if (answer.html !== undefined) {
          res.writeHead(answer.status ?? 200, {
            'content-type': 'text/html; charset=utf-8',
            ...(answer.headers ?? {}),
          });
          res.end(answer.html);
        } else {
          res.writeHead(answer.status ?? 200, {
            'content-type': 'application/json',
            'cache-control': 'no-store',
            ...(answer.headers ?? {}),
          });
          res.end(JSON.stringify(answer.json ?? {}));
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    requests,
    jwks,
    route: (key, handler) => routes.set(key, handler),
    issueCode(grant) {
      const code = randomBytes(16).toString('base64url');
      codes.set(code, grant);
      return code;
    },
    redeem(form, clientId, options = {}) {
      const grant = codes.get(form.code ?? '');
      codes.delete(form.code ?? '');
      if (!grant) return { status: 400, json: { error: 'invalid_grant', error_description: 'unknown or used code' } };
      if (grant.clientId !== clientId) return { status: 400, json: { error: 'invalid_client' } };
      if (options.checkRedirectUri !== false && grant.redirectUri !== form.redirect_uri)
        return { status: 400, json: { error: 'invalid_grant', error_description: 'redirect_uri mismatch' } };
      if (grant.codeChallenge) {
        const verifier = form.code_verifier ?? '';
        const challenge = createHash('sha256').update(verifier).digest('base64url');
        if (challenge !== grant.codeChallenge)
          return { status: 400, json: { error: 'invalid_grant', error_description: 'PKCE verification failed' } };
      }
      return grant;
    },
    signIdToken(claims) {
      return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' }).sign(privateKey as CryptoKey);
    },
    clientCredentials(req) {
      const header = req.headers.authorization;
      if (header?.startsWith('Basic ')) {
        const [id, secret] = Buffer.from(header.slice(6), 'base64').toString('utf8').split(':');
        const decode = (v: string) => decodeURIComponent(v.replace(/\+/g, ' '));
        return { method: 'basic', id: decode(id ?? ''), secret: decode(secret ?? '') };
      }
      if (req.form.client_secret !== undefined)
        return { method: 'post', id: req.form.client_id, secret: req.form.client_secret };
      return { method: 'none', id: req.form.client_id };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
