import { describe, expect, it } from '@jest/globals';
import { type ExecutionContext, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import { Test } from '@nestjs/testing';
import { TEST_SECRET } from '../../test/setup/app.js';
import { AuthModule } from '../auth.module.js';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { encode } from '../session/jwt.js';
import { SessionReader } from '../session/session-reader.js';
import { AuthGuard, type AuthenticatedRequest } from './auth.guard.js';

/** A guard written before contexts were read by the library: its own GraphQL request. */
class LegacyGqlGuard extends AuthGuard {
  protected override getRequest(context: ExecutionContext): AuthenticatedRequest {
    return context.getArgByIndex<{ request: AuthenticatedRequest }>(2).request;
  }
}

class Resolver {
  viewer() {}
}

describe('AuthGuard subclass with its own getRequest', () => {
  it('is asked for the request in a GraphQL context, as before', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [AuthModule.forRoot({ secret: TEST_SECRET, providers: [], session: { strategy: 'jwt' } })],
    }).compile();
    const guard = new LegacyGqlGuard(
      moduleRef.get(Reflector),
      moduleRef.get(SessionReader),
      moduleRef.get<ResolvedAuthConfig>(AUTH_CONFIG),
    );
    const call = (headers: Record<string, string>) => {
      const request = { headers } as AuthenticatedRequest;
      const host = new ExecutionContextHost([undefined, {}, { request }, {}], Resolver, Resolver.prototype.viewer);
      host.setType('graphql');
      return { host, request };
    };
    const token = await encode({ token: { sub: 'u1' }, secret: TEST_SECRET, salt: 'authjs.session-token' });
    const { host, request } = call({ cookie: `authjs.session-token=${token}` });
    expect(await guard.canActivate(host)).toBe(true);
    expect(request.user).toMatchObject({ id: 'u1' });
    expect(() => guard.canActivate(call({}).host)).toThrow(UnauthorizedException);
  });
});
