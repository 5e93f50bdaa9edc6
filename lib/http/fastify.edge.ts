import { METHODS, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { appendSetCookie } from './auth-request.factory.js';
import { defineEdge, type HttpEdge } from './http-edge.js';
import { installFastifyHooks, type FastifyHooks } from './fastify-hooks.js';

/** What the module reads of a Fastify request (typed here: Express apps need not install Fastify). */
interface FastifyRequestLike {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body?: unknown;
  ip?: string;
  raw: IncomingMessage;
}

/** What the module uses of a Fastify reply. */
interface FastifyReplyLike {
  readonly sent: boolean;
  code(status: number): unknown;
  header(name: string, value: string): unknown;
  send(payload?: string): unknown;
}

/** What the edge uses of Fastify's instance to know every method. */
interface FastifyMethods {
  supportedMethods?: string[];
  addHttpMethod?(method: string, options: { hasBody: boolean }): unknown;
}

/** Fastify 5: the body comes from the adapter's JSON and urlencoded parsers, the target from the raw request. */
export const fastifyEdge: HttpEdge = defineEdge<FastifyRequestLike, FastifyReplyLike>({
  platform: 'fastify',
  parts: (req) => ({
    method: req.method,
    target: req.raw.url ?? req.url,
    headers: req.headers,
    encrypted: (req.raw.socket as { encrypted?: boolean } | undefined)?.encrypted === true,
    body: req.body,
    ip: req.ip,
  }),
  sink: (reply) => ({
    get sent() {
      return reply.sent;
    },
    status: (code) => void reply.code(code),
    header: (name, value) => void reply.header(name, value),
    // `reply.header('set-cookie', …)` adds to the earlier ones rather than replacing them.
    cookie: (cookie) => appendSetCookie(reply, cookie),
    end: (body) => void reply.send(body),
  }),
  // find-my-way: a bare `*`, only as the last character.
  catchAll: (prefix) => `${prefix}/*`,
  install(instance, prefix) {
    // Express routes every method Node parses (`M-SEARCH /auth/x` is a 400 UnknownAction there);
    // Fastify only the ones it was told about, so the catch-all would miss the others.
    const app = instance as FastifyMethods;
    for (const method of METHODS) {
      if (app.supportedMethods?.includes(method) || method === 'CONNECT') continue;
      app.addHttpMethod?.(method, { hasBody: true });
    }
    installFastifyHooks(instance as FastifyHooks, prefix || '/', (req, reply, answer) =>
      fastifyEdge.write(req, reply, answer),
    );
  },
});
