import { Inject, Injectable } from '@nestjs/common';
import type * as o from 'oauth4webapi';
import { AUTH_CONFIG } from '../../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../../config/resolved-config.js';
import type { ProviderContext } from '../../core/request-context.js';
import { AuthError, InvalidCheck, InvalidRequest, OAuthCallbackError } from '../../errors/auth.errors.js';
import type { NormalizedOAuthProvider, OAuthCheck } from './oauth.normalize.js';
import { ChecksService, type OpenedCheck } from '../../sign-in/checks.service.js';
import { ExplicitLinkService } from '../../sign-in/explicit-link.service.js';
import { SignInService, type SignInInput } from '../../sign-in/sign-in.service.js';
import type { User } from '../../types/common.types.js';
import type { AuthResponse } from '../../types/http.types.js';
import { KeyedQueue } from '../../util/keyed-queue.js';
import { createStateCodec, effectiveChecks, parseMaxAge, type CheckValues } from './oauth-checks.js';
import { constantTimeEqual } from '../../util/constant-time.js';
import { loadOAuth4WebApi } from '../../util/oauth4webapi.js';
import { OAuthDiscovery } from './oauth-discovery.js';
import { describe, mapProtocolError } from './oauth-errors.js';
import { safeUrl } from './oauth-http.js';
import { mapProfile, readProfile } from './oauth-profile.js';
import { onProxy } from './oauth-redirect.js';
import { OAuthTokenExchange } from './oauth-token.js';
import { ReplayMemory } from './replay-memory.js';

const NO_REFERRER = { 'Referrer-Policy': 'no-referrer' };

/**
 * The callback (`GET|POST /callback/:provider`): validates the authorization response against the
 * check cookies (`iss`, `state`, the provider's error), refuses replays, exchanges the code, reads
 * and maps the profile, and hands the account over to SignInService. On the redirect proxy it
 * bounces the response to the deployment that started the flow instead.
 */
