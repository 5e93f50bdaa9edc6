import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from '@jest/globals';
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
// oidc-provider ships no type declarations: the few members used here are typed locally.
import Provider, { interactionPolicy } from 'oidc-provider';

/** A client registered at the test OpenID Provider. */
export interface TestOidcClient {
  client_id: string;
  /** Required for the client_secret_* methods. */
  client_secret?: string;
  /** @default 'client_secret_basic' */
  token_endpoint_auth_method?:
    'client_secret_basic' | 'client_secret_post' | 'client_secret_jwt' | 'private_key_jwt' | 'none';
  /** Exact redirect URIs (e.g. `${app.url}/auth/callback/idp`). */
  redirect_uris: string[];
  /** Public keys of a `private_key_jwt` client. */
  jwks?: { keys: JWK[] };
  /** @default 'RS256' */
  id_token_signed_response_alg?: string;
  /** Add 'refresh_token' to get (rotating) refresh tokens. @default ['authorization_code'] */
  grant_types?: string[];
  /** Where RP-initiated logout may return to. */
  post_logout_redirect_uris?: string[];
  /** Where the provider POSTs back-channel logout tokens (OpenID Connect Back-Channel Logout). */
  backchannel_logout_uri?: string;
  /** Whether logout tokens must carry `sid`. */
  backchannel_logout_session_required?: boolean;
}

/** The end-user the provider signs in (its claims; `sub` is the account id). */
export interface TestOidcUser {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  picture?: string;
  [claim: string]: unknown;
}

/** What {@link TestOidcProvider.mutateIdToken} may change in an ID token before it is sent. */
export interface IdTokenMutation {
  header?: Record<string, unknown>;
  claims?: Record<string, unknown>;
  /**
   * `true` (default): sign the changed token with the provider's current signing key (or `key`).
   * `false`: keep the original signature, so the token no longer verifies.
   */
  resign?: boolean;
  /** Sign with this key instead of the provider's (a key that is not in its JWKS). */
  key?: CryptoKey;
}

export interface StartOidcProviderOptions {
  /** Registered clients (more can be added later with {@link TestOidcProvider.addClient}). */
  clients?: TestOidcClient[];
  /** The user signed in by the automatic login. @default { sub: 'user-1', email: 'ada@example.com', name: 'Ada Lovelace', email_verified: true } */
  user?: TestOidcUser;
  /** Issuer path (e.g. '/tenant'); the issuer is `http://127.0.0.1:<port><path>`. @default '' */
  path?: string;
  /**
   * ID-token signing algorithms the provider offers (its `id_token_signing_alg_values_supported`).
   * Add 'HS256' (etc.) to let clients registered with `id_token_signed_response_alg: 'HS256'` get
   * ID tokens MACed with their client secret (OIDC Core 10.1). @default oidc-provider's (asymmetric only)
   */
  idTokenSigningAlgs?: string[];
  /**
   * oidc-provider's `conformIdTokenClaims`: `true` (its own default) keeps the claims of the scopes
   * (`email`, `name`, ...) out of ID tokens issued with an access token, so only the userinfo
   * endpoint has them; the ID token carries `sub` (and the protocol claims). @default false (claims
   * in the ID token, as most real providers do)
   */
  conformIdTokenClaims?: boolean;
}

