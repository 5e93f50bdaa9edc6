import { connect } from 'node:net';

/** A response read off the socket: status, lower-case headers (repeated ones joined by `\n`), body. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  /** Every `Set-Cookie` line. */
  setCookies: string[];
  body: string;
  /** The whole response head, as received. */
  head: string;
}

/**
 * Sends `request` byte for byte over a new TCP connection and reads the answer until the server
 * closes it. For what fetch and supertest never send: absolute-form request targets, malformed
 * request lines, conflicting headers. Send `Connection: close`.
 */
export function rawRequest(port: number, request: string | Buffer, timeoutMs = 10_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    // Written, not ended: a half-closed socket may be dropped before a slow answer is written.
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    const timer = setTimeout(() => socket.destroy(new Error(`no complete answer within ${timeoutMs} ms`)), timeoutMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseRawResponse(Buffer.concat(chunks).toString('latin1')));
    });
  });
}

/** Parses an HTTP/1.1 response (chunked bodies are joined). */
export function parseRawResponse(text: string): RawResponse {
  const split = text.indexOf('\r\n\r\n');
  const head = split === -1 ? text : text.slice(0, split);
  let body = split === -1 ? '' : text.slice(split + 4);
  const [statusLine, ...lines] = head.split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0);
  const headers: Record<string, string> = {};
  const setCookies: string[] = [];
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'set-cookie') setCookies.push(value);
    headers[name] = name in headers ? `${headers[name]}\n${value}` : value;
  }
  if (headers['transfer-encoding']?.includes('chunked')) body = unchunk(body);
  // The body ends where its length says: a server that also answered a pipelined request wrote that
  // answer after it on the same connection (latin1 here: one character per byte).
  else if (/^\d+$/.test(headers['content-length'] ?? '')) body = body.slice(0, Number(headers['content-length']));
  return { status, headers, setCookies, body: Buffer.from(body, 'latin1').toString('utf8'), head };
}

function unchunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const eol = rest.indexOf('\r\n');
    if (eol === -1) return out;
    const size = parseInt(rest.slice(0, eol), 16);
    if (!Number.isFinite(size) || size === 0) return out;
    out += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 2 + size + 2);
  }
}

/** A request head (and body) for {@link rawRequest}: `Connection: close` and `Content-Length` added. */
export function rawHttp(requestLine: string, headers: Record<string, string> = {}, body?: string): string {
  const lines = [requestLine];
  const all: Record<string, string> = { connection: 'close', ...headers };
  if (body !== undefined) all['content-length'] = String(Buffer.byteLength(body));
  for (const [name, value] of Object.entries(all)) lines.push(`${name}: ${value}`);
  return `${lines.join('\r\n')}\r\n\r\n${body ?? ''}`;
}
