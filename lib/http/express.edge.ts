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
});
