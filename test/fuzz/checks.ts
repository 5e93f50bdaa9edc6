/**
 * What every answer to a fuzzed request must satisfy. Each check returns a short description of
 * what is wrong (empty when nothing is).
 */
import { parseTags } from '../setup/html-checks.js';
import type { FuzzRequest } from './generator.js';
import { INJECTED_COOKIE, INJECTED_HEADER, markupNeedle } from './payloads.js';
import type { WireResponse } from './wire.js';

export interface AnswerRules {
  /** The configured public origin, e.g. `http://app.test`. */
  origin: string;
  /**
   * The OAuth provider's authorization endpoint: the one other place a redirect may go, and only
   * with our callback as `redirect_uri`.
   */
  oauthAuthorize: string;
  /** The `redirect_uri` the app must send to the provider. */
  oauthRedirectUri: string;
  basePath: string;
}

export const SESSION_COOKIE_NAME = /^(__Secure-|__Host-)?authjs\.session-token(\.\d+)?$/;
/** An authenticator app's enrolment URI, as the two-factor pages link it (lib/pages/two-factor.page.ts). */
const OTPAUTH_LINK = /^otpauth:\/\/totp\/[^\s<>"'`]+$/;

/** Every problem with `res` as the answer to `req`. */
export function checkAnswer(req: FuzzRequest, res: WireResponse, rules: AnswerRules): string[] {
  const problems: string[] = [];
  if (res.status === 0) {
    // Node drops a CONNECT it has no handler for, and a request line it cannot read at all
    // may be closed without a word; everything else must be answered.
    if (req.method !== 'CONNECT')
      problems.push(`no HTTP answer (${res.raw.length} bytes: ${JSON.stringify(res.raw.slice(0, 80))})`);
    return problems;
  }
  if (res.status >= 500) problems.push(`status ${res.status}: ${res.body.slice(0, 200)}`);

  // Where the answer sends the browser: Location and the `{ url }` of X-Auth-Return-Redirect.
  for (const location of (res.headers.location ?? '').split('\n').filter(Boolean)) {
    const problem = offOrigin(location, rules, true);
    if (problem) problems.push(`Location ${problem}`);
  }
  const contentType = res.headers['content-type'] ?? '';
  if (/json/i.test(contentType) && res.body) {
    let json: unknown;
    try {
      json = JSON.parse(res.body);
    } catch {
      problems.push(`body labelled JSON does not parse: ${res.body.slice(0, 80)}`);
    }
    for (const [key, value] of urlFields(json)) {
      const problem = offOrigin(value, rules, key === 'url');
      if (problem) problems.push(`JSON ${key} ${problem}`);
    }
    if (!req.mayAuthenticate && res.status === 200 && showsSession(json))
      problems.push(`a session is shown without valid credentials: ${res.body.slice(0, 120)}`);
  }
  if (/html/i.test(contentType)) {
    for (const tag of parseTags(res.body)) {
      const urls: Array<[string, string | undefined]> = [
        [`<${tag.name} href>`, tag.name === 'a' || tag.name === 'link' ? tag.attrs.href : undefined],
        [`<${tag.name} action>`, tag.name === 'form' ? tag.attrs.action : undefined],
        [`<${tag.name} src>`, tag.attrs.src],
        [`<${tag.name} formaction>`, tag.attrs.formaction],
        ['callbackUrl field', tag.name === 'input' && tag.attrs.name === 'callbackUrl' ? tag.attrs.value : undefined],
      ];
      for (const [where, url] of urls) {
        if (url === undefined) continue;
        // The enrolment page links the new app's `otpauth://totp/…` URI ("open in your authenticator
        // app"): it opens an app on this device, not a page, and is the only other scheme allowed.
        if (where === '<a href>' && OTPAUTH_LINK.test(url)) continue;
        const problem = offOrigin(url, rules, false);
        if (problem) problems.push(`page ${where} ${problem}`);
      }
      if (tag.name === 'meta' && /refresh/i.test(tag.attrs['http-equiv'] ?? ''))
        problems.push(`page has a meta refresh: ${tag.attrs.content}`);
    }
  }

  // No markup the request carried comes back unescaped, in the head or the body. (Outside basePath,
  // a path or method the app does not route gets Nest's own 404, which echoes the target: that is
  // the framework's answer, not the module's, and is not checked here.)
  const needle = markupNeedle(req.marker);
  // Fastify's router answers a target it cannot decode (`%ff`) with 400 before any hook or route
  // runs, echoing it in a JSON message (with nosniff under basePath): the framework's answer too.
  const fastifyBadUrl = res.status === 400 && res.body.includes("' is not a valid url component");
  // Likewise the app's JSON body parser: a body that is not JSON is refused before the route runs,
  // and Nest's exception filter quotes the parser's message, which quotes the body (with nosniff
  // under basePath). The module never sees that request.
  const bodyParserRefusal =
    res.status === 400 &&
    /"message":"(?:[^"\\]|\\.)*is not valid JSON","error":"Bad Request","statusCode":400/.test(res.body);
  const inScope =
    !fastifyBadUrl && !bodyParserRefusal && (isUnderPrefix(req.target, rules.basePath) || res.status !== 404);
  if (inScope && (res.head.toLowerCase().includes(needle) || res.body.toLowerCase().includes(needle))) {
    const at = res.body.toLowerCase().indexOf(needle);
    problems.push(
      `reflected markup ${needle} (${contentType || 'no content type'}): …${at >= 0 ? res.body.slice(Math.max(0, at - 60), at + 60) : res.head.slice(0, 200)}…`,
    );
  }

  // No header or cookie the request tried to inject.
  for (const line of res.head.split(/\r\n|\n|\r/)) {
    if (line.toLowerCase().startsWith(`${INJECTED_HEADER.toLowerCase()}`))
      problems.push(`injected header: ${line.slice(0, 120)}`);
  }
  for (const cookie of res.setCookies) {
    const [pair = '', ...attrs] = cookie.split(';');
    const name = pair.slice(0, Math.max(0, pair.indexOf('='))).trim();
    if (name.toLowerCase().startsWith(INJECTED_COOKIE)) problems.push(`injected cookie: ${cookie.slice(0, 120)}`);
    for (const attr of attrs) {
      const a = attr.trim().toLowerCase();
      if (a.startsWith(INJECTED_COOKIE) || (a.startsWith('domain=') && !a.endsWith(new URL(rules.origin).hostname)))
        problems.push(`injected cookie attribute: ${cookie.slice(0, 160)}`);
    }
    // The remembered callback URL is where sign-in and sign-out send the browser later.
    if (name.endsWith('authjs.callback-url')) {
      const value = pair.slice(pair.indexOf('=') + 1);
      let decoded = value;
      try {
        decoded = decodeURIComponent(value);
      } catch {
        problems.push(`callback-url cookie is not decodable: ${value.slice(0, 80)}`);
      }
      if (decoded) {
        const problem = offOrigin(decoded, rules, false);
        if (problem) problems.push(`callback-url cookie ${problem}`);
      }
    }
    if (!req.mayAuthenticate && SESSION_COOKIE_NAME.test(name) && pair.slice(pair.indexOf('=') + 1) !== '') {
      problems.push(`a session cookie was set without valid credentials: ${name}`);
    }
  }

  // Answers written by the app under basePath carry nosniff. Node's own answers to requests it
  // refuses before any app code runs (no Host, a head it cannot parse or too large) are bare.
  if (
    !isNodeOwnAnswer(res) &&
    isUnderPrefix(req.target, rules.basePath) &&
    res.headers['x-content-type-options'] !== 'nosniff'
  ) {
    problems.push(`answer under ${rules.basePath} without X-Content-Type-Options: nosniff (${res.status})`);
  }
  return problems;
}

