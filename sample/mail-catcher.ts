import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One captured message. */
export interface CapturedMail {
  id: number;
  receivedAt: Date;
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  /** Every http(s) link in the message (the magic link among them). */
  links: string[];
}

export interface MailCatcher {
  port: number;
  /** Newest last. */
  readonly messages: CapturedMail[];
  close(): Promise<void>;
}

/** Keeps this many messages; older ones are dropped. */
const MAX_MESSAGES = 100;
/** Refuses bigger messages: a sign-in mail is a few kilobytes. */
const MAX_MESSAGE_BYTES = 1024 * 1024;

/**
 * An SMTP server on 127.0.0.1 that accepts every message and keeps it in memory, so the sample's
 * magic links can be read at the development inbox page instead of a real mailbox.
 */
export async function startMailCatcher(options: { port: number }): Promise<MailCatcher> {
  const messages: CapturedMail[] = [];
  let nextId = 1;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    size: MAX_MESSAGE_BYTES,
    banner: 'nestjs-auth sample mail catcher',
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if ((stream as unknown as { sizeExceeded?: boolean }).sizeExceeded) {
          callback(Object.assign(new Error('Message too big'), { responseCode: 552 }));
          return;
        }
        const parsed = parseMessage(Buffer.concat(chunks).toString('utf8'));
        messages.push({
          id: nextId++,
          receivedAt: new Date(),
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          subject: parsed.subject,
          text: parsed.text,
          html: parsed.html,
          links: [...new Set([...parsed.text.matchAll(/https?:\/\/[^\s<>"')\]]+/g)].map((m) => m[0]))],
        });
        if (messages.length > MAX_MESSAGES) messages.shift();
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const port = (server as unknown as { server: { address(): AddressInfo } }).server.address().port;
  return { port, messages, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

interface Part {
  headers: Map<string, string>;
  body: string;
}

/** Enough MIME for the messages nodemailer sends: multipart, quoted-printable, base64, encoded words. */
export function parseMessage(raw: string): { subject: string; text: string; html: string } {
  const root = splitPart(raw);
  const leaves: Part[] = [];
  collect(root, leaves, 0);
  const pick = (type: string) =>
    leaves
      .filter((p) => contentType(p).type === type)
      .map(decodeBody)
      .join('\n');
  return { subject: decodeWords(root.headers.get('subject') ?? ''), text: pick('text/plain'), html: pick('text/html') };
}

function splitPart(raw: string): Part {
  const normalized = raw.replace(/\r\n/g, '\n');
  const end = normalized.indexOf('\n\n');
  const head = end === -1 ? normalized : normalized.slice(0, end);
  const body = end === -1 ? '' : normalized.slice(end + 2);
  const headers = new Map<string, string>();
  for (const line of head.replace(/\n[ \t]+/g, ' ').split('\n')) {
    const i = line.indexOf(':');
    if (i > 0) headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
  }
  return { headers, body };
}

function contentType(part: Part): { type: string; boundary?: string; charset?: string } {
  const value = part.headers.get('content-type') ?? 'text/plain';
  const type = value.split(';')[0]!.trim().toLowerCase();
  const boundary = /boundary="?([^";]+)"?/i.exec(value)?.[1];
  const charset = /charset="?([^";]+)"?/i.exec(value)?.[1];
  return { type, boundary, charset };
}

function collect(part: Part, out: Part[], depth: number): void {
  const { type, boundary } = contentType(part);
  if (type.startsWith('multipart/') && boundary && depth < 5) {
    const pieces = part.body.split(`--${boundary}`).slice(1);
    for (const piece of pieces) {
      if (piece.startsWith('--')) break;
      collect(splitPart(piece.replace(/^\n/, '')), out, depth + 1);
    }
  } else {
    out.push(part);
  }
}

function decodeBody(part: Part): string {
  const encoding = (part.headers.get('content-transfer-encoding') ?? '').toLowerCase();
  if (encoding === 'base64') return Buffer.from(part.body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(part.body);
  return part.body;
}

function decodeQuotedPrintable(body: string): string {
  const joined = body.replace(/=\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < joined.length; i++) {
    const c = joined[i]!;
    if (c === '=' && /^[0-9A-F]{2}$/i.test(joined.slice(i + 1, i + 3))) {
      bytes.push(parseInt(joined.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(c, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** RFC 2047 encoded words (`=?UTF-8?Q?...?=`, `=?UTF-8?B?...?=`). */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QB])\?([^?]*)\?=/gi, (_, _charset: string, kind: string, text: string) =>
      kind.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : decodeQuotedPrintable(text.replace(/_/g, ' ')),
    );
}
