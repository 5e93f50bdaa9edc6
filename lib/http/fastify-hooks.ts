import { Readable, Transform } from 'node:stream';
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
    const limited = payload.pipe(
      new Transform({
        transform(chunk: Buffer, _encoding, done) {
          seen += chunk.length;
          done(seen > AUTH_BODY_LIMIT ? new PayloadTooLargeException(TOO_LARGE) : null, chunk);
        },
      }),
    );
    if (!JSON_TYPE.test(String(request.headers['content-type'] ?? ''))) return limited;
    // JSON is read here (at most the limit) and parsed once, so that a malformed body is the module's
    // 400 InvalidRequest rather than Fastify's parser error, whose body names its internals; a body
    // that parses goes on to Fastify's parser unchanged.
    const chunks: Buffer[] = [];
    for await (const chunk of limited) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    if (body.length > 0 && !parsesAsJson(body)) {
      refuse(request, reply, { status: 400, json: MALFORMED });
      return Readable.from([]);
    }
    return Readable.from([body]);
  });
}

const JSON_TYPE = /^\s*application\/json\s*(;|$)/i;

/** What a JSON body that does not parse answers (as on Express, through the module's writer). */
const MALFORMED = { error: 'InvalidRequest', message: 'The request body is malformed.' };

/** Whether `body` is UTF-8 JSON Fastify's parser accepts (it refuses `__proto__` keys too). */
function parsesAsJson(body: Buffer): boolean {
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(body);
    JSON.parse(text);
    return !/"__proto__"\s*:/.test(text) && !/"constructor"\s*:\s*\{[^}]*"prototype"\s*:/.test(text);
  } catch {
    return false;
  }
}
