import { describe, expect, it } from '@jest/globals';
import { deepMerge } from '../../config/resolve-config.js';
import { resolveConfig } from '../../sign-in-methods.js';
import { normalizeEndpoint } from '../../methods/oauth/oauth.normalize.js';
import type { OAuthConfig } from '../../methods/oauth/oauth.types.js';
import type { BuiltInProviderType, OAuthProviderType } from '../provider.types.js';
import { oauthProviderCatalog } from './catalog.js';
import { authjsReference, catalogDepartures, type ReferenceProvider } from './fixtures/authjs-reference.fixture.js';
import { profileFixtures } from './fixtures/profiles.fixture.js';

const SECRET = 'catalog-test-secret-0123456789abcdef';
const ISSUER = 'https://idp.example.com/tenant';
const ACCOUNT_ID = 'tstdrv123';

/** The reference with placeholders filled in as the factory is configured below. */
function expected(ref: ReferenceProvider): ReferenceProvider {
  const fill = (value: string) =>
    value
      .replace(/\{issuer\}(?=[a-z])/g, `${ISSUER}/`)
      .replace(/\{issuer\}/g, ISSUER)
      .replace(/\{clientId\}/g, 'client-id')
      .replace(/\{clientSecret\}/g, 'client-secret')
      .replace(/\{accountID\}/g, ACCOUNT_ID);
  const out = { ...ref, ...catalogDepartures[ref.id] };
  return {
    ...out,
    issuer: out.issuer && fill(out.issuer),
    authorization: fill(out.authorization),
    token: fill(out.token),
    userinfo: fill(out.userinfo),
  };
}

/** The factory's arguments: credentials, plus the issuer or account the reference templates need. */
function argsFor(ref: ReferenceProvider): Record<string, unknown> {
  const args: Record<string, unknown> = { clientId: 'client-id', clientSecret: 'client-secret' };
  if ([ref.issuer, ref.authorization, ref.token, ref.userinfo].some((v) => v?.includes('{issuer}')))
    args.issuer = ISSUER;
  if (ref.id === 'netsuite') args.accountID = ACCOUNT_ID;
  return args;
}

/** The factory's config with the user's options merged over it, as the module does. */
function build(id: string, args: Record<string, unknown>): OAuthConfig<any> & Record<string, any> {
  const factory = oauthProviderCatalog[id as keyof typeof oauthProviderCatalog] as (
    config?: unknown,
  ) => OAuthConfig<any>;
  const { options, ...defaults } = factory(args) as OAuthConfig<any> & { options?: Record<string, unknown> };
  return deepMerge(defaults as Record<string, unknown>, options ?? {}) as OAuthConfig<any> & Record<string, any>;
}

/** An endpoint as a comparable `{ base, params }` (its URL's query, with its `params` for query endpoints). */
function comparable(
  endpoint: unknown,
  paramsInQuery = true,
): { base: string; params: Array<[string, string]> } | undefined {
  const normalized = normalizeEndpoint(endpoint);
  if (!normalized?.url) return undefined;
  const url = new URL(normalized.url.href);
  // Token `params` are extra body parameters, not part of the URL.
  if (paramsInQuery) for (const [key, value] of Object.entries(normalized.params)) url.searchParams.set(key, value);
  return { base: decodeURI(`${url.origin}${url.pathname}`), params: [...url.searchParams].sort() };
}

function comparableRef(value: string) {
  const url = new URL(value);
  return { base: decodeURI(`${url.origin}${url.pathname}`), params: [...url.searchParams].sort() };
}

const table = authjsReference.map((ref) => [ref.id, ref] as const);

// Type-level (checked by `tsc`): the provider id types come from the catalogue's keys.
const knownIds: OAuthProviderType[] = ['microsoft-entra-id', '42-school', 'webauthn', 'passkey'];
const builtIn: BuiltInProviderType = 'united-effects';
// @ts-expect-error a misspelt provider id is a compile error
const misspelt: OAuthProviderType = 'microsoft-entra';

