/**
 * A small cookie-keeping HTTP client over fetch for e2e tests: it never follows redirects (tests
 * look at each hop), stores `Set-Cookie` (deleting cookies set with Max-Age=0 or an empty value),
 * and sends them back.
 */
export class TestClient {
  readonly cookies = new Map<string, string>();

  constructor(readonly baseUrl: string) {}

  /** GET `path` (relative to baseUrl, or absolute). */
  get(path: string, headers: Record<string, string> = {}): Promise<Response> {
    return this.request('GET', path, undefined, headers);
  }

  /** POST a form (urlencoded) or, with `json: true`, a JSON body. */
  post(
    path: string,
    body: Record<string, string> | unknown = {},
    options: { json?: boolean; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    return this.request('POST', path, body, options.headers ?? {}, options.json);
  }

  /** Fetches a CSRF token (sets the CSRF cookie). */
  async csrf(basePath = '/auth'): Promise<string> {
    const res = await this.get(`${basePath}/csrf`);
    const body = (await res.json()) as { csrfToken: string };
    return body.csrfToken;
  }

  /** The Cookie header value this client sends. */
  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    json = false,
  ): Promise<Response> {
    const url = new URL(path, this.baseUrl);
    const init: RequestInit = { method, redirect: 'manual', headers: { ...headers } };
    const cookie = this.cookieHeader();
    if (cookie) (init.headers as Record<string, string>).cookie = cookie;
    if (body !== undefined && method !== 'GET' && method !== 'HEAD') {
      if (json) {
        (init.headers as Record<string, string>)['content-type'] = 'application/json';
        init.body = JSON.stringify(body);
      } else if (typeof body === 'string') {
        (init.headers as Record<string, string>)['content-type'] ??= 'application/x-www-form-urlencoded';
        init.body = body;
      } else {
        (init.headers as Record<string, string>)['content-type'] = 'application/x-www-form-urlencoded';
        init.body = new URLSearchParams(body as Record<string, string>).toString();
      }
    }
    const res = await fetch(url, init);
    this.store(res);
    return res;
  }

  /** Applies the response's Set-Cookie headers to the jar. */
  store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = value === '' || attrs.some((a) => /^\s*max-age=0\s*$/i.test(a));
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
}

/** The `Location` of a redirect, as a URL. */
export function location(res: Response): URL {
  const value = res.headers.get('location');
  if (!value) throw new Error(`Expected a redirect, got ${res.status}`);
  return new URL(value);
}
