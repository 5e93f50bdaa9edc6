import { All, Controller, Get, Inject, Param, Post, Req, Res, type Type } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import type { AuthAction } from '../router/auth-action.js';
import { AuthRouterService } from '../router/auth-router.service.js';
import { AuthError } from '../errors/auth.errors.js';
import { RequestErrorLog } from '../core/error-log.js';
import { toAuthRequest, writeAuthResponse } from './auth-request.factory.js';
import { Public } from '../core/public.decorator.js';

/**
 * The routes under `basePath` (Auth.js's paths and methods). A thin shell: it turns the Express
 * request into an `AuthRequest`, lets the router answer, and writes the answer.
 */
@Public()
export class AuthControllerBase {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly router: AuthRouterService,
    private readonly errorLog: RequestErrorLog,
  ) {}

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

  /** The browser half of passkeys, served from the installed package (no CDN). */
  @Get('webauthn-client.js') webauthnClient(@Req() req: Request, @Res() res: Response) {
    return this.run(req, res, 'webauthn-client');
  }

  /** Anything else under the base path: a clear 400, never a 404 page from another layer or a 500. */
  @All() root(@Req() req: Request, @Res() res: Response) {
    return this.run(req, res, 'unknown');
  }
  @All('{*rest}') unknown(@Req() req: Request, @Res() res: Response) {
    return this.run(req, res, 'unknown');
  }

  private async run(req: Request, res: Response, action: AuthAction, provider?: string): Promise<void> {
    let authRequest;
    try {
      authRequest = toAuthRequest(req, this.config);
    } catch (error) {
      // Refused before any flow runs (an untrusted or foreign host, a malformed target): a 400
      // through the same writer as every other answer.
      this.errorLog.report(error);
      const type = error instanceof AuthError ? error.type : 'InvalidRequest';
      const message = error instanceof AuthError ? error.message : 'The request is malformed.';
      writeAuthResponse(req, res, { status: 400, json: { error: type, message } });
      return;
    }
    writeAuthResponse(req, res, await this.router.handle(authRequest, action, provider));
  }
}

/** The controller class mounted at `basePath` (a subclass per path, decorated at module definition). */
export function createAuthController(basePath: string): Type<AuthControllerBase> {
  const path = '/' + String(basePath).replace(/^\/+|\/+$/g, '');
  class AuthController extends AuthControllerBase {}
  Controller(path)(AuthController);
  return AuthController;
}
