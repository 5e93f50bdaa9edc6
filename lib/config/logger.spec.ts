import { afterEach, describe, expect, it } from '@jest/globals';
import { Logger, type LoggerService } from '@nestjs/common';
import { createLogger } from './logger.js';

/** Nest's Logger output, captured (the default logger writes through it). */
function captureNest(): string[] {
  const lines: string[] = [];
  const sink = (...args: unknown[]) => void lines.push(args.map(String).join(' '));
  const service: LoggerService = { log: sink, error: sink, warn: sink, debug: sink, verbose: sink };
  Logger.overrideLogger(service);
  return lines;
}

describe('the default logger', () => {
  afterEach(() => Logger.overrideLogger(new Logger()));

  it('with debug, redacts every secret-looking key of the metadata, nested ones included (promise: options.debug-redaction)', () => {
    const lines = captureNest();
    const values = [
      'AT-1',
      'RT-2',
      'IDT-3',
      'CODE-4',
      'VERIFIER-5',
      'NONCE-6',
      'STATE-7',
      'COOKIE-8',
      'SECRET-9',
      'PW-10',
    ];
    createLogger(undefined, true).debug('oauth_callback', {
      provider: 'idp',
      tokens: { access_token: values[0], refresh_token: values[1], id_token: values[2] },
      code: values[3],
      checks: { code_verifier: values[4], nonce: values[5], state: values[6] },
      headers: { cookie: values[7], Authorization: 'Bearer x' },
      clientSecret: values[8],
      password: values[9],
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('oauth_callback');
    expect(lines[0]).toContain('"provider":"idp"');
    expect(lines[0]).toContain('[redacted]');
    for (const value of values) expect(lines[0]).not.toContain(value);
    expect(lines[0]).not.toContain('Bearer x');
  });

  it('without debug, writes no debug line at all', () => {
    const lines = captureNest();
    createLogger(undefined, false).debug('oauth_callback', { provider: 'idp' });
    expect(lines).toEqual([]);
  });
});

describe('a custom debug logger', () => {
  it('receives the metadata with secret-looking keys redacted, other values kept (promise: options.debug-redaction)', () => {
    const received: Array<[string, unknown]> = [];
    const logger = createLogger({ debug: (message, metadata) => void received.push([message, metadata]) }, false);
    logger.debug('oauth_callback', { provider: 'idp', tokens: { access_token: 'AT-1' }, code: 'CODE-2', at: 3 });
    logger.debug('plain');
    expect(received).toEqual([
      ['oauth_callback', { provider: 'idp', tokens: '[redacted]', code: '[redacted]', at: 3 }],
      ['plain', undefined],
    ]);
  });
});
