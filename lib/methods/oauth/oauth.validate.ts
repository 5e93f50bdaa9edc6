import type { InternalOAuthProvider } from '../../providers/internal-provider.js';

const OAUTH_CHECKS = new Set(['none', 'state', 'pkce']);
const OIDC_CHECKS = new Set(['none', 'state', 'pkce', 'nonce']);
const AUTH_METHODS = new Set([
  'client_secret_basic',
  'client_secret_post',
  'client_secret_jwt',
  'private_key_jwt',
  'none',
]);
const SECRET_METHODS = new Set(['client_secret_basic', 'client_secret_post', 'client_secret_jwt']);
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Checks the shape of an `oauth`/`oidc` provider at bootstrap and pushes one message per problem
 * ("what is wrong, what to do"). resolve-config already checks that endpoints are present.
 */
export function validateOAuthProvider(
  provider: InternalOAuthProvider,
  problems: string[],
  _ctx: { hasAdapter: boolean },
): void {
  // Read as the user may have written it (JavaScript reaches here untyped): every field is unknown.
  const c: Unchecked<InternalOAuthProvider['config']> = provider.config;
  const where = `provider ${JSON.stringify(provider.id)}`;
  const envId = provider.id.toUpperCase().replace(/-/g, '_');
  const client = isObject(c.client) ? c.client : {};
  const method = client.token_endpoint_auth_method ?? 'client_secret_basic';

  if (typeof c.clientId !== 'string' || c.clientId === '') {
    problems.push(
      `${where}: \`clientId\` is missing; set the AUTH_${envId}_ID environment variable or pass \`clientId\`.`,
    );
  }
  if (typeof method !== 'string' || !AUTH_METHODS.has(method)) {
    problems.push(
      `${where}: client.token_endpoint_auth_method ${JSON.stringify(method)} is not supported; use one of ${[...AUTH_METHODS].join(', ')}.`,
    );
  } else if (SECRET_METHODS.has(method) && (typeof c.clientSecret !== 'string' || c.clientSecret === '')) {
    problems.push(
      `${where}: \`clientSecret\` is missing (token_endpoint_auth_method ${method}); set the AUTH_${envId}_SECRET environment variable or pass \`clientSecret\`, or use 'private_key_jwt' / 'none'.`,
    );
  } else if (method === 'private_key_jwt') {
    const token = isObject(c.token) ? c.token : {};
    const key = token.clientPrivateKey ?? client.clientPrivateKey;
    if (!isPrivateKey(key)) {
      problems.push(
        `${where}: token_endpoint_auth_method 'private_key_jwt' needs a private key: pass \`token: { clientPrivateKey }\` (a private CryptoKey, { key, kid }, or a private JWK with kid and alg).`,
      );
    }
  }

  for (const field of ['issuer', 'wellKnown', 'jwks_endpoint', 'redirectProxyUrl'] as const) {
    if (c[field] !== undefined) checkUrl(c[field], `${where}: \`${field}\``, problems);
  }
  for (const name of ['authorization', 'token', 'userinfo'] as const) {
    const endpoint = c[name];
    if (endpoint === undefined) continue;
    if (typeof endpoint === 'string') {
      checkUrl(endpoint, `${where}: \`${name}\``, problems);
      continue;
    }
    if (!isObject(endpoint)) {
      problems.push(`${where}: \`${name}\` must be a URL string or an object { url, params, request, conform }.`);
      continue;
    }
    if (endpoint.url !== undefined)
      checkUrl(endpoint.url instanceof URL ? endpoint.url.href : endpoint.url, `${where}: \`${name}.url\``, problems);
    if (endpoint.params !== undefined && !isObject(endpoint.params))
      problems.push(`${where}: \`${name}.params\` must be an object of parameters.`);
    for (const fn of ['request', 'conform'] as const) {
      if (endpoint[fn] !== undefined && typeof endpoint[fn] !== 'function')
        problems.push(`${where}: \`${name}.${fn}\` must be a function.`);
    }
    if (name === 'authorization' && isObject(endpoint.params)) {
      const responseType = endpoint.params.response_type;
      if (responseType !== undefined && responseType !== 'code') {
        problems.push(
          `${where}: authorization.params.response_type ${JSON.stringify(responseType)} is not supported; only the authorization code flow ('code') is.`,
        );
      }
    }
  }

  if (c.checks !== undefined) {
    const allowed = provider.type === 'oidc' ? OIDC_CHECKS : OAUTH_CHECKS;
    if (!Array.isArray(c.checks)) {
      problems.push(`${where}: \`checks\` must be an array of ${[...allowed].map((v) => `'${v}'`).join(', ')}.`);
    } else {
      for (const check of c.checks) {
        if (!allowed.has(check as string)) {
          problems.push(
            check === 'nonce'
              ? `${where}: the 'nonce' check needs an OpenID Connect provider (type 'oidc'); remove it or change the type.`
              : `${where}: unknown check ${JSON.stringify(check)}; use ${[...allowed].map((v) => `'${v}'`).join(', ')}.`,
          );
        }
      }
    }
  }
  for (const fn of ['profile', 'account'] as const) {
    if (c[fn] !== undefined && typeof c[fn] !== 'function') problems.push(`${where}: \`${fn}\` must be a function.`);
  }
  if (c.idToken !== undefined && typeof c.idToken !== 'boolean')
    problems.push(`${where}: \`idToken\` must be true or false.`);
  if (
    provider.type === 'oidc' &&
    c.issuer === undefined &&
    c.wellKnown === undefined &&
    c.jwks_endpoint === undefined
  ) {
    problems.push(
      `${where}: an OIDC provider without \`issuer\` or \`wellKnown\` needs \`jwks_endpoint\` to verify ID token signatures; set \`issuer\` (discovery) or \`jwks_endpoint\`.`,
    );
  }
}

