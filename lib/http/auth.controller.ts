import { All, Controller, Get, Inject, Param, Post, Req, Res, type Type } from '@nestjs/common';
import type { AuthAction } from '../router/auth-action.js';
import { Public } from '../core/public.decorator.js';
import { AuthHttpHandler } from './auth-http.handler.js';

/** The platform's request and response (Express or Fastify), passed through to {@link AuthHttpHandler}. */
type Request = unknown;
type Response = unknown;

/**
 * The routes under `basePath` (Auth.js's paths and methods). A thin shell, free of any platform:
 * {@link AuthHttpHandler} reads the request, lets the router answer, and writes the answer.
 */
@Public()
export class AuthControllerBase {
  constructor(@Inject(AuthHttpHandler) private readonly handler: AuthHttpHandler) {}

  @Get('providers') providers(@Req() req: Request, @Res() res: Response) {
    return this.run(req, res, 'providers');
  }
  @Get('csrf') csrf(@Req() req: Request, @Res() res: Response) {
    return this.run(req, res, 'csrf');
  }
  @Get('session') session(@Req() req: Request, @Res() res: Response) {
    return this.run(req, res, 'session');
  }
  @Post('session') updateSession(@Req() req: Request, @Res() res: Response) {
    return this.run(req, res, 'session');
  }
  @Get('signin') signInPage(@Req() req: Request, @Res() res: Response) {
    return this.run(req, res, 'signin');
  }
  @Post('signin/:provider') signIn(@Req() req: Request, @Res() res: Response, @Param('provider') provider: string) {
    return this.run(req, res, 'signin', provider);
  }
  /** Links another OAuth/OIDC account to the signed-in user (CSRF-protected; the callback is `callback/:provider`). */
  @Post('link/:provider') link(@Req() req: Request, @Res() res: Response, @Param('provider') provider: string) {
    return this.run(req, res, 'link', provider);
  }
  @Get('callback/:provider') callbackGet(
    @Req() req: Request,
    @Res() res: Response,
    @Param('provider') provider: string,
  ) {
    return this.run(req, res, 'callback', provider);
  }
  @Post('callback/:provider') callbackPost(
    @Req() req: Request,
    @Res() res: Response,
    @Param('provider') provider: string,
  ) {
    return this.run(req, res, 'callback', provider);
  }
  @Get('signout') signOutPage(@Req() req: Request, @Res() res: Response) {
    return this.run(req, res, 'signout');
  }
  @Post('signout') signOut(@Req() req: Request, @Res() res: Response) {
    return this.run(req, res, 'signout');
  }
  @Get('verify-request') verifyRequest(@Req() req: Request, @Res() res: Response) {
    return this.run(req, res, 'verify-request');
  }
  @Get('error') error(@Req() req: Request, @Res() res: Response) {
    return this.run(req, res, 'error');
  }
  @Get('webauthn-options/:provider') webauthnOptions(
    @Req() req: Request,
    @Res() res: Response,
    @Param('provider') provider: string,
  ) {
    return this.run(req, res, 'webauthn-options', provider);
  }

  @Post('backchannel-logout/:provider') backchannelLogout(
    @Req() req: Request,
    @Res() res: Response,
    @Param('provider') provider: string,
  ) {
    return this.run(req, res, 'backchannel-logout', provider);
  }

  /** The account page and its JSON API (`account`, `account/:section`, `account/:section/:action`). */
  @Get('account') accountPage(@Req() req: Request, @Res() res: Response) {
    return this.run(req, res, 'account', '');
  }
  @Get('account/:a') accountGet(@Req() req: Request, @Res() res: Response, @Param('a') a: string) {
    return this.run(req, res, 'account', a);
  }
  @Post('account/:a') accountPost(@Req() req: Request, @Res() res: Response, @Param('a') a: string) {
    return this.run(req, res, 'account', a);
  }
  @Get('account/:a/:b') accountGet2(
    @Req() req: Request,
    @Res() res: Response,
    @Param('a') a: string,
    @Param('b') b: string,
  ) {
    return this.run(req, res, 'account', `${a}/${b}`);
  }
  @Post('account/:a/:b') accountPost2(
    @Req() req: Request,
    @Res() res: Response,
    @Param('a') a: string,
    @Param('b') b: string,
  ) {
    return this.run(req, res, 'account', `${a}/${b}`);
  }

  /** A sign-in waiting for its second factor: the challenge page (or JSON) and its answer (`twoFactor`). */
  @Get('two-factor') twoFactorPage(@Req() req: Request, @Res() res: Response) {
    return this.run(req, res, 'two-factor');
  }
  @Post('two-factor') twoFactor(@Req() req: Request, @Res() res: Response) {
    return this.run(req, res, 'two-factor');
  }
  @Get('authorize') authorizePage(@Req() req: Request, @Res() res: Response) {
    return this.run(req, res, 'authorize');
  }
  @Post('authorize') authorize(@Req() req: Request, @Res() res: Response) {
    return this.run(req, res, 'authorize');
  }
  @Post('token') token(@Req() req: Request, @Res() res: Response) {
    return this.run(req, res, 'token');
  }
  @Post('revoke') revoke(@Req() req: Request, @Res() res: Response) {
    return this.run(req, res, 'revoke');
  }
  @Get('jwks') jwks(@Req() req: Request, @Res() res: Response) {
    return this.run(req, res, 'jwks');
  }
  @Post('access-token') accessToken(@Req() req: Request, @Res() res: Response) {
    return this.run(req, res, 'access-token');
  }

  /** The browser half of passkeys, served from the installed package (no CDN). */
  @Get('webauthn-client.js') webauthnClient(@Req() req: Request, @Res() res: Response) {
    return this.run(req, res, 'webauthn-client');
  }

  /**
   * The base path itself: a clear 400, never a 404 page from another layer or a 500. Every other
   * path below it is answered the same way by the catch-all {@link AuthHttpHandler} mounts.
   */
  @All() root(@Req() req: Request, @Res() res: Response) {
    return this.run(req, res, 'unknown');
  }

  private run(req: Request, res: Response, action: AuthAction, provider?: string): Promise<void> {
    return this.handler.handle(req, res, action, provider);
  }
}

/** The controller class mounted at `basePath` (a subclass per path, decorated at module definition). */
export function createAuthController(basePath: string): Type<AuthControllerBase> {
  const path = '/' + String(basePath).replace(/^\/+|\/+$/g, '');
  class AuthController extends AuthControllerBase {}
  Controller(path)(AuthController);
  return AuthController;
}
