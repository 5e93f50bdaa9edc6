// The OpenID Provider of the sign-in bench's OAuth/OIDC flow, started by signin.bench.ts in its own
// process (on the load generator's core, so its work is not counted in any library's server CPU):
// a real `oidc-provider` on 127.0.0.1 with one confidential client per library server, RS256 ID
// tokens, userinfo, and automatic login and consent. Which account logs in is the authorization
// request's `login_hint` (the bench adds it to each library's authorization URL). Authorization
// codes live an hour and are not bound to the provider's session, so the bench can mint them all
// before timing the callbacks. Its storage is an unbounded Map ({@link BenchStorage}): the
// provider's own development storage is an LRU that keeps only the last 1,000-2,000 entries, and
// each minted callback stores five or six (interaction, session and its uid index, grant and its
// member index, code), so with 600 callbacks per server and five servers the codes minted first
// were evicted before use (the token endpoint's `invalid_grant`, nestjs-auth's `OAuthCallbackError`
// for every callback of the server minted first).
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
import { oidcEmail, type OidcBenchConfig } from './signin-bench.common.js';

/** What oidc-provider stores through an adapter: a payload with optional indexes. */
interface Stored {
  grantId?: string;
  uid?: string;
  userCode?: string;
  consumed?: number;
  [key: string]: unknown;
}

/** Every entry, across the provider's models (`<model>:<id>`), with its expiry (epoch ms). */
const entries = new Map<string, { payload: Stored; expires: number }>();
/** Secondary indexes: a session's uid, a device flow's user code, and a grant's entries. */
const sessionUids = new Map<string, string>();
const userCodes = new Map<string, string>();
const grants = new Map<string, Set<string>>();

/** An oidc-provider adapter on plain Maps, without the development adapter's LRU bound. */
class BenchStorage {
  constructor(private readonly model: string) {}

  private key(id: string) {
    return `${this.model}:${id}`;
  }

  async upsert(id: string, payload: Stored, expiresIn?: number): Promise<void> {
    const key = this.key(id);
    entries.set(key, { payload, expires: expiresIn ? Date.now() + expiresIn * 1000 : Infinity });
    if (this.model === 'Session' && payload.uid) sessionUids.set(payload.uid, id);
    if (payload.userCode) userCodes.set(payload.userCode, id);
    if (payload.grantId) {
      const members = grants.get(payload.grantId) ?? new Set<string>();
      members.add(key);
      grants.set(payload.grantId, members);
    }
  }

  async find(id: string | undefined): Promise<Stored | undefined> {
    if (id === undefined) return undefined;
    const entry = entries.get(this.key(id));
    if (!entry) return undefined;
    if (entry.expires <= Date.now()) {
      entries.delete(this.key(id));
      return undefined;
    }
    return entry.payload;
  }

  async findByUid(uid: string): Promise<Stored | undefined> {
    return this.find(sessionUids.get(uid));
  }

  async findByUserCode(userCode: string): Promise<Stored | undefined> {
    return this.find(userCodes.get(userCode));
  }

  async consume(id: string): Promise<void> {
    const entry = entries.get(this.key(id));
    if (entry) entry.payload.consumed = Math.floor(Date.now() / 1000);
  }

  async destroy(id: string): Promise<void> {
    const key = this.key(id);
    const payload = entries.get(key)?.payload;
    entries.delete(key);
    if (payload?.uid && sessionUids.get(payload.uid) === id) sessionUids.delete(payload.uid);
    if (payload?.userCode && userCodes.get(payload.userCode) === id) userCodes.delete(payload.userCode);
    if (payload?.grantId) grants.get(payload.grantId)?.delete(key);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    for (const key of grants.get(grantId) ?? []) entries.delete(key);
    grants.delete(grantId);
  }
}

interface OidcInstance {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  interactionDetails(
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<{ prompt: { name: string }; params: Record<string, unknown> }>;
  interactionFinished(req: IncomingMessage, res: ServerResponse, result: object, options?: object): Promise<void>;
  Grant: new (init: { accountId: string; clientId: string }) => {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  };
  on(event: string, fn: () => void): void;
}

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? '{}') as OidcBenchConfig;
  const issuer = `http://127.0.0.1:${config.port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: 'RS256', use: 'sig' };
  const warn = console.warn;
  // oidc-provider warns about its development defaults (memory storage) on construction.
  console.warn = () => undefined;
  const provider = new Provider(issuer, {
    adapter: BenchStorage,
    clients: config.clients.map((c) => ({
      ...c,
      response_types: ['code'],
      grant_types: ['authorization_code'],
      token_endpoint_auth_method: 'client_secret_basic',
    })),
    jwks: { keys: [jwk] },
    cookies: { keys: [randomUUID()] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false }, userinfo: { enabled: true } },
    pkce: { required: () => false },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    async findAccount(_ctx: unknown, sub: string) {
      return { accountId: sub, claims: async () => ({ sub, email: oidcEmail(sub), email_verified: true, name: sub }) };
    },
    // Automatic consent: grant the scopes asked for.
    async loadExistingGrant(ctx: {
      oidc: { client: { clientId: string }; session: { accountId: string }; params: { scope?: string } };
    }) {
      const grant = new op.Grant({ accountId: ctx.oidc.session.accountId, clientId: ctx.oidc.client.clientId });
      grant.addOIDCScope(String(ctx.oidc.params.scope ?? 'openid'));
      await grant.save();
      return grant;
    },
    // Codes outlive a later authorization of the same account and client (by default a new one
    // replaces the grant the earlier codes were bound to): the bench mints many per account ahead.
    expiresWithSession: async () => false,
    ttl: { Session: 3600, Interaction: 3600, Grant: 3600, AccessToken: 3600, IdToken: 3600, AuthorizationCode: 3600 },
  }) as unknown as OidcInstance;
  const op = provider;
  console.warn = warn;
  op.on('server_error', () => undefined);
  const callback = op.callback();
  const server = createServer((req, res) => {
    if (!req.url?.startsWith('/interaction/')) return callback(req, res);
    // The login interaction logs in as `login_hint`.
    op.interactionDetails(req, res)
      .then((details) =>
        op.interactionFinished(
          req,
          res,
          { login: { accountId: String(details.params.login_hint ?? 'oidc-0') } },
          {
            mergeWithLastSubmission: false,
          },
        ),
      )
      .catch((error: unknown) => {
        res.statusCode = 400;
        res.end(`interaction failed: ${(error as Error).message}`);
      });
  });
  await new Promise<void>((resolve) => server.listen(config.port, '127.0.0.1', resolve));
  process.stdout.write(`READY ${JSON.stringify({ issuer })}\n`);
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}

main().catch((error: unknown) => {
  process.stderr.write(`bench OpenID Provider failed: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