/** Every field of a config (of each member of a union), optional and of unknown type. */
type Unchecked<C> = { [K in C extends unknown ? keyof C : never]?: unknown };

function checkUrl(value: unknown, label: string, problems: string[]): void {
  if (typeof value !== 'string') {
    problems.push(`${label} must be an absolute URL string.`);
    return;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    problems.push(`${label} ${JSON.stringify(value.slice(0, 200))} is not an absolute URL.`);
    return;
  }
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && LOOPBACK.has(url.hostname)) return;
  problems.push(
    `${label} must use https (http is only allowed for localhost and 127.0.0.1), got ${JSON.stringify(url.origin)}.`,
  );
}

function isObject(value: unknown): value is Record<string, any> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isPrivateKey(key: unknown): boolean {
  if (!isObject(key)) return false;
  if (typeof (key as { type?: unknown }).type === 'string') return (key as { type: string }).type === 'private';
  if (isObject(key.key)) return (key.key as { type?: unknown }).type === 'private';
  return typeof key.d === 'string' && typeof key.kty === 'string';
}

/**
 * The endpoints an `oauth`/`oidc` provider needs: discovery (`issuer` or `wellKnown`), or all of
 * `authorization`, `token` and `userinfo` (an OIDC provider that reads the ID token may leave out
 * `userinfo`).
 */
export function checkOAuthEndpoints(provider: InternalOAuthProvider, problems: string[], where: string): void {
  const c = provider.config as Record<string, unknown>;
  const hasDiscovery = typeof c.issuer === 'string' || typeof c.wellKnown === 'string';
  const hasEndpoints = ['authorization', 'token', 'userinfo'].every((k) => endpointUrl(c[k]) !== undefined);
  const oidcWithoutUserinfo =
    provider.type === 'oidc' &&
    ['authorization', 'token'].every((k) => endpointUrl(c[k]) !== undefined) &&
    c.idToken !== false;
  if (!hasDiscovery && !hasEndpoints && !oidcWithoutUserinfo) {
    problems.push(
      `${where}: set \`issuer\` (or \`wellKnown\`) for discovery, or all of \`authorization\`, \`token\` and \`userinfo\` URLs (InvalidEndpoints).`,
    );
  }
}

function endpointUrl(endpoint: unknown): string | undefined {
  if (typeof endpoint === 'string') return endpoint;
  if (endpoint && typeof endpoint === 'object' && typeof (endpoint as { url?: unknown }).url === 'string') {
    return (endpoint as { url: string }).url;
  }
  return undefined;
}
