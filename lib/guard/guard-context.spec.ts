import { describe, expect, it } from '@jest/globals';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import { UnsupportedContextError } from '../errors/auth.errors.js';
import { contextHolder, contextSource } from './guard-context.js';

function context(type: string, args: unknown[]) {
  const host = new ExecutionContextHost(args);
  host.setType(type);
  return host;
}

describe('contextSource', () => {
  it('says what a GraphQL context lacks when it has no `req`', () => {
    for (const ctx of [undefined, {}, { req: 'text' }, { req: {} }])
      expect(() => contextSource(context('graphql', [undefined, {}, ctx, {}]))).toThrow(
        /no request in the GraphQL context: give it as `req`/,
      );
  });

  it('reads sockets and payloads of any shape without throwing', () => {
    for (const first of [undefined, null, 42, 'text', [], {}, { handshake: 'x', request: 7 }]) {
      expect(contextSource(context('ws', [first])).request.headers).toEqual({});
      expect(contextSource(context('rpc', [first])).authorization).toBeUndefined();
    }
    const socket = { handshake: { auth: { token: 't' } }, request: { headers: { cookie: 'a=b' } } };
    expect(contextSource(context('ws', [socket]))).toMatchObject({
      authorization: 'Bearer t',
      request: { headers: { cookie: 'a=b' } },
    });
    expect(contextSource(context('rpc', [{ authorization: 'Bearer x' }])).authorization).toBe('Bearer x');
  });

  it('names an unknown context type', () => {
    expect(() => contextSource(context('kafka', []))).toThrow(UnsupportedContextError);
    expect(contextHolder(context('kafka', [undefined]))).toBeUndefined();
  });
});
