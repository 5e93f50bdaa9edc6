import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import { escape } from './html.js';

/** The demo identity provider's only user (any password-less "login" signs in as this user). */
export const DEMO_IDP_USER = {
  sub: 'demo-idp-user',
  email: 'idp.user@example.com',
  email_verified: true,
  name: 'Ida Demo',
};

export interface DemoIdpOptions {
  /** Port on 127.0.0.1 (0: any free port). */
  port: number;
  clientId: string;
  clientSecret: string;
  /** The app's callback URL(s) for this provider (exact match). */
  redirectUris: string[];
}

export interface DemoIdp {
  /** e.g. `http://127.0.0.1:3001` */
  issuer: string;
  close(): Promise<void>;
}

interface OidcProvider {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  interactionDetails(
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<{ uid: string; prompt: { name: string }; params: Record<string, unknown> }>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: Record<string, unknown>,
    options?: { mergeWithLastSubmission?: boolean },
  ): Promise<void>;
  Grant: new (init: { accountId: string; clientId: string }) => {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  };
  on(event: string, listener: (...args: unknown[]) => void): void;
}

/**
 * A real OpenID Provider (`oidc-provider`) on 127.0.0.1 with one demo user, so the sample's
 * "Sign in with Demo IdP" works offline. It shows a one-button login page (no password: it is a
 * demo) and grants consent to the sample automatically, as a first-party IdP would.
 */
export async function startDemoIdp(options: DemoIdpOptions): Promise<DemoIdp> {
  let provider: OidcProvider | undefined;
  const server: Server = createServer((req, res) => {
    if (!provider) {
      res.writeHead(503).end();
      return;
    }
    const path = new URL(req.url ?? '/', 'http://idp.invalid').pathname;
    if (path.startsWith('/interaction/')) void interaction(provider, req, res);
    else provider.callback()(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;

  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: 'RS256', use: 'sig' };

  // oidc-provider warns about its in-memory storage and the Node version when loaded and built:
  // fine for a demo, so keep those warnings out of the sample's output.
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (!String(args[0]).startsWith('oidc-provider WARNING')) warn(...args);
  };
  try {
    // oidc-provider publishes no types; test/setup/oidc-provider-module.d.ts declares the module.
    const { default: Provider } = await import('oidc-provider');
    provider = new Provider(issuer, {
      clients: [
        {
          client_id: options.clientId,
          client_secret: options.clientSecret,
          redirect_uris: options.redirectUris,
          response_types: ['code'],
          grant_types: ['authorization_code'],
        },
      ],
      jwks: { keys: [jwk] },
      cookies: { keys: [randomUUID()] },
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
      conformIdTokenClaims: false,
      // Explicit lifetimes (seconds); oidc-provider asks for them instead of its defaults.
      ttl: { Session: 3600, Interaction: 600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
      findAccount: async (_ctx: unknown, sub: string) =>
        sub === DEMO_IDP_USER.sub ? { accountId: sub, claims: async () => ({ ...DEMO_IDP_USER }) } : undefined,
      // First-party IdP: consent is implied, so grant what the sample asks for.
      loadExistingGrant: async (ctx: {
        oidc: { client: { clientId: string }; session: { accountId: string }; params: { scope?: string } };
      }) => {
        const grant = new provider!.Grant({
          accountId: ctx.oidc.session.accountId,
          clientId: ctx.oidc.client.clientId,
        });
        grant.addOIDCScope(String(ctx.oidc.params.scope ?? 'openid'));
        await grant.save();
        return grant;
      },
    }) as OidcProvider;
  } finally {
    console.warn = warn;
  }
  provider.on('server_error', (_ctx: unknown, error: unknown) =>
    console.error('[demo-idp]', (error as Error)?.message),
  );

  return {
    issuer,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The login step: GET shows the demo user and a button; POST signs in as that user. */
async function interaction(provider: OidcProvider, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    const details = await provider.interactionDetails(req, res);
    if (req.method === 'POST') {
      for await (const _ of req) void _; // drain the (empty) form body
      const result = details.prompt.name === 'login' ? { login: { accountId: DEMO_IDP_USER.sub } } : { consent: {} };
      await provider.interactionFinished(req, res, result, {
        mergeWithLastSubmission: details.prompt.name !== 'login',
      });
      return;
    }
    res.writeHead(200, {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'",
    });
    res.end(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Demo IdP: sign in</title>
<style>body{font-family:system-ui,sans-serif;background:#fef3c7;color:#1c1917;display:flex;justify-content:center;padding:2rem 1rem;margin:0}
main{background:#fff;border-radius:.75rem;padding:1.5rem;max-width:22rem;width:100%;box-shadow:0 1px 3px #0003}
h1{font-size:1.25rem;margin:0 0 1rem}button{font:inherit;font-weight:600;width:100%;padding:.7rem;border:0;border-radius:.5rem;background:#b45309;color:#fff;cursor:pointer}
button:focus-visible{outline:3px solid #1c1917;outline-offset:2px}</style></head>
<body><main>
<h1>Demo IdP</h1>
<p>This is the sample's local OpenID Provider. It has one user:</p>
<p><strong>${escape(DEMO_IDP_USER.name)}</strong><br>${escape(DEMO_IDP_USER.email)}</p>
<form method="post" action="/interaction/${escape(details.uid)}"><button type="submit">Continue as ${escape(DEMO_IDP_USER.name)}</button></form>
</main></body></html>`);
  } catch (error) {
    res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end(`The sign-in at the Demo IdP failed: ${(error as Error).message}. Start again from the app.`);
  }
}
