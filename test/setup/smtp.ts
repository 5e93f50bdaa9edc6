import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';

/** One message the test SMTP server accepted. */
export interface CapturedMail {
  /** SMTP envelope: `MAIL FROM` and every accepted `RCPT TO` (where the mail really goes). */
  envelope: { from: string; to: string[] };
  /** Header fields, lower-case names; repeated fields joined with `, `; folded lines unfolded. */
  headers: Record<string, string>;
  /** `Subject`, with RFC 2047 encoded words decoded. */
  subject: string;
  /** The decoded `text/plain` part ('' when none). */
  text: string;
  /** The decoded `text/html` part ('' when none). */
  html: string;
  /** The message as received. */
  raw: string;
  /** When the server accepted the message. */
  receivedAt: Date;
}

/** Options of {@link startSmtpServer}. */
export interface SmtpServerOptions {
  /**
   * Recipients refused at `RCPT TO` (550): a list of addresses (case-insensitive) or a predicate.
   * Change it later with `server.refuse(...)`. @default none
   */
  refuseRecipients?: string[] | ((address: string) => boolean);
  /**
   * Require `AUTH PLAIN`/`LOGIN` with these credentials (over plain TCP: a test server only).
   * @default no authentication
   */
  credentials?: { user: string; pass: string };
}

/** A running test SMTP server. */
export interface TestSmtpServer {
  /** The port on 127.0.0.1. */
  port: number;
  /** Connection URL for nodemailer, e.g. `smtp://127.0.0.1:2525` (with credentials when required). */
  url: string;
  /** Nodemailer SMTP options for the same server (plain TCP, no STARTTLS). */
  options: { host: string; port: number; secure: false; ignoreTLS: true; auth?: { user: string; pass: string } };
  /** Every accepted message, oldest first. */
  readonly messages: CapturedMail[];
  /** Every `RCPT TO` address the server was asked for, accepted or refused (lower-case). */
  readonly attemptedRecipients: string[];
  /** Messages whose envelope includes `address` (case-insensitive). */
  messagesTo(address: string): CapturedMail[];
  /**
   * Resolves with the first message (already received or arriving within `timeoutMs`) that
   * matches `predicate`; rejects on timeout.
   */
  waitForMessage(predicate?: (mail: CapturedMail) => boolean, timeoutMs?: number): Promise<CapturedMail>;
  /** Replaces the refused-recipient rule (`undefined`: accept everyone). */
  refuse(rule: SmtpServerOptions['refuseRecipients']): void;
  /** Forgets captured messages and attempted recipients. */
  clear(): void;
  close(): Promise<void>;
}

/**
 * Starts a real SMTP server (`smtp-server`) on 127.0.0.1 at a random port that accepts and keeps
 * every message, for tests and the sample app. No TLS (STARTTLS is not offered), optional AUTH,
 * optional refusal of chosen recipients. Messages are parsed (headers, multipart, quoted-printable
 * and base64 bodies) so tests can read the text and HTML parts.
 *
 * @example
 * ```ts
 * const smtp = await startSmtpServer();
 * // Email({ server: smtp.url, from: 'App <no-reply@example.test>' })
 * const mail = await smtp.waitForMessage((m) => m.envelope.to.includes('alice@example.test'));
 * const link = extractLink(mail, '/callback/email');
 * await smtp.close();
 * ```
 */
