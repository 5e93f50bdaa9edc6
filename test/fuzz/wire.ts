import { connect } from 'node:net';
import { parseRawResponse, type RawResponse } from '../setup/raw-http.js';

/** What came back on the socket: the parsed final answer and the whole stream as received. */
export interface WireResponse extends RawResponse {
  /** Everything the server wrote (latin1), informational answers and any pipelined answer included. */
  raw: string;
  /** Milliseconds from connect to close. */
  ms: number;
}

/**
 * Writes `request` byte for byte on a new connection to 127.0.0.1:`port` and reads until the
 * server closes it. Interim `1xx` answers (`Expect: 100-continue`) are skipped. Rejects when the
 * connection fails or no answer ends within `timeoutMs` (a server that hangs is a finding too).
 */
export function sendRaw(port: number, request: Buffer, timeoutMs = 10_000): Promise<WireResponse> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    // Written, not ended: a half-closed socket may be dropped before a slow answer is written.
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    const timer = setTimeout(() => socket.destroy(new Error(`no complete answer within ${timeoutMs} ms`)), timeoutMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      // The server may reset a connection it refused while our bytes were still arriving (an
      // oversized head): what it wrote before is the answer.
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') {
        resolve(finish(Buffer.concat(chunks).toString('latin1'), started));
        return;
      }
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(finish(Buffer.concat(chunks).toString('latin1'), started));
    });
  });
}

/** Parses what a server wrote (interim `1xx` answers skipped); `ms` is measured from `started`. */
export function finish(raw: string, started = performance.now()): WireResponse {
  let rest = raw;
  // Skip interim answers (100 Continue, 103 Early Hints): the final one follows.
  while (/^HTTP\/1\.[01] 1\d\d /.test(rest)) {
    const end = rest.indexOf('\r\n\r\n');
    if (end === -1) break;
    rest = rest.slice(end + 4);
  }
  return { ...parseRawResponse(rest), raw, ms: performance.now() - started };
}

/** One header line as the fuzzer sends it: any name, any value, duplicates allowed, in order. */
export type HeaderLine = [name: string, value: string];

/**
 * The bytes of a request. `Connection: close` is always the first header (so every answer ends the
 * connection); `Content-Length` is added for a body unless the headers already say how it is framed.
 */
export function buildRequest(
  requestLine: string,
  headers: HeaderLine[],
  body?: Buffer,
  encoding: 'utf8' | 'latin1' = 'utf8',
): Buffer {
  const lines = [requestLine, 'Connection: close'];
  const framed = headers.some(([n]) => /^(content-length|transfer-encoding)$/i.test(n));
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  if (body !== undefined && !framed) lines.push(`Content-Length: ${body.length}`);
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, encoding);
  return body === undefined ? head : Buffer.concat([head, body]);
}
