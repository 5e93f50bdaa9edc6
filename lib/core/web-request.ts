import type { AuthRequest } from '../types/http.types.js';

/** Headers that describe one hop or the original body, not the request a user callback is given. */
const HOP_BY_HOP = new Set([
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
  'proxy-connection',
]);

export interface WebRequestOptions {
  /**
   * Pass the Cookie header on. `authorize` gets it (Auth.js passes the whole request; an app may read
   * its own cookies there); `sendVerificationRequest` does not (an email sender has no use for the
   * browser's session and CSRF cookies and may hand the request to a third party).
   */
  cookies: boolean;
  /** Body fields left out (e.g. `csrfToken`). */
  omit?: readonly string[];
}

/**
 * The Web `Request` a user callback receives for a platform-free request: its URL, its headers
 * (values fetch's `Headers` refuses are left out) and its parsed body as JSON.
 */
export function toWebRequest(request: AuthRequest, options: WebRequestOptions): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || (name === 'cookie' && !options.cookies)) continue;
    try {
      headers.set(name, value);
    } catch {
      // A value fetch's Headers refuses: the callback does not need it.
    }
  }
  headers.set('content-type', 'application/json');
  const body = Object.fromEntries(Object.entries(request.body).filter(([key]) => !options.omit?.includes(key)));
  return new Request(request.url, { method: 'POST', headers, body: JSON.stringify(body) });
}

/** A request that wants JSON: a JSON body, or `Accept` naming JSON and not HTML. */
export function wantsJson(request: AuthRequest): boolean {
  if (/^application\/json\b/i.test(request.headers['content-type'] ?? '')) return true;
  const accept = request.headers.accept ?? '';
  return /application\/json/i.test(accept) && !/text\/html/i.test(accept);
}
