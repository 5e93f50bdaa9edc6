import type { Request, Response } from 'express';
import { appendSetCookie } from './auth-request.factory.js';
import { defineEdge } from './http-edge.js';

/** Express 5: the body comes from Nest's body parsers, the target from `originalUrl`. */
export const expressEdge = defineEdge<Request, Response>({
  platform: 'express',
  parts: (req) => ({
    method: req.method,
    target: req.originalUrl ?? req.url,
    headers: req.headers,
    encrypted: (req.socket as { encrypted?: boolean } | undefined)?.encrypted === true,
    body: req.body,
    ip: req.ip,
  }),
  sink: (res) => ({
    get sent() {
      return res.headersSent;
    },
    status: (code) => void res.status(code),
    header: (name, value) => void res.setHeader(name, value),
    cookie: (cookie) => appendSetCookie(res, cookie),
    end: (body) => void (body === undefined ? res.end() : res.end(body)),
  }),
  // path-to-regexp 8: a named wildcard, optional so that `prefix/` matches too.
  catchAll: (prefix) => `${prefix}/{*rest}`,
  install(instance, prefix) {
    gateRoutes(instance as ExpressApp, prefix);
    // Nest's body parsers run before any route: a body they refuse (malformed JSON, too large, a
    // charset other than UTF-8) would reach Nest's exception layer, whose body names the parser's
    // internals. Under the module's prefix it is the module's own answer instead: InvalidRequest.
    (instance as { use(path: string, handler: ExpressErrorHandler): unknown }).use(
      prefix || '/',
      (error, req, res, next) => {
        const status = bodyParserStatus(error);
        if (status === undefined || res.headersSent) return next(error);
        expressEdge.write(req, res, { status, json: { error: 'InvalidRequest', message: BODY_MESSAGES[status] } });
      },
    );
  },
});

/** What {@link gateRoutes} reads of Express 5's app: its router's layers (the `router` package, 2.x). */
interface ExpressApp {
  router?: { stack?: RouterLayer[] };
}
interface RouterLayer {
  route?: { path?: unknown };
  match?: (path: string) => unknown;
}

/**
 * Express tests a request against the app's routes one by one in the order they were registered
 * (each a regular expression), and Nest registers them module by module in the order of `imports`.
 * So the module's routes (about thirty: its pages, flows and APIs) cost every request to a route
 * registered after them, that is every route of an app that imports AuthModule before its feature
 * modules: 1.6-4.2 % of a small route's requests per second (`npm run bench:route-order`). Once
 * Nest has registered them, this puts a gate in front of each one's own test: a request whose path
 * does not begin with `prefix` (in any case, as Express may match it without regard to case) is
 * refused at once, the same answer the route's expression would give, since each of its paths begins
 * with the prefix. Once per request, not per route: the verdict for the last path is kept. The
 * routes stay where they are, in their order, with their own tests for everything else (methods,
 * `OPTIONS`, `HEAD`, case and trailing-slash settings, parameters), so every answer is the same.
 */
export function gateRoutes(app: ExpressApp, prefix: string): void {
  const stack = app.router?.stack;
  // A prefix of plain characters only: one that holds what path-to-regexp reads as a parameter or
  // encodes would not be matched literally by the routes' own expressions.
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(prefix) || !Array.isArray(stack)) return;
  const start = new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'i');
  let lastPath: string | undefined;
  let lastUnder = false;
  const under = (path: string) => {
    if (path !== lastPath) {
      lastPath = path;
      lastUnder = start.test(path);
    }
    return lastUnder;
  };
  for (const layer of stack) {
    const path = layer.route?.path;
    const match = layer.match;
    if (typeof path !== 'string' || typeof match !== 'function') continue;
    if (path !== prefix && !path.startsWith(`${prefix}/`)) continue;
    layer.match = function (this: RouterLayer, requested: string) {
      return typeof requested === 'string' && !under(requested) ? false : match.call(this, requested);
    };
  }
}

type ExpressErrorHandler = (error: unknown, req: Request, res: Response, next: (error?: unknown) => void) => void;

const BODY_MESSAGES: Record<number, string> = {
  400: 'The request body is malformed.',
  413: 'The request body is too large.',
  415: 'The request body must be UTF-8.',
};

/** The status of a body-parser refusal (its errors carry a `type` such as `entity.parse.failed`), else undefined. */
function bodyParserStatus(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { type, status } = error as { type?: unknown; status?: unknown };
  if (typeof type !== 'string' || typeof status !== 'number') return undefined;
  if (status === 413 || status === 415) return status;
  return status >= 400 && status < 500 ? 400 : undefined;
}
