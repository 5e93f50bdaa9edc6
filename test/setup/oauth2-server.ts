import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A client of the test OAuth 2.0 server. */
export interface TestOAuth2Client {
  client_id: string;
  client_secret: string;
  /** Exact redirect URIs. */
  redirect_uris: string[];
}

/** The user the server authorizes, returned as-is by `GET /userinfo` (GitHub-like: a numeric `id`). */
export interface TestOAuth2User {
  id: number | string;
  login?: string;
  name?: string;
  email?: string;
  avatar_url?: string;
  [field: string]: unknown;
}

export interface StartOAuth2ServerOptions {
  clients?: TestOAuth2Client[];
  /** @default { id: 4242, login: 'grace', name: 'Grace Hopper', email: 'grace@example.com' } */
  user?: TestOAuth2User;
}

/** A running plain OAuth 2.0 authorization server (no OpenID Connect, no discovery). */
export interface TestOAuth2Server {
  /** e.g. `http://127.0.0.1:41234` */
  readonly url: string;
  /** `${url}/authorize` */
  readonly authorizationUrl: string;
  /** `${url}/token` */
  readonly tokenUrl: string;
  /** `${url}/userinfo` */
  readonly userinfoUrl: string;
  /** Every request received (`METHOD /path`), in order. */
  readonly requests: string[];
  /** The body of each token request (to check client authentication and PKCE). */
  readonly tokenRequests: Array<{ authorization?: string; body: Record<string, string> }>;
  clients: TestOAuth2Client[];
  /** The user the next authorization is for. */
  user: TestOAuth2User;
  /** The next authorization request is answered with `?error=<error>` (e.g. 'access_denied'). */
  denyNext(error?: string): void;
  close(): Promise<void>;
}

interface IssuedCode {
  clientId: string;
  redirectUri: string;
  challenge?: string;
  user: TestOAuth2User;
  expires: number;
}

/**
 * Starts a tiny OAuth 2.0 authorization server on 127.0.0.1 (random port) for the `type: 'oauth'`
 * path: `GET /authorize` approves at once and redirects back with a code (and `state`), `POST
 * /token` checks the client (`client_secret_basic` or `client_secret_post`), the redirect URI, the
 * PKCE verifier (S256) and single use of the code, and answers a Bearer token; `GET /userinfo`
 * returns the user as JSON for that token.
 */
export async function startOAuth2Server(options: StartOAuth2ServerOptions = {}): Promise<TestOAuth2Server> {
  const codes = new Map<string, IssuedCode>();
  const tokens = new Map<string, TestOAuth2User>();
  const requests: string[] = [];
  const tokenRequests: TestOAuth2Server['tokenRequests'] = [];
  let deny: string | undefined;

  const state = {
    clients: [...(options.clients ?? [])],
    user:
      options.user ??
      ({ id: 4242, login: 'grace', name: 'Grace Hopper', email: 'grace@example.com' } as TestOAuth2User),
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => json(res, 500, { error: 'server_error' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const u = new URL(req.url ?? '/', url);
    requests.push(`${req.method} ${u.pathname}`);
    if (req.method === 'GET' && u.pathname === '/authorize') return authorize(u, res);
    if (req.method === 'POST' && u.pathname === '/token') return token(req, res);
    if (req.method === 'GET' && u.pathname === '/userinfo') return userinfo(req, res);
    json(res, 404, { error: 'not_found' });
  }

  function authorize(u: URL, res: ServerResponse): void {
    const q = u.searchParams;
    const client = state.clients.find((c) => c.client_id === q.get('client_id'));
    const redirectUri = q.get('redirect_uri') ?? '';
    if (!client || !client.redirect_uris.includes(redirectUri))
      return json(res, 400, { error: 'invalid_request', error_description: 'unknown client or redirect_uri' });
    const back = new URL(redirectUri);
    if (q.get('state') !== null) back.searchParams.set('state', q.get('state')!);
    if (deny) {
      back.searchParams.set('error', deny);
      deny = undefined;
    } else if (q.get('response_type') !== 'code') {
      back.searchParams.set('error', 'unsupported_response_type');
    } else {
      const method = q.get('code_challenge_method');
      if (q.get('code_challenge') && method !== 'S256') {
        back.searchParams.set('error', 'invalid_request');
      } else {
        const code = randomBytes(24).toString('base64url');
        codes.set(code, {
          clientId: client.client_id,
          redirectUri,
          challenge: q.get('code_challenge') ?? undefined,
          user: state.user,
          expires: Date.now() + 60_000,
        });
        back.searchParams.set('code', code);
      }
    }
    res.statusCode = 302;
    res.setHeader('location', back.href);
    res.end();
  }

  async function token(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = Object.fromEntries(new URLSearchParams(await readBody(req)));
    tokenRequests.push({ authorization: req.headers.authorization, body });
    let clientId = body.client_id;
    let secret = body.client_secret;
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
    if (basic) {
      const [id, pass] = Buffer.from(basic[1], 'base64').toString('utf8').split(':');
      // RFC 6749 2.3.1: both parts are form-urlencoded.
      clientId = decodeURIComponent(id.replace(/\+/g, ' '));
      secret = decodeURIComponent((pass ?? '').replace(/\+/g, ' '));
    }
    const client = state.clients.find((c) => c.client_id === clientId);
    if (!client || !equal(secret ?? '', client.client_secret)) return json(res, 401, { error: 'invalid_client' });
    if (body.grant_type !== 'authorization_code') return json(res, 400, { error: 'unsupported_grant_type' });
    const issued = codes.get(body.code ?? '');
    codes.delete(body.code ?? '');
    if (
      !issued ||
      issued.expires < Date.now() ||
      issued.clientId !== client.client_id ||
      issued.redirectUri !== body.redirect_uri
    ) {
      return json(res, 400, { error: 'invalid_grant' });
    }
    if (issued.challenge) {
      const computed = createHash('sha256')
        .update(body.code_verifier ?? '')
        .digest('base64url');
      if (computed !== issued.challenge)
        return json(res, 400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
    }
    const accessToken = randomBytes(24).toString('base64url');
    tokens.set(accessToken, issued.user);
    json(res, 200, {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: randomBytes(24).toString('base64url'),
      scope: 'read:user',
    });
  }

  function userinfo(req: IncomingMessage, res: ServerResponse): void {
    const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '');
    const user = bearer ? tokens.get(bearer[1]) : undefined;
    if (!user) {
      res.setHeader('www-authenticate', 'Bearer error="invalid_token"');
      return json(res, 401, { error: 'invalid_token' });
    }
    json(res, 200, user);
  }

  return {
    url,
    authorizationUrl: `${url}/authorize`,
    tokenUrl: `${url}/token`,
    userinfoUrl: `${url}/userinfo`,
    requests,
    tokenRequests,
    get clients() {
      return state.clients;
    },
    set clients(next) {
      state.clients = next;
    },
    get user() {
      return state.user;
    },
    set user(next) {
      state.user = next;
    },
    denyNext(error = 'access_denied') {
      deny = error;
    },
    close() {
      return new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.setHeader('cache-control', 'no-store');
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function equal(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}