export async function startSmtpServer(options: SmtpServerOptions = {}): Promise<TestSmtpServer> {
  const messages: CapturedMail[] = [];
  const attemptedRecipients: string[] = [];
  const waiters = new Set<{ predicate: (m: CapturedMail) => boolean; resolve: (m: CapturedMail) => void }>();
  let refuseRule = options.refuseRecipients;
  const creds = options.credentials;

  const refused = (address: string): boolean => {
    if (!refuseRule) return false;
    if (typeof refuseRule === 'function') return refuseRule(address);
    return refuseRule.some((a) => a.toLowerCase() === address.toLowerCase());
  };

  const server = new SMTPServer({
    secure: false,
    disabledCommands: creds ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !creds,
    allowInsecureAuth: true,
    logger: false,
    banner: 'nestjs-auth test SMTP server',
    size: 10 * 1024 * 1024,
    onAuth(auth, _session, callback) {
      if (creds && auth.username === creds.user && auth.password === creds.pass)
        return callback(null, { user: auth.username });
      return callback(new Error('Invalid username or password'));
    },
    onRcptTo(address, _session, callback) {
      attemptedRecipients.push(address.address.toLowerCase());
      if (refused(address.address)) {
        const error = new Error('Recipient address rejected') as Error & { responseCode?: number };
        error.responseCode = 550;
        return callback(error);
      }
      return callback();
    },
    onData(stream, session: SMTPServerSession, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', (error: Error) => callback(error));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const mailFrom = session.envelope.mailFrom;
        const mail: CapturedMail = {
          envelope: {
            from: mailFrom ? mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
          },
          ...parseMessage(raw),
          raw,
          receivedAt: new Date(),
        };
        messages.push(mail);
        for (const waiter of [...waiters]) {
          if (waiter.predicate(mail)) {
            waiters.delete(waiter);
            waiter.resolve(mail);
          }
        }
        callback(null, 'Message accepted');
      });
    },
  });

  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    const net = server.listen(0, '127.0.0.1', () => resolve((net.address() as AddressInfo).port));
  });
  // An SMTP client that hangs up abruptly must not fail the test run.
  server.on('error', () => undefined);

  const auth = creds ? `${encodeURIComponent(creds.user)}:${encodeURIComponent(creds.pass)}@` : '';
  return {
    port,
    url: `smtp://${auth}127.0.0.1:${port}`,
    options: {
      host: '127.0.0.1',
      port,
      secure: false,
      ignoreTLS: true,
      ...(creds ? { auth: { user: creds.user, pass: creds.pass } } : {}),
    },
    messages,
    attemptedRecipients,
    messagesTo: (address) =>
      messages.filter((m) => m.envelope.to.some((to) => to.toLowerCase() === address.toLowerCase())),
    waitForMessage(predicate = () => true, timeoutMs = 5000) {
      const found = messages.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise<CapturedMail>((resolve, reject) => {
        const waiter = {
          predicate,
          resolve: (m: CapturedMail) => {
            clearTimeout(timer);
            resolve(m);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`No matching mail within ${timeoutMs} ms (${messages.length} received).`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    refuse(rule) {
      refuseRule = rule;
    },
    clear() {
      messages.length = 0;
      attemptedRecipients.length = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The first `http(s)` link in the mail's text part (else its HTML part, entity-decoded) whose URL
 * contains `contains`. Throws when there is none.
 */
export function extractLink(mail: CapturedMail, contains = ''): URL {
  const fromText = mail.text.match(/https?:\/\/[^\s<>"']+/g) ?? [];
  const fromHtml = [...mail.html.matchAll(/href="([^"]+)"/g)].map((m) => decodeEntities(m[1]!));
  const link = [...fromText, ...fromHtml].find((u) => u.includes(contains));
  if (!link) throw new Error(`No link containing ${JSON.stringify(contains)} in the mail.`);
  return new URL(link);
}

// ---- a small MIME parser: enough for what nodemailer produces ---------------------------------

interface ParsedPart {
  headers: Record<string, string>;
  body: string;
}

/** Headers, subject and the text/HTML parts of a raw RFC 5322 message. */
export function parseMessage(raw: string): Pick<CapturedMail, 'headers' | 'subject' | 'text' | 'html'> {
  const root = splitPart(raw);
  let text = '';
  let html = '';
  const visit = (part: ParsedPart, depth: number): void => {
    const type = contentType(part.headers);
    if (type.mime.startsWith('multipart/') && type.params.boundary && depth < 8) {
      for (const child of splitMultipart(part.body, type.params.boundary)) visit(splitPart(child), depth + 1);
      return;
    }
    const decoded = decodeBody(part.body, part.headers['content-transfer-encoding'], type.params.charset);
    if (type.mime === 'text/plain' && !text) text = decoded;
    else if (type.mime === 'text/html' && !html) html = decoded;
  };
  visit(root, 0);
  return { headers: root.headers, subject: decodeWords(root.headers.subject ?? ''), text, html };
}

function splitPart(raw: string): ParsedPart {
  const normalised = raw.replace(/\r\n/g, '\n');
  const end = normalised.indexOf('\n\n');
  const head = end === -1 ? normalised : normalised.slice(0, end);
  const body = end === -1 ? '' : normalised.slice(end + 2);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\n[ \t]+/g, ' ').split('\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] ? `${headers[name]}, ${value}` : value;
  }
  return { headers, body };
}

function contentType(headers: Record<string, string>): { mime: string; params: Record<string, string> } {
  const [mime = 'text/plain', ...rest] = (headers['content-type'] ?? 'text/plain').split(';');
  const params: Record<string, string> = {};
  for (const p of rest) {
    const eq = p.indexOf('=');
    if (eq === -1) continue;
    params[p.slice(0, eq).trim().toLowerCase()] = p
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
  }
  return { mime: mime.trim().toLowerCase(), params };
}

function splitMultipart(body: string, boundary: string): string[] {
  const parts: string[] = [];
  const delimiter = `--${boundary}`;
  const sections = body.split(new RegExp(`^${escapeRegExp(delimiter)}(?:--)?[ \\t]*$`, 'm'));
  // sections[0] is the preamble, the last one the epilogue.
  for (let i = 1; i < sections.length - 1; i++) parts.push(sections[i]!.replace(/^\n/, '').replace(/\n$/, ''));
  return parts;
}

function decodeBody(body: string, encoding = '7bit', charset = 'utf-8'): string {
  const enc = encoding.trim().toLowerCase();
  let bytes: Buffer;
  if (enc === 'base64') bytes = Buffer.from(body.replace(/\s+/g, ''), 'base64');
  else if (enc === 'quoted-printable') bytes = decodeQuotedPrintable(body);
  else bytes = Buffer.from(body, 'utf8');
  return new TextDecoder(charset.toLowerCase() === 'us-ascii' ? 'utf-8' : charset).decode(bytes);
}

function decodeQuotedPrintable(body: string): Buffer {
  const soft = body.replace(/=\n/g, '');
  const out: number[] = [];
  for (let i = 0; i < soft.length; i++) {
    const c = soft[i]!;
    if (c === '=' && /^[0-9A-Fa-f]{2}$/.test(soft.slice(i + 1, i + 3))) {
      out.push(parseInt(soft.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      out.push(...Buffer.from(c, 'utf8'));
    }
  }
  return Buffer.from(out);
}

/** RFC 2047 encoded words (`=?utf-8?Q?...?=`, `=?utf-8?B?...?=`). */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_m, charset: string, kind: string, data: string) => {
      const bytes =
        kind.toUpperCase() === 'B' ? Buffer.from(data, 'base64') : decodeQuotedPrintable(data.replace(/_/g, ' '));
      return new TextDecoder(charset).decode(bytes);
    });
}

function decodeEntities(value: string): string {
  return value
    .replace(/&#(\d+);/g, (_m, n: string) => String.fromCodePoint(Number(n)))
    .replace(/&#x([0-9a-f]+);/gi, (_m, n: string) => String.fromCodePoint(parseInt(n, 16)))
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
