import type { InternalProviderOf } from '../../providers/internal-provider.js';
import { sendVerificationRequestWithNodemailer } from './email.provider.js';
import type { EmailConfig } from './email.types.js';

/**
 * Bootstrap checks of an email provider: something to send with (`server`, or a custom
 * `sendVerificationRequest`), `from` when sending through `server`, a positive `maxAge`, the
 * function-typed options, and the rate-limit settings. (The adapter methods email sign-in needs
 * are checked by resolve-config.) Pushes one message per problem, each saying what to do.
 */
export function validateEmailProvider(
  provider: InternalProviderOf<'email'>,
  problems: string[],
  _ctx: { hasAdapter: boolean },
): void {
  const c: Partial<EmailConfig> = provider.config;
  const where = `providers ${JSON.stringify(provider.id)} (email)`;

  const send = c.sendVerificationRequest;
  const custom = typeof send === 'function' && send !== sendVerificationRequestWithNodemailer;
  if (send !== undefined && typeof send !== 'function') {
    problems.push(
      `${where}: \`sendVerificationRequest\` must be a function ({ identifier, url, ... }) => Promise<void>.`,
    );
  }
  const server = c.server;
  const hasServer =
    (typeof server === 'string' && server.trim() !== '') ||
    (server !== null && typeof server === 'object' && !Array.isArray(server));
  if (server !== undefined && !hasServer) {
    problems.push(
      `${where}: \`server\` must be an SMTP URL (e.g. 'smtp://user:pass@smtp.example.com:587') or nodemailer SMTP options.`,
    );
  }
  if (!custom) {
    if (!hasServer && server === undefined) {
      problems.push(
        `${where}: set \`server\` (an SMTP URL or nodemailer SMTP options) to send sign-in emails, or pass your own \`sendVerificationRequest\`.`,
      );
    }
    if (typeof c.from !== 'string' || c.from.trim() === '') {
      problems.push(
        `${where}: set \`from\` (e.g. 'My App <no-reply@example.com>'): it is the sender of the sign-in emails.`,
      );
    }
  } else if (c.from !== undefined && typeof c.from !== 'string') {
    problems.push(`${where}: \`from\` must be a string.`);
  }

  const maxAge = c.maxAge;
  if (maxAge !== undefined && (typeof maxAge !== 'number' || !Number.isFinite(maxAge) || maxAge <= 0)) {
    problems.push(
      `${where}: maxAge must be a positive number of seconds (the link's lifetime), not ${JSON.stringify(maxAge)}.`,
    );
  }
  for (const key of ['normalizeIdentifier', 'generateVerificationToken'] as const) {
    if (c[key] !== undefined && typeof c[key] !== 'function') problems.push(`${where}: \`${key}\` must be a function.`);
  }
  if (c.tokenHash !== undefined && c.tokenHash !== 'hmac' && c.tokenHash !== 'authjs') {
    problems.push(`${where}: tokenHash must be 'hmac' or 'authjs'.`);
  }
  if (c.verifyOnStartup !== undefined && typeof c.verifyOnStartup !== 'boolean') {
    problems.push(`${where}: verifyOnStartup must be true or false.`);
  }
  if (c.consumeOnGet !== undefined && typeof c.consumeOnGet !== 'boolean') {
    problems.push(`${where}: consumeOnGet must be true or false.`);
  }
  if (c.secret !== undefined && (typeof c.secret !== 'string' || c.secret.length < 32)) {
    problems.push(
      `${where}: \`secret\` must be a string of at least 32 characters (or leave it out to use the module's secret).`,
    );
  }

  const limit = c.rateLimit;
  if (limit !== undefined && limit !== false) {
    if (limit === null || typeof limit !== 'object' || Array.isArray(limit)) {
      problems.push(`${where}: \`rateLimit\` must be an object { maxPerAddress, maxPerIp, windowSeconds } or false.`);
    } else {
      for (const key of ['maxPerAddress', 'maxPerIp'] as const) {
        const v = limit[key];
        if (v !== undefined && (!Number.isInteger(v) || (v as number) < 1)) {
          problems.push(`${where}: rateLimit.${key} must be a positive integer, not ${JSON.stringify(v)}.`);
        }
      }
      const w = limit.windowSeconds;
      if (w !== undefined && (typeof w !== 'number' || !Number.isFinite(w) || w <= 0)) {
        problems.push(
          `${where}: rateLimit.windowSeconds must be a positive number of seconds, not ${JSON.stringify(w)}.`,
        );
      }
      const known = new Set(['maxPerAddress', 'maxPerIp', 'windowSeconds']);
      for (const key of Object.keys(limit)) {
        if (!known.has(key))
          problems.push(`${where}: rateLimit.${key} is not a setting; use maxPerAddress, maxPerIp or windowSeconds.`);
      }
    }
  }
}