/** A running OpenID Provider for tests. */
export interface TestOidcProvider {
  /** The issuer identifier, e.g. `http://127.0.0.1:41234` (no trailing slash). */
  readonly issuer: string;
  /** The `kid` of the key ID tokens are currently signed with. */
  readonly currentKid: string;
  /** Every request the provider received (`METHOD /path`, no query), in order: count discovery or JWKS fetches with it. */
  readonly requests: string[];
  /** Every token request's `grant_type` and answer status (`refresh_token 200`), in order. */
  readonly tokenGrants: string[];
  /** How many `refresh_token` grant requests the provider received so far (any outcome). */
  refreshRequests(): number;
  /**
   * A JWT signed with the provider's current key (`kid` in the header), as the provider signs its
   * own tokens: for logout tokens a test sends itself (replays, forgeries). `key` signs with a key
   * that is not in the JWKS instead.
   */
  signJwt(claims: Record<string, unknown>, options?: { key?: CryptoKey; typ?: string }): Promise<string>;
  /** Back-channel logout deliveries the provider made (`success` or `error: <message>`), in order. */
  readonly backchannelDeliveries: string[];
  /** How many times the JWKS (`GET {issuer}/jwks`) was fetched so far. */
  jwksFetches(): number;
  /** The user the next automatic login signs in as. */
  user: TestOidcUser;
  /**
   * Signs in as `user` from now on. An existing provider session of another user is ignored: the
   * next authorization request logs in again (as a real user switching accounts would).
   */
  signInAs(user: TestOidcUser): void;
  /** Registers more clients (the provider is rebuilt with the same keys and state). */
  addClient(...clients: TestOidcClient[]): Promise<void>;
  /** Replaces the signing key. `keepPrevious` keeps the old public key in the JWKS. @default false */
  rotateKeys(options?: { keepPrevious?: boolean }): Promise<void>;
  /**
   * Rewrites the ID token of the following token responses (until called with `undefined`). Use it
   * to prove the client refuses a wrong `iss`, `aud`, `nonce`, an expired token or a bad signature.
   */
  mutateIdToken(
    fn: ((token: { header: Record<string, unknown>; claims: Record<string, unknown> }) => IdTokenMutation) | undefined,
  ): void;
  /** Stops the server. */
  close(): Promise<void>;
}

interface SigningKey {
  kid: string;
  privateJwk: JWK;
  privateKey: CryptoKey;
}

type KoaContext = { path: string; method: string; body: unknown; status: number };
interface OidcProviderInstance {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  use(mw: (ctx: KoaContext, next: () => Promise<void>) => Promise<void>): void;
  interactionDetails(
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<{
    uid: string;
    prompt: { name: string; details: Record<string, unknown> };
    params: Record<string, unknown>;
    session?: { accountId?: string };
    grantId?: string;
  }>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: Record<string, unknown>,
    options?: { mergeWithLastSubmission?: boolean },
  ): Promise<void>;
  Grant: new (init: { accountId: string; clientId: string }) => {
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    save(): Promise<string>;
  } & { constructor: { find(id: string): Promise<unknown> } };
}

const DEFAULT_USER: TestOidcUser = {
  sub: 'user-1',
  email: 'ada@example.com',
  email_verified: true,
  name: 'Ada Lovelace',
};

/**
 * Under jest's VM modules, the global `structuredClone` returns objects of Node's main realm while
 * oidc-provider runs in the test's realm and refuses objects whose `constructor` is not its own
 * `Object` (a client's inline `jwks` fails as "client JSON Web Key Set is invalid"). Plain objects
 * and arrays coming out of `structuredClone` are rebuilt in this realm; elsewhere nothing changes.
 */
function fixStructuredCloneRealm(): void {
  const native = globalThis.structuredClone;
  if ((native as { realmFixed?: boolean }).realmFixed || native({}).constructor === Object) return;
  const rebuild = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rebuild);
    if (
      value !== null &&
      typeof value === 'object' &&
      Object.getPrototypeOf(Object.getPrototypeOf(value) ?? {}) === null &&
      (value as object).constructor?.name === 'Object'
    ) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rebuild(v)]));
    }
    return value;
  };
  const fixed = ((value: unknown, options?: StructuredSerializeOptions) =>
    rebuild(native(value, options))) as typeof structuredClone;
  (fixed as { realmFixed?: boolean }).realmFixed = true;
  globalThis.structuredClone = fixed;
}
fixStructuredCloneRealm();

/** Creates an RS256 signing key with a fresh `kid`. */
async function newSigningKey(): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = randomUUID();
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
  return { kid, privateJwk, privateKey: privateKey as CryptoKey };
}

/**
 * One OpenID Provider for a test file, started before its tests and closed after them: call it at
 * the top level (`const op = useOidcProvider();`). The handle forwards to the running provider, so
 * it is used as the provider itself inside tests and hooks.
 */
