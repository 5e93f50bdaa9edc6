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
