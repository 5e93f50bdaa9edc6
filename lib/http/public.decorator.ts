import { SetMetadata } from '@nestjs/common';

/** Metadata key read by `AuthGuard`. */
export const IS_PUBLIC_KEY = 'nestjs-auth:public';

/**
 * Opts a handler or a controller out of a global `AuthGuard`. On a handler, `@Public(false)` undoes
 * its controller's `@Public()`.
 */
export const Public = (isPublic = true): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC_KEY, isPublic);