export function useOidcProvider(options?: StartOidcProviderOptions): TestOidcProvider {
  let started: TestOidcProvider | undefined;
  beforeAll(async () => {
    started = await startOidcProvider(options);
  });
  afterAll(async () => {
    await started?.close();
  });
  return new Proxy({} as TestOidcProvider, {
    get(_target, key) {
      if (!started) throw new Error('The test OpenID Provider starts in beforeAll: use it inside a test or a hook.');
      const value: unknown = Reflect.get(started, key, started);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(started) : value;
    },
  });
}

/**
 * Starts a real OpenID Provider (`oidc-provider`) on 127.0.0.1 at a random port. Logins and
 * consents happen automatically, so a plain HTTP client that follows the redirects (keeping
 * cookies) completes an authorization code flow: the login interaction is finished at once as
 * {@link TestOidcProvider.user}, and `loadExistingGrant` grants every requested scope and claim.
 * Supports `client_secret_basic`, `client_secret_post`, `private_key_jwt` and `none` clients,
 * PKCE, `state`, `nonce`, `response_mode=form_post`, userinfo, RFC 9207 `iss`, key rotation and
 * forged ID tokens.
 */
export async function startOidcProvider(options: StartOidcProviderOptions = {}): Promise<TestOidcProvider> {
  const clients: TestOidcClient[] = [...(options.clients ?? [])];
  const users = new Map<string, TestOidcUser>();
  let user = options.user ?? DEFAULT_USER;
  users.set(user.sub, user);
  let keys: SigningKey[] = [await newSigningKey()];
  let retired: JWK[] = [];
  let mutation: Parameters<TestOidcProvider['mutateIdToken']>[0];
  const requests: string[] = [];
  const tokenGrants: string[] = [];
  const backchannelDeliveries: string[] = [];
  const cookieKeys = [randomUUID()];

  // A handler that throws answers 500 instead of leaving the client hanging (and the rejection unhandled).
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}${options.path ?? ''}`;

  let provider = build();

  function build(): OidcProviderInstance {
    const policy = interactionPolicy.base();
    // Another user was chosen since the provider session started: log in again.
    policy
      .get('login')
      .checks.add(
        new interactionPolicy.Check(
          'account_switch',
          'the test selected another user',
          (ctx: { oidc: { session: { accountId?: string } } }) =>
            ctx.oidc.session.accountId !== undefined && ctx.oidc.session.accountId !== user.sub
              ? interactionPolicy.Check.REQUEST_PROMPT
              : interactionPolicy.Check.NO_NEED_TO_PROMPT,
        ),
      );
    // oidc-provider warns about its development defaults (memory adapter) on every construction.
    const warn = console.warn;
    console.warn = (...args: unknown[]) => {
      if (!String(args[0]).startsWith('oidc-provider WARNING')) warn(...args);
    };
    let instance: OidcProviderInstance & { on(event: string, fn: (...args: unknown[]) => void): void };
    try {
      instance = new Provider(issuer, {
        clients: clients.map((c) => ({
          response_types: ['code'],
          grant_types: ['authorization_code'],
          token_endpoint_auth_method: 'client_secret_basic',
          ...c,
        })),
        jwks: { keys: [...keys.map((k) => k.privateJwk)] },
        cookies: { keys: cookieKeys },
        claims: {
          openid: ['sub'],
          email: ['email', 'email_verified'],
          profile: ['name', 'picture', 'given_name', 'family_name', 'preferred_username', 'nickname'],
        },
        // Put the scope's claims in ID tokens, as most real providers do (unless the test asks otherwise).
        conformIdTokenClaims: options.conformIdTokenClaims ?? false,
        features: {
          devInteractions: { enabled: false },
          userinfo: { enabled: true },
          // The logout confirmation is submitted as "yes" by a client that posts the page's form.
          rpInitiatedLogout: {
            enabled: true,
            logoutSource: async (ctx: { body: unknown }, form: string) => {
              ctx.body = `<!DOCTYPE html><html><body>${form.replace(
                '</form>',
                '<input type="hidden" name="logout" value="yes"/></form>',
              )}</body></html>`;
            },
          },
          backchannelLogout: { enabled: true },
        },
        pkce: { required: () => false },
        // Clients allowed the refresh_token grant get a refresh token, rotated on every use; reusing
        // a used one revokes the whole grant (oidc-provider's reuse detection).
        issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) =>
          client.grantTypeAllowed('refresh_token'),
        rotateRefreshToken: true,
        ...(options.idTokenSigningAlgs ? { enabledJWA: { idTokenSigningAlgValues: options.idTokenSigningAlgs } } : {}),
        interactions: {
          policy,
          url: (_ctx: unknown, interaction: { uid: string }) => `${options.path ?? ''}/interaction/${interaction.uid}`,
        },
        async findAccount(_ctx: unknown, sub: string) {
          const account = users.get(sub);
          if (!account) return undefined;
          return { accountId: sub, claims: async () => ({ ...account }) };
        },
        // Automatic consent: grant whatever the client asked for.
        async loadExistingGrant(ctx: {
          oidc: {
            client: { clientId: string };
            session: { accountId: string };
            requestParamOIDCScopes?: Set<string>;
            requestParamClaims?: Set<string>;
            params: { scope?: string };
          };
        }) {
          const grant = new provider.Grant({
            accountId: ctx.oidc.session.accountId,
            clientId: ctx.oidc.client.clientId,
          });
          grant.addOIDCScope(
            ctx.oidc.requestParamOIDCScopes
              ? [...ctx.oidc.requestParamOIDCScopes].join(' ')
              : String(ctx.oidc.params.scope ?? 'openid'),
          );
          if (ctx.oidc.requestParamClaims?.size) grant.addOIDCClaims([...ctx.oidc.requestParamClaims]);
          await grant.save();
          return grant;
        },
        ttl: { Session: 3600, Interaction: 600, Grant: 3600, AccessToken: 3600, IdToken: 3600, AuthorizationCode: 60 },
      }) as unknown as typeof instance;
    } finally {
      console.warn = warn;
    }
    // Quiet: errors reach the client as OAuth error responses, which is what the tests look at.
    instance.on('server_error', () => undefined);
    instance.on('backchannel.success', () => void backchannelDeliveries.push('success'));
    instance.on('backchannel.error', (_ctx: unknown, error: unknown) =>
      backchannelDeliveries.push(`error: ${(error as Error)?.message}`),
    );
    instance.use(async (ctx, next) => {
      requests.push(`${ctx.method} ${ctx.path}`);
      await next();
      if (ctx.method === 'POST' && ctx.path.endsWith('/token')) {
        const grant = (ctx as unknown as { oidc?: { params?: { grant_type?: string } } }).oidc?.params?.grant_type;
        tokenGrants.push(`${String(grant)} ${ctx.status}`);
      }
      if (mutation && ctx.method === 'POST' && ctx.path.endsWith('/token') && ctx.status === 200) {
        const body = ctx.body as { id_token?: string };
        if (body && typeof body.id_token === 'string') ctx.body = { ...body, id_token: await mutate(body.id_token) };
      }
    });
    if (retired.length) {
      // Keep retired public keys in the published JWKS (rotation with overlap).
      instance.use(async (ctx, next) => {
        await next();
        if (ctx.method === 'GET' && ctx.path.endsWith('/jwks') && ctx.status === 200) {
          const body = ctx.body as { keys: JWK[] };
          ctx.body = { keys: [...body.keys, ...retired] };
        }
      });
    }
    return instance;
  }

  async function mutate(idToken: string): Promise<string> {
    const header = decodeProtectedHeader(idToken) as Record<string, unknown>;
    const claims = decodeJwt(idToken) as Record<string, unknown>;
    const change = mutation!({ header: { ...header }, claims: { ...claims } });
    const nextHeader = { ...header, ...(change.header ?? {}) };
    const nextClaims = { ...claims, ...(change.claims ?? {}) };
    if (change.resign === false) {
      const [, , signature] = idToken.split('.');
      const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
      return `${enc(nextHeader)}.${enc(nextClaims)}.${signature}`;
    }
    return new SignJWT(nextClaims)
      .setProtectedHeader(nextHeader as { alg: string })
      .sign(change.key ?? keys[0].privateKey);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', issuer).pathname;
    if (path.startsWith(`${options.path ?? ''}/interaction/`)) {
      requests.push(`${req.method} ${path}`);
      try {
        const details = await provider.interactionDetails(req, res);
        if (details.prompt.name === 'login') {
          await provider.interactionFinished(
            req,
            res,
            { login: { accountId: user.sub } },
            { mergeWithLastSubmission: false },
          );
          return;
        }
        await provider.interactionFinished(req, res, { consent: {} }, { mergeWithLastSubmission: true });
      } catch (error) {
        res.statusCode = 400;
        res.setHeader('content-type', 'text/plain');
        res.end(`interaction failed: ${(error as Error).message}`);
      }
      return;
    }
    provider.callback()(req, res);
  }

  return {
    issuer,
    get currentKid() {
      return keys[0].kid;
    },
    requests,
    tokenGrants,
    backchannelDeliveries,
    signJwt(claims, options = {}) {
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: keys[0].kid, ...(options.typ ? { typ: options.typ } : {}) })
        .sign(options.key ?? keys[0].privateKey);
    },
    refreshRequests() {
      return tokenGrants.filter((g) => g.startsWith('refresh_token ')).length;
    },
    jwksFetches() {
      return requests.filter((r) => r.startsWith('GET ') && r.endsWith('/jwks')).length;
    },
    get user() {
      return user;
    },
    set user(next: TestOidcUser) {
      user = next;
      users.set(next.sub, next);
    },
    signInAs(next) {
      user = next;
      users.set(next.sub, next);
    },
    async addClient(...more) {
      clients.push(...more);
      provider = build();
    },
    async rotateKeys({ keepPrevious = false } = {}) {
      const previous = keys[0];
      keys = [await newSigningKey()];
      if (keepPrevious) {
        const { d, p, q, dp, dq, qi, ...publicJwk } = previous.privateJwk;
        void d;
        void p;
        void q;
        void dp;
        void dq;
        void qi;
        retired = [...retired, publicJwk];
      } else {
        retired = [];
      }
      provider = build();
    },
    mutateIdToken(fn) {
      mutation = fn;
    },
    close() {
      return new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}

/**
 * Follows a redirect chain through the provider with the given cookie-keeping client until it
 * reaches `stopAt` (an origin, e.g. the app's), and returns that last response without requesting
 * it. A `response_mode=form_post` page is submitted like a browser would.
 */
export async function followToApp(
  client: {
    request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  },
  start: Response,
  stopAt: string,
  maxHops = 10,
): Promise<{ method: 'GET' | 'POST'; url: URL; body?: Record<string, string> }> {
  let res = start;
  for (let hop = 0; hop < maxHops; hop++) {
    const location = res.headers.get('location');
    if (location) {
      const next = new URL(location, res.url || stopAt);
      if (next.origin === new URL(stopAt).origin) return { method: 'GET', url: next };
      res = await client.request('GET', next.href);
      continue;
    }
    const html = await res.text();
    const form = /<form[^>]*action="([^"]+)"/i.exec(html);
    if (res.status === 200 && form) {
      const action = new URL(decodeEntities(form[1]));
      const body: Record<string, string> = {};
      for (const input of html.matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/gi))
        body[decodeEntities(input[1])] = decodeEntities(input[2]);
      if (action.origin === new URL(stopAt).origin) return { method: 'POST', url: action, body };
      res = await client.request('POST', action.href, body);
      continue;
    }
    throw new Error(
      `The provider answered ${res.status} without a redirect: ${html.replace(/<style[\s\S]*<\/style>/, '').slice(0, 1500)}`,
    );
  }
  throw new Error('Too many redirects');
}

function decodeEntities(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&#x2F;/g, '/')
    .replace(/&amp;/g, '&');
}