@Injectable()
export class OAuthCallback {
  private readonly stateCodec: ReturnType<typeof createStateCodec>;
  private readonly replays = new ReplayMemory();
  private readonly accounts = new KeyedQueue();
  /** Providers whose missing profile claims were reported (see {@link warnMissingClaims}). */
  private readonly warnedClaims = new Set<string>();

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly checks: ChecksService,
    private readonly discovery: OAuthDiscovery,
    private readonly tokens: OAuthTokenExchange,
    private readonly signInService: SignInService,
    private readonly links: ExplicitLinkService,
  ) {
    this.stateCodec = createStateCodec(config.secrets);
  }

  /** Completes the sign-in (or bounces it, on the redirect proxy). */
  async complete(ctx: ProviderContext, p: NormalizedOAuthProvider): Promise<AuthResponse> {
    const params = callbackParams(ctx);

    // On the redirect proxy: send the response on to the deployment that started the flow.
    if (p.redirectProxyUrl && onProxy(ctx, p) && params.has('state')) {
      const decoded = await this.stateCodec.decode(params.get('state')!);
      if (!decoded) throw new InvalidCheck('The state parameter could not be decoded.');
      const origin = typeof decoded.origin === 'string' ? safeUrl(decoded.origin) : undefined;
      if (origin && origin.origin !== ctx.origin) {
        for (const [key, value] of params) origin.searchParams.set(key, value);
        return { redirect: origin.href, headers: NO_REFERRER };
      }
    }

    // Loaded before the provider's errors are classified, so a failed load is not reported as one of them.
    const oauth = await loadOAuth4WebApi();
    let as: o.AuthorizationServer;
    try {
      as = await this.discovery.authorizationServer(p);
    } catch (error) {
      throw error instanceof AuthError
        ? error
        : new OAuthCallbackError(`Could not reach ${p.name}: ${describe(error)}`, { cause: error });
    }
    const client: o.Client = { client_id: p.clientId ?? '', ...p.client };
    const { values, maxAge, link } = await this.openChecks(ctx, p, effectiveChecks(p, as));

    // RFC 9207 mix-up defence first, then the state, then the provider's error (if any).
    const iss = params.get('iss');
    if (iss !== null && iss !== as.issuer) {
      throw new OAuthCallbackError(`The response came from another issuer than ${p.name}'s (iss mismatch).`);
    }
    if (values.state !== undefined && !constantTimeEqual(params.get('state') ?? '', values.state)) {
      throw new InvalidCheck(
        params.has('state')
          ? 'The state parameter does not match the state cookie.'
          : 'The state parameter is missing.',
      );
    }
    let validated: URLSearchParams;
    try {
      validated = oauth.validateAuthResponse(as, client, params, values.state ?? oauth.skipStateCheck);
    } catch (error) {
      if (error instanceof oauth.AuthorizationResponseError) {
        throw new OAuthCallbackError(`${p.name} returned an error: ${error.error}.`, {
          cause: { provider: p.id, error: error.error },
        });
      }
      throw new OAuthCallbackError(`${p.name}'s response was rejected: ${describe(error)}`, { cause: error });
    }
    if (!validated.get('code')) throw new OAuthCallbackError(`${p.name} returned no authorization code.`);
    this.replays.markUsed(p.id, values, validated.get('code')!);

    const { tokens, claims } = await this.tokens
      .exchangeCode(ctx, p, as, client, validated, values, maxAge)
      .catch((error) => {
        throw mapProtocolError(error, p.name);
      });
    let lacking: { missing: string[]; why: string } | undefined;
    const read = await readProfile(ctx, p, as, client, tokens, claims, (missing, why) => {
      lacking = { missing, why };
    }).catch((error) => {
      throw mapProtocolError(error, p.name);
    });
    const { profile, user, stored } = await mapProfile(p, read, tokens, validated);
    if (lacking) this.warnMissingClaims(p, lacking.missing, lacking.why, user);
    const providerAccountId = String(user.id);
    this.config.logger.debug('oauth_callback', { provider: p.id });
    const input: SignInInput = {
      user: {
        ...user,
        id: providerAccountId,
        email: typeof user.email === 'string' ? user.email.toLowerCase() : user.email,
      },
      // The callbacks see the whole token response (as in Auth.js); the row keeps what account() keeps.
      account: { ...tokens, provider: p.id, providerAccountId, type: p.type },
      storedAccount: { ...stored, provider: p.id, providerAccountId, type: p.type },
      profile,
    };
    // A link (started by POST /link/:provider, its user sealed in the check cookies) never signs in.
    const response = await this.accounts.run(`${p.id}\0${providerAccountId}`, () =>
      link !== undefined ? this.links.complete(ctx, input, link) : this.signInService.completeSignIn(ctx, input),
    );
    return { ...response, headers: { ...(response.headers ?? {}), ...NO_REFERRER } };
  }

  /**
   * Warns, once per provider (at the first sign-in where it happens), that its ID token lacks claims
   * the profile needs and the userinfo fallback did not fill them: users are stored without them.
   * Nothing when `profile()` found the values elsewhere (a custom mapping).
   */
  private warnMissingClaims(p: NormalizedOAuthProvider, missing: string[], why: string, user: User): void {
    const unmapped = missing.filter((claim) => {
      const value = (user as Record<string, unknown>)[claim];
      return value === undefined || value === null || value === '';
    });
    if (!unmapped.length || this.warnedClaims.has(p.id)) return;
    this.warnedClaims.add(p.id);
    const list = unmapped.map((claim) => `\`${claim}\``).join(' and ');
    this.config.logger.warn(
      `[OAuthProfile] providers "${p.id}": the ID token has no ${list} claim and ${why}, so users who sign in with ${p.name} are stored without ${unmapped.length > 1 ? 'them' : 'it'}. ` +
        `Ask for the scopes that carry them (\`openid profile email\`), let the provider put them in the ID token, or read the profile from userinfo (\`idToken: false\`). Logged once per provider.`,
    );
  }

  /**
   * Opens the check cookies of the checks in force, with the `max_age` the sign-in sealed and the
   * user a link was started for (`link`). Every check cookie is consumed (cleared) up front, so a
   * failed callback leaves none behind; cookies that disagree on the link (from two flows) fail.
   */
  private async openChecks(
    ctx: ProviderContext,
    p: NormalizedOAuthProvider,
    checks: Set<OAuthCheck>,
  ): Promise<{ values: CheckValues; maxAge: number | undefined; link: string | undefined }> {
    const values: CheckValues = {};
    let maxAge: number | undefined;
    const links = new Set<string | undefined>();
    const keep = (key: keyof CheckValues) => (check: OpenedCheck) => {
      values[key] = check.value;
      if (typeof check.data?.maxAge === 'number') maxAge = check.data.maxAge;
      links.add(typeof check.data?.link === 'string' && check.data.link ? check.data.link : undefined);
    };
    const opened = await Promise.allSettled([
      checks.has('state') ? this.open(ctx, 'state', p.id).then(keep('state')) : undefined,
      checks.has('pkce') ? this.open(ctx, 'pkceCodeVerifier', p.id).then(keep('code_verifier')) : undefined,
      checks.has('nonce') ? this.open(ctx, 'nonce', p.id).then(keep('nonce')) : undefined,
    ]);
    // Without check cookies ('none'), only the provider's own max_age is known here.
    if (maxAge === undefined && p.type === 'oidc') maxAge = parseMaxAge(p.authorization?.params?.max_age ?? null);
    const failed = opened.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed)
      throw failed.reason instanceof AuthError
        ? failed.reason
        : new InvalidCheck('A check cookie could not be read.', { cause: failed.reason });
    if (links.size > 1) throw new InvalidCheck('The check cookies come from different flows (a link and a sign-in).');
    return { values, maxAge, link: [...links][0] };
  }

  private async open(
    ctx: ProviderContext,
    kind: 'state' | 'pkceCodeVerifier' | 'nonce',
    provider: string,
  ): Promise<OpenedCheck> {
    const opened = await this.checks.open(ctx, kind, provider, { consume: true });
    if (typeof opened.value !== 'string' || opened.value === '')
      throw new InvalidCheck(`The ${kind} check value is empty.`);
    return opened;
  }
}

/** The authorization response: the form body for `POST` (form_post), else the query. */
export function callbackParams(ctx: ProviderContext): URLSearchParams {
  const source = ctx.request.method === 'POST' ? ctx.request.body : ctx.request.query;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(source ?? {})) {
    if (typeof value !== 'string')
      throw new InvalidRequest(`The callback parameter ${JSON.stringify(key.slice(0, 64))} must be a single string.`);
    if (value.length > 16_384) throw new InvalidRequest('A callback parameter is too long.');
    params.set(key, value);
  }
  return params;
}
