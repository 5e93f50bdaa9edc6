import { describe, expect, it } from '@jest/globals';
import {
  AdapterError,
  EmailDeliveryError,
  EmailInUse,
  EmailSignInError,
  InvalidProvider,
  LastSignInMethod,
  LogoutTokenError,
  MissingAdapterMethods,
  MissingCSRF,
  OAuthProfileParseError,
  OAuthSignInError,
  ReauthenticationRequired,
  Verification,
  WrongPassword,
} from '../errors/auth.errors.js';
import { clientText, isClientMistake, RequestErrorLog } from './error-log.js';

function setup() {
  const lines = { error: [] as string[], warn: [] as string[] };
  let now = 1_000_000;
  const log = new RequestErrorLog(
    {
      error: (e: Error) => lines.error.push(`${e.name}: ${e.message}`),
      warn: (l: string) => lines.warn.push(l),
      debug: () => undefined,
    },
    () => now,
  );
  return { lines, log, advance: (ms: number) => (now += ms) };
}

describe('RequestErrorLog', () => {
  it('logs client mistakes as warnings and server faults as errors', () => {
    const { lines, log } = setup();
    log.report(new MissingCSRF('no token'));
    log.report(new AdapterError('db down'));
    log.report(new TypeError('bug'));
    expect(lines.warn).toEqual(['[MissingCSRF] no token']);
    expect(lines.error).toEqual(['AdapterError: db down', 'TypeError: bug']);
  });
  it('logs at most 10 lines of a kind a minute, then says how many it left out', () => {
    const { lines, log, advance } = setup();
    for (let i = 0; i < 500; i++) log.report(new Verification(`bad link ${i}`));
    expect(lines.warn).toHaveLength(10);
    advance(60_000);
    log.report(new Verification('later'));
    expect(lines.warn.slice(10)).toEqual([
      '[Verification] 490 similar messages left out in the last minute',
      '[Verification] later',
    ]);
  });
  it('budgets kinds apart', () => {
    const { lines, log } = setup();
    for (let i = 0; i < 20; i++) log.report(new Verification('x'));
    log.report(new InvalidProvider('y'));
    expect(lines.warn.filter((l) => l.startsWith('[InvalidProvider]'))).toHaveLength(1);
  });
  it('never throws, even when the logger does', () => {
    const log = new RequestErrorLog({
      error: () => {
        throw new Error('x');
      },
      warn: () => {
        throw new Error('x');
      },
      debug: () => undefined,
    });
    expect(() => log.report(new AdapterError('x'))).not.toThrow();
    expect(() => log.report(undefined)).not.toThrow();
  });
  it('classifies', () => {
    expect(isClientMistake(new MissingCSRF())).toBe(true);
    expect(isClientMistake(new AdapterError())).toBe(false);
    expect(isClientMistake(new Error('x'))).toBe(false);
  });
  it('logs the client-caused types shown to the client as warnings, its server faults as errors', () => {
    const { lines, log } = setup();
    const mistakes = [
      new LogoutTokenError('Signature', 'forged'),
      new ReauthenticationRequired(600),
      new WrongPassword('wrong'),
      new LastSignInMethod('last'),
      new EmailInUse('taken'),
    ];
    for (const error of mistakes) log.report(error);
    expect(lines.error).toEqual([]);
    expect(lines.warn.map((l) => /^\[(\w+)\]/.exec(l)?.[1])).toEqual([
      'LogoutTokenError',
      'ReauthenticationRequired',
      'WrongPassword',
      'LastSignInMethod',
      'EmailInUse',
    ]);
    for (const error of [
      new MissingAdapterMethods(['getUser']),
      new OAuthSignInError('discovery failed'),
      new OAuthProfileParseError('profile() threw'),
    ])
      expect(isClientMistake(error)).toBe(false);
  });
});

describe('clientText', () => {
  it('quotes a short printable prefix', () => {
    expect(clientText('github')).toBe('"github"');
    expect(clientText('a'.repeat(40))).toBe(`"${'a'.repeat(32)}…"`);
    expect(clientText('<b>\u202e\r\n\u0000x', 8)).toBe('"<b>????x"');
  });
});

describe('an email that could not be sent (EmailDeliveryError, type EmailSignin)', () => {
  const delivery = (cause: unknown) => new EmailDeliveryError('The sign-in email could not be sent.', { cause });

  it('is a server fault in the log: the mail server down, refusing the login, or a custom sender failing', () => {
    for (const cause of [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:2525'), { code: 'ESOCKET', command: 'CONN' }),
      Object.assign(new Error('Invalid login'), { code: 'EAUTH', responseCode: 535, command: 'AUTH PLAIN' }),
      new Error('mail API answered 503'),
    ])
      expect(isClientMistake(delivery(cause))).toBe(false);
  });

  it("is the user's mistake when the mail server refused the recipient (a mistyped address)", () => {
    expect(isClientMistake(delivery(Object.assign(new Error('No recipients defined'), { code: 'EENVELOPE' })))).toBe(
      true,
    );
    const rcpt = Object.assign(new Error('550 5.1.1 user unknown'), { responseCode: 550, command: 'RCPT TO' });
    expect(isClientMistake(delivery(rcpt))).toBe(true);
    // An address the form refused is too.
    expect(isClientMistake(new EmailSignInError('Enter an email address.'))).toBe(true);
  });

  it('is logged as an error with its type, once the log sees it', () => {
    const { lines, log } = setup();
    log.report(delivery(new Error('connect ETIMEDOUT')));
    expect(lines.error).toEqual(['EmailDeliveryError: The sign-in email could not be sent.']);
    expect(lines.warn).toEqual([]);
  });
});