describe('the OAuth provider catalogue', () => {
  it('derives OAuthProviderType from its ids (plus webauthn and passkey)', () => {
    expect(knownIds.filter((id) => id in oauthProviderCatalog)).toEqual(['microsoft-entra-id', '42-school']);
    expect(builtIn in oauthProviderCatalog).toBe(true);
    expect(misspelt in oauthProviderCatalog).toBe(false);
  });

  it('has a factory for every oauth/oidc id of the reference list, and nothing else', () => {
    expect(Object.keys(oauthProviderCatalog).sort()).toEqual(authjsReference.map((r) => r.id).sort());
    expect(Object.keys(oauthProviderCatalog)).toHaveLength(93);
  });

  describe.each(table)('%s', (id, ref) => {
    const want = expected(ref);
    const args = argsFor(ref);
    const config = build(id, args);

    it('has the id, name and type of the reference, and a brand colour', () => {
      expect(config.id).toBe(ref.id);
      expect(config.name).toBe(ref.name);
      expect(config.type).toBe(ref.type);
      expect(config.style?.brandColor).toMatch(/^#[0-9a-f]{6}$/i);
      expect(config.style?.logo).toBeUndefined();
    });

    it('has the issuer, endpoints, scope, checks and client settings of the reference', () => {
      if (want.issuer) expect(config.issuer?.replace(/\/$/, '')).toBe(want.issuer.replace(/\/$/, ''));

      const authorization = comparable(config.authorization);
      if (want.authorization.startsWith('discovered:')) {
        expect(authorization).toBeUndefined();
        expect(normalizeEndpoint(config.authorization)?.params.scope).toBe(want.scope);
      } else {
        expect(authorization).toEqual(comparableRef(want.authorization));
        expect(new URL(want.authorization).searchParams.get('scope') ?? '').toBe(want.scope);
      }

      for (const name of ['token', 'userinfo'] as const) {
        const actual = comparable(config[name], name !== 'token');
        const reference = want[name];
        if (/^https?:/.test(reference)) expect(actual).toEqual(comparableRef(reference));
        else if (reference.startsWith('custom'))
          expect(typeof (config[name] as { request?: unknown }).request).toBe('function');
        else expect(actual).toBeUndefined();
      }

      expect([...(config.checks ?? [])].sort()).toEqual([...ref.checks].sort());
      if (ref.client) expect(config.client).toEqual(ref.client);
      else expect(config.client?.token_endpoint_auth_method ?? 'client_secret_basic').toBe('client_secret_basic');
      if (ref.idToken === false) expect((config as { idToken?: boolean }).idToken).toBe(false);
      else expect((config as { idToken?: boolean }).idToken).not.toBe(false);
    });

    it('passes bootstrap validation', () => {
      const provider = oauthProviderCatalog[id as keyof typeof oauthProviderCatalog] as (c?: unknown) => unknown;
      const args = argsFor(ref);
      // NetSuite has no userinfo endpoint: the user points it at a RESTlet.
      if (id === 'netsuite')
        args.userinfo = 'https://tstdrv123.restlets.api.netsuite.com/app/site/hosting/restlet.nl?script=1';
      const resolved = resolveConfig({ secret: SECRET, providers: [provider(args) as never] }, {}, null, {});
      expect(resolved.providers.map((p) => p.id)).toEqual([id]);
    });

    it('reads AUTH_<ID>_ID, AUTH_<ID>_SECRET (and AUTH_<ID>_ISSUER) when they are not given', () => {
      const envId = id.toUpperCase().replace(/-/g, '_');
      const env: Record<string, string> = { [`AUTH_${envId}_ID`]: 'env-id', [`AUTH_${envId}_SECRET`]: 'env-secret' };
      if (args.issuer) env[`AUTH_${envId}_ISSUER`] = ISSUER;
      // Factories that build URLs from the issuer or the client id read the environment when they run.
      const saved = { ...process.env };
      Object.assign(process.env, env);
      try {
        const factory = oauthProviderCatalog[id as keyof typeof oauthProviderCatalog] as (c?: unknown) => unknown;
        const extra =
          id === 'netsuite'
            ? {
                accountID: ACCOUNT_ID,
                userinfo: 'https://tstdrv123.restlets.api.netsuite.com/app/site/hosting/restlet.nl',
              }
            : undefined;
        const [provider] = resolveConfig(
          { secret: SECRET, providers: [factory(extra) as never] },
          {},
          null,
          env,
        ).providers;
        expect(provider.config).toMatchObject({ clientId: 'env-id', clientSecret: 'env-secret' });
        if (args.issuer) expect(String(provider.config.issuer).replace(/\/$/, '')).toBe(ISSUER);
        if (id === 'tiktok') expect(normalizeEndpoint(provider.config.authorization)?.params.client_key).toBe('env-id');
        if (id === 'descope') expect(provider.config.issuer).toBe('https://api.descope.com/env-id');
      } finally {
        for (const key of Object.keys(env)) if (!(key in saved)) delete process.env[key];
      }
    });

    it("lets the user's options override every default (deep-merged)", () => {
      const overridden = build(id, {
        ...args,
        name: 'Company SSO',
        checks: ['state'],
        authorization: { params: { prompt: 'consent' } },
        style: { brandColor: '#123456' },
        allowDangerousEmailAccountLinking: true,
      });
      expect(overridden.id).toBe(id);
      expect(overridden.name).toBe('Company SSO');
      expect(overridden.checks).toEqual(['state']);
      expect(overridden.style).toEqual({ ...config.style, brandColor: '#123456' });
      expect(overridden.allowDangerousEmailAccountLinking).toBe(true);
      expect(overridden.clientId).toBe('client-id');
      const params = normalizeEndpoint(overridden.authorization)?.params;
      expect(params?.prompt).toBe('consent');
      // The default scope survives an override of another parameter.
      expect(params?.scope).toBe(normalizeEndpoint(config.authorization)?.params.scope);
      expect(params?.scope).toBe(want.scope);
      const ownEndpoint = build(id, { ...args, token: 'https://proxy.example.com/token' });
      expect(ownEndpoint.token).toBe('https://proxy.example.com/token');
    });

    it('gives no user id for an error answer (never an account shared by every such answer)', async () => {
      const errorAnswer = { error: 'invalid_token', message: 'Bad credentials', status: 401 };
      const id = await Promise.resolve()
        .then(() => config.profile!(errorAnswer as never, {}))
        .then(
          (user) => user.id,
          () => undefined,
        );
      expect(id).toBeUndefined();
    });

    it('maps a profile shaped as the vendor documents it to a user with a string id', async () => {
      const fixture = profileFixtures[id];
      expect(fixture).toBeDefined();
      const user = await config.profile!(structuredClone(fixture.profile) as never, fixture.tokens ?? {});
      expect(user).toEqual(fixture.user);
      expect(typeof user.id).toBe('string');
      expect(user.id).not.toBe('');
      for (const key of ['name', 'email', 'image'] as const) {
        expect(user[key] === null || typeof user[key] === 'string').toBe(true);
      }
    });
  });
});
