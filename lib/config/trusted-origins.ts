/**
 * `trustedOrigins`: the front-end origins (a single-page app on another origin) that may post to the
 * auth routes and be sent back to after sign-in and sign-out. Each must be an exact `scheme://host[:port]`
 * origin; a path, a wildcard or `null` is refused, so the list can only ever name whole origins.
 */
export function resolveTrustedOrigins(value: unknown, problems: string[]): ReadonlySet<string> {
  const origins = new Set<string>();
  if (value === undefined) return origins;
  if (!Array.isArray(value)) {
    problems.push("trustedOrigins must be an array of origins, e.g. ['https://app.example.com'].");
    return origins;
  }
  for (const entry of value) {
    const origin = typeof entry === 'string' ? exactOrigin(entry) : undefined;
    if (origin === undefined)
      problems.push(
        `trustedOrigins: ${JSON.stringify(entry)} is not an origin; write it as scheme://host[:port] with no path or wildcard, e.g. 'https://app.example.com' or 'http://localhost:5173'.`,
      );
    else origins.add(origin);
  }
  return origins;
}

/** The origin `value` names exactly (no path, query, credentials or wildcard), or undefined. */
function exactOrigin(value: string): string | undefined {
  if (value.includes('*')) return undefined;
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    if (url.username || url.password || url.search || url.hash) return undefined;
    if (url.pathname !== '/' || /^[a-z]+:\/\/[^/]+\/./i.test(value)) return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}
