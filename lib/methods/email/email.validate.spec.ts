import { describe, expect, it } from '@jest/globals';
import type { InternalProviderOf } from '../../providers/internal-provider.js';
import { deepMerge } from '../../config/resolve-config.js';
import { Email } from './email.provider.js';
import { validateEmailProvider } from './email.validate.js';

function problemsOf(provider: ReturnType<typeof Email> | Record<string, unknown>): string[] {
  const { options, ...defaults } = provider as Record<string, unknown> & { options?: Record<string, unknown> };
  const config = deepMerge(defaults, options ?? {}) as InternalProviderOf<'email'>['config'];
  const problems: string[] = [];
  validateEmailProvider({ id: config.id, name: config.name, type: config.type, config }, problems, {
    hasAdapter: true,
  });
  return problems;
}

describe('validateEmailProvider', () => {
  it('accepts server + from, or a custom sender', () => {
    expect(problemsOf(Email({ server: 'smtp://127.0.0.1:2525', from: 'App <no-reply@example.com>' }))).toEqual([]);
    expect(
      problemsOf(Email({ server: { host: '127.0.0.1', port: 2525 }, from: 'no-reply@example.com', maxAge: 600 })),
    ).toEqual([]);
    expect(problemsOf(Email({ sendVerificationRequest: async () => undefined }))).toEqual([]);
  });

  it('needs a server or a custom sender, and from with a server', () => {
    const none = problemsOf(Email());
    expect(none.some((p) => p.includes('`server`'))).toBe(true);
    expect(none.some((p) => p.includes('`from`'))).toBe(true);
    expect(problemsOf(Email({ server: 'smtp://127.0.0.1:2525' }))).toEqual([expect.stringContaining('`from`')]);
    expect(problemsOf({ id: 'mail', name: 'Mail', type: 'email', from: 'x@example.com' })).toEqual([
      expect.stringContaining('`server`'),
    ]);
  });

  it('reports every bad setting at once, each with what to do', () => {
    const problems = problemsOf(
      Email({
        server: '',
        from: 'x@example.com',
        maxAge: -5,
        consumeOnGet: 'yes' as never,
        tokenHash: 'sha1' as never,
        secret: 'short',
        normalizeIdentifier: 'lower' as never,
        rateLimit: { maxPerAddress: 0, maxPerIp: 1.5, windowSeconds: 0, perMinute: 3 } as never,
      }),
    );
    expect(problems).toEqual([
      expect.stringContaining('`server` must be an SMTP URL'),
      expect.stringContaining('maxAge must be a positive number'),
      expect.stringContaining('`normalizeIdentifier` must be a function'),
      expect.stringContaining("tokenHash must be 'hmac' or 'authjs'"),
      expect.stringContaining('consumeOnGet must be true or false'),
      expect.stringContaining('`secret` must be a string of at least 32'),
      expect.stringContaining('rateLimit.maxPerAddress must be a positive integer'),
      expect.stringContaining('rateLimit.maxPerIp must be a positive integer'),
      expect.stringContaining('rateLimit.windowSeconds must be a positive number'),
      expect.stringContaining('rateLimit.perMinute is not a setting'),
    ]);
  });

  it('accepts rateLimit: false', () => {
    expect(problemsOf(Email({ sendVerificationRequest: async () => undefined, rateLimit: false }))).toEqual([]);
  });
});