/**
 * Why `value` would send the browser off the origin (undefined when it does not): an absolute URL
 * with another origin, a scheme other than http(s), or a path that browsers read as another host.
 */
function offOrigin(value: string, rules: AnswerRules, mayBeOAuth: boolean): string | undefined {
  const v = value.trim();
  if (v === '' || v.startsWith('#')) return undefined;
  if (/[\u0000-\u001f\u007f]/.test(value)) return `carries control characters: ${JSON.stringify(value.slice(0, 120))}`;
  let url: URL;
  try {
    // Resolved the way a browser resolves a Location: `//host` and `/\host` name another host.
    url = new URL(v, `${rules.origin}/`);
  } catch {
    return `is neither a path nor a URL: ${JSON.stringify(v.slice(0, 120))}`;
  }
  if (url.origin === rules.origin) return undefined;
  if (mayBeOAuth && v.startsWith(`${rules.oauthAuthorize}?`)) {
    const redirectUri = url.searchParams.get('redirect_uri');
    return redirectUri === rules.oauthRedirectUri
      ? undefined
      : `sends the provider redirect_uri ${JSON.stringify(redirectUri)}`;
  }
  return `leaves the origin: ${JSON.stringify(v.slice(0, 160))}`;
}

/** Every string under a key ending in `url` (any case), at any depth. */
function urlFields(value: unknown, out: Array<[string, string]> = [], depth = 0): Array<[string, string]> {
  if (depth > 20 || value === null || typeof value !== 'object') return out;
  for (const [key, v] of Object.entries(value)) {
    if (typeof v === 'string' && /url$/i.test(key)) out.push([key, v]);
    else urlFields(v, out, depth + 1);
  }
  return out;
}

/** True for `/auth/session`'s and the guarded routes' signed-in answers. */
function showsSession(json: unknown): boolean {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return false;
  const o = json as Record<string, unknown>;
  if (o.user !== undefined && o.user !== null) return true;
  // GET /me/fresh answers `{ id }`.
  return Object.keys(o).length === 1 && typeof o.id === 'string';
}

/** An empty answer with nothing but framing headers: what Node writes by itself (400, 431). */
function isNodeOwnAnswer(res: WireResponse): boolean {
  const bare = new Set(['connection', 'date', 'transfer-encoding', 'content-length']);
  if (res.body === '' && Object.keys(res.headers).every((name) => bare.has(name))) return true;
  // Fastify answers those itself (its default `clientErrorHandler`), on the socket, as bare JSON.
  return (
    FASTIFY_CLIENT_ERROR.test(res.body) &&
    Object.keys(res.headers).every((name) => name === 'content-type' || bare.has(name))
  );
}

/** The body of Fastify's default answer to a request Node's parser refused. */
const FASTIFY_CLIENT_ERROR = /^\{"error":"[A-Za-z ]+","message":"[A-Za-z ]+","statusCode":4\d\d\}$/;

/** The rule of the module's header middleware: the path is the prefix or below it. */
function isUnderPrefix(target: string, prefix: string): boolean {
  let path = target;
  if (!target.startsWith('/')) {
    try {
      const url = new URL(target);
      // Express routes only http(s) targets with a host; others get the app's 404 (README: they
      // never reach the module).
      if (!/^https?:$/.test(url.protocol) || url.host === '' || /^[a-z][a-z0-9+.-]*:\/\/\//i.test(target)) return false;
      // The path as sent: Express matches routes on it unnormalised (`/x/../auth` is not under `/auth`).
      path = target.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '');
    } catch {
      return false;
    }
  }
  if (!path.startsWith(prefix)) return false;
  const next = path.charAt(prefix.length);
  return next === '' || next === '/' || next === '?' || next === '#';
}
