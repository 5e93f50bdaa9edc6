import {
  createParamDecorator,
  Injectable,
  UnauthorizedException,
  type ExecutionContext,
  type PipeTransform,
} from '@nestjs/common';
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
    return this.auth.getAccessToken(value.userId, value.provider);
  }
}

const accessTokenRequest = createParamDecorator((provider: string, context: ExecutionContext): AccessTokenRequest => ({
  userId: context.getArgByIndex<AuthenticatedRequest>(0)?.user?.id as string | undefined,
  provider,
}));

/**
 * Injects a valid access token of the signed-in user's account at `provider` (an HTTP route behind
 * `AuthGuard`), refreshed first when it is expired or about to expire. Fails like
 * `AuthService.getAccessToken`: `RefreshTokenError` (with its `reason`) when there is none to give.
 *
 * @example
 * @Get('repos') @UseGuards(AuthGuard)
 * repos(@ProviderAccessToken('github') token: string) { ... }
 */
export const ProviderAccessToken = (provider: string): ParameterDecorator =>
  accessTokenRequest(provider, ProviderAccessTokenPipe);
