import { describe, expect, it, jest } from '@jest/globals';
import { HttpException, type Logger } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import * as errors from './auth.errors.js';

describe('error names', () => {
  it('print the class name users search for, and keep the stable type', () => {
    const error = new errors.AuthConfigurationError(['secret is missing']);
    expect(String(error)).toMatch(/^AuthConfigurationError: nestjs-auth: invalid AuthModule options/);
    expect(error.stack).toMatch(/^AuthConfigurationError: /);
    expect(error.type).toBe('Configuration');
  });

  it('name every concrete error class after itself', () => {
    const classes = Object.entries(errors).filter(
      ([, value]) => typeof value === 'function' && value.prototype instanceof errors.AuthError,
    ) as Array<[string, new (...args: never[]) => errors.AuthError]>;
    expect(classes.length).toBeGreaterThan(20);
    for (const [name, Class] of classes) {
      if (Object.getOwnPropertyDescriptor(Class, 'type') === undefined) continue; // abstract bases
      const instance = new (Class as unknown as new (...args: unknown[]) => errors.AuthError)(['x'], 'x');
      expect([name, instance.name]).toEqual([name, name]);
    }
  });
});

describe('errors thrown out of a route (Nest default exception handling, no filter)', () => {
  /** What Nest's own BaseExceptionFilter answers and logs for `error`. */
  function nestAnswer(error: unknown): { status: number; body: unknown; logged: boolean } {
    const sent: { status: number; body: unknown }[] = [];
    const filter = new BaseExceptionFilter({
      isHeadersSent: () => false,
      reply: (_res: unknown, body: unknown, status: number) => void sent.push({ status, body }),
      end: () => undefined,
    } as never);
    let logged = false;
    const spy = jest
      .spyOn((BaseExceptionFilter as unknown as { logger: Logger }).logger, 'error')
      .mockImplementation(() => void (logged = true));
    try {
      filter.catch(error, { getArgByIndex: () => ({}) } as never);
    } finally {
      spy.mockRestore();
    }
    return { ...sent[0]!, logged };
  }

  it.each([
    ['LastSignInMethod', new errors.LastSignInMethod('Add another way to sign in first.'), 409],
    ['InvalidRequest', new errors.InvalidRequest('No such session.'), 400],
    ['ReauthenticationRequired', new errors.ReauthenticationRequired(600), 403],
    ['EmailInUse', new errors.EmailInUse('Taken.'), 409],
    ['WrongPassword', new errors.WrongPassword('Wrong.'), 403],
  ])(
    'answers a client mistake with its status and { error, message }, without an ERROR log: %s',
    (type, error, status) => {
      expect(nestAnswer(error)).toEqual({
        status,
        body: { statusCode: status, error: type, message: error.message },
        logged: false,
      });
    },
  );

  it('answers RefreshTokenError by reason, with the reason in the body', () => {
    const answer = (reason: errors.RefreshTokenFailure) => nestAnswer(new errors.RefreshTokenError(reason, 'm'));
    expect(answer('InvalidGrant')).toEqual({
      status: 403,
      body: { statusCode: 403, error: 'RefreshTokenError', reason: 'InvalidGrant', message: 'm' },
      logged: false,
    });
    expect(answer('ProviderUnavailable').status).toBe(503);
    expect(answer('Conflict').status).toBe(409);
    expect(answer('NoSession').status).toBe(401);
  });

  it('keeps server faults plain errors: logged, answered 500, their message not shown; still AuthErrors', () => {
    for (const error of [
      new errors.AdapterError("The adapter's getUser failed (QueryFailedError)."),
      new errors.AuthConfigurationError(['turn on session.jwtRevocation']),
      new errors.MissingAdapterMethods(['listSessionsByUserId']),
    ]) {
      expect(error).toBeInstanceOf(errors.AuthError);
      expect(error).not.toBeInstanceOf(HttpException);
      expect(nestAnswer(error)).toEqual({
        status: 500,
        body: { statusCode: 500, message: 'Internal server error' },
        logged: true,
      });
    }
    const client = new errors.LastSignInMethod('x');
    expect(client).toBeInstanceOf(HttpException);
    expect(client).toBeInstanceOf(errors.AuthError);
    expect(client).not.toBeInstanceOf(errors.SignInError);
    expect(new errors.AdapterConflictError('user.email')).toBeInstanceOf(errors.AdapterError);
    expect(new errors.OAuthSignInError('x').kind).toBe('signIn');
  });
});
