import {
  ConflictException,
  createParamDecorator,
  ForbiddenException,
  HttpException,
  Injectable,
  ServiceUnavailableException,
  UnauthorizedException,
  type ExecutionContext,
  type PipeTransform,
} from '@nestjs/common';
import { RefreshTokenError } from '../errors/auth.errors.js';
import type { AuthenticatedRequest } from './auth.guard.js';
import { AuthService } from './auth.service.js';

/** What the decorator hands its pipe: the signed-in user's id (if any) and the provider. */
interface AccessTokenRequest {
  userId: string | undefined;
  provider: string;
}

/**
 * Turns the signed-in user and the provider into the provider's access token (refreshed when
 * needed) through `AuthService.getAccessToken`. A pipe, so Nest injects `AuthService` and awaits it.
 */
@Injectable()
export class ProviderAccessTokenPipe implements PipeTransform<AccessTokenRequest, Promise<string>> {
  constructor(private readonly auth: AuthService) {}

  async transform(value: AccessTokenRequest): Promise<string> {
    // A route without AuthGuard (or a @Public() one) has no user: nothing to look up.
    if (!value.userId) throw new UnauthorizedException();
    try {
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
    default:
      return new ForbiddenException(body);
  }
}

const accessTokenRequest = createParamDecorator((provider: string, context: ExecutionContext): AccessTokenRequest => ({
  userId: context.getArgByIndex<AuthenticatedRequest>(0)?.user?.id as string | undefined,
  provider,
}));

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
