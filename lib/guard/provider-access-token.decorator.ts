import {
  ConflictException,
  createParamDecorator,
  ForbiddenException,
  HttpException,
  Inject,
  Injectable,
  ServiceUnavailableException,
  UnauthorizedException,
  type ExecutionContext,
  type PipeTransform,
} from '@nestjs/common';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { RefreshTokenError } from '../errors/auth.errors.js';
import type { HttpRequestLike } from '../http/auth-request.factory.js';
import type { AuthenticatedRequest } from './auth.guard.js';
import { AuthService } from './auth.service.js';

/** What the decorator hands its pipe: the signed-in user's id (if any), the provider, the request and response. */
interface AccessTokenRequest {
  userId: string | undefined;
  provider: string;
  request: HttpRequestLike | undefined;
  response: object | undefined;
}

/**
 * Turns the signed-in user and the provider into the provider's access token (refreshed when
 * needed) through `AuthService.getAccessToken`. A pipe, so Nest injects `AuthService` and awaits it.
 */
@Injectable()
export class ProviderAccessTokenPipe implements PipeTransform<AccessTokenRequest, Promise<string>> {
  /** `session.tokens`: the tokens are in the request's session, and a refresh rewrites its cookie. */
  private readonly inSession: boolean;

  /**
   * Nest injects this pipe; an app does not construct it.
   *
   * @internal
   */
  constructor(
    private readonly auth: AuthService,
    @Inject(AUTH_CONFIG) config: ResolvedAuthConfig,
  ) {
    this.inSession = config.session.strategy === 'jwt' && config.session.tokens;
  }

  async transform(value: AccessTokenRequest): Promise<string> {
    // A route without AuthGuard (or a @Public() one) has no user: nothing to look up.
    if (!value.userId) throw new UnauthorizedException();
    try {
      if (this.inSession && value.request)
        return await this.auth.getAccessToken(value.request, value.provider, value.response);
      return await this.auth.getAccessToken(value.userId, value.provider);
    } catch (error) {
      if (error instanceof RefreshTokenError) throw refreshTokenHttpError(error);
      throw error;
    }
  }
}

/**
 * The HTTP answer for a route whose token could not be had: 403 when the user must (re)connect the
 * provider, 503 when the provider is unreachable, 409 when another instance's refresh overtook;
 * the body `{ error: 'RefreshTokenError', reason, message }` (never a token).
 */
export function refreshTokenHttpError(error: RefreshTokenError): HttpException {
  const body = { error: error.type, reason: error.reason, message: error.message };
  switch (error.reason) {
    case 'ProviderUnavailable':
      return new ServiceUnavailableException(body);
    case 'Conflict':
      return new ConflictException(body);
    case 'NoSession':
      return new UnauthorizedException(body);
    default:
      return new ForbiddenException(body);
  }
}

const accessTokenRequest = createParamDecorator((provider: string, context: ExecutionContext): AccessTokenRequest => {
  const request = context.getArgByIndex<AuthenticatedRequest>(0);
  const http = context.getType() === 'http';
  return {
    userId: request?.user?.id as string | undefined,
    provider,
    request: http ? request : undefined,
    // Express's response or Fastify's reply: where a refresh's session cookie goes (`session.tokens`).
    response: http ? context.getArgByIndex<object>(1) : undefined,
  };
});

/**
 * Injects a valid access token of the signed-in user's account at `provider` (an HTTP route behind
 * `AuthGuard`), refreshed first when it is expired or about to expire. Fails like
 * `AuthService.getAccessToken`, answered as HTTP: 403 `{ error: 'RefreshTokenError', reason }` when the user
 * must sign in with the provider (again), 503 when it is unreachable, 409 on a lost refresh race.
 *
 * @example
 * @Get('repos') @UseGuards(AuthGuard)
 * repos(@ProviderAccessToken('github') token: string) { ... }
 */
export const ProviderAccessToken = (provider: string): ParameterDecorator =>
  accessTokenRequest(provider, ProviderAccessTokenPipe);
