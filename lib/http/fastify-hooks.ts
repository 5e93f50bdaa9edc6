import { Transform, type Readable } from 'node:stream';
import { PayloadTooLargeException } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { isUnderPrefix } from './response-headers.js';
import type { AuthResponse } from '../types/http.types.js';

/** The body limit of the module's routes: Express's body parsers' default (100 KiB), on Fastify too. */
export const AUTH_BODY_LIMIT = 100 * 1024;

/** The charsets Express's body parsers read (anything else is 415). */
const UTF = /^utf-?8$/i;

/** What the hooks use of a Fastify request (typed here: Express apps need not install Fastify). */
interface HookRequest {
  url: string;
  headers: IncomingHttpHeaders;
}

/** What the hooks use of Fastify's instance. */
export interface FastifyHooks {
  addHook(
    name: 'preParsing',
    hook: (request: HookRequest, reply: unknown, payload: Readable) => Promise<Readable | undefined>,
  ): unknown;
}

/** What a body over the limit answers (also through Nest's exception layer, for a chunked body). */
const TOO_LARGE = { error: 'InvalidRequest', message: 'The request body is too large.' };

/**
 * Refuses, on Fastify, the bodies Express's body parsers refuse under the module's routes: larger than
 * {@link AUTH_BODY_LIMIT} (413, by `Content-Length` before reading, or while reading a chunked body),
 * and JSON or urlencoded bodies in a charset other than UTF-8 (415). Answers go through `refuse`, the
 * module's writer, so they carry the module's headers and a stable `error` type.
 */
export function installFastifyHooks(
  instance: FastifyHooks,
  prefix: string,
  refuse: (request: unknown, reply: unknown, answer: AuthResponse) => void,
): void {
  instance.addHook('preParsing', async (request, reply, payload) => {
    if (!isUnderPrefix(request.url, prefix)) return payload;
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(String(request.headers['content-type'] ?? ''))?.[1];
    if (charset !== undefined && !UTF.test(charset)) {
      refuse(request, reply, {
        status: 415,
        json: { error: 'InvalidRequest', message: 'The request body must be UTF-8.' },
      });
      return payload;
    }
    const length = Number(request.headers['content-length']);
    if (length > AUTH_BODY_LIMIT) {
      refuse(request, reply, { status: 413, json: TOO_LARGE });
      return payload;
    }
    let seen = 0;
    return payload.pipe(
      new Transform({
        transform(chunk: Buffer, _encoding, done) {
          seen += chunk.length;
          done(seen > AUTH_BODY_LIMIT ? new PayloadTooLargeException(TOO_LARGE) : null, chunk);
        },
      }),
    );
  });
}
