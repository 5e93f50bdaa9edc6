import { describe, expect, it } from '@jest/globals';
import { graphqlContext } from './graphql-ws.js';

describe('graphqlContext', () => {
  it('gives { req } from Express ({ req, res }) and from Fastify ((request, reply))', () => {
    const req = { headers: { cookie: 'a=b' } };
    const res = {};
    expect(graphqlContext({ req, res })).toEqual({ req, res });
    expect(graphqlContext({ req, res }).req).toBe(req);
    const reply = {};
    const fastify = graphqlContext(req, reply);
    expect(fastify.req).toBe(req);
    expect(fastify.res).toBe(reply);
  });

  it('gives a subscription whose connection onConnect never let in no credentials (the guard refuses it)', () => {
    const forged = {
      connectionInitReceived: true,
      extra: { request: { headers: { cookie: 'authjs.session-token=x' } } },
      connectionParams: { authorization: 'Bearer x' },
    };
    expect(graphqlContext(forged)).toEqual({ req: { headers: {}, socket: undefined } });
  });

  it('reads nothing from inputs of any shape without throwing', () => {
    for (const arg of [undefined, null, 42, 'text', [], { req: 'text' }, { connectionInitReceived: 1, extra: 7 }])
      expect(graphqlContext(arg).req).toEqual(expect.any(Object));
  });
});
