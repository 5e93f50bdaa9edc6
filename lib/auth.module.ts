import { Module } from '@nestjs/common';
import { ConfigurableAuthModule } from './auth.module-definition.js';

/**
 * Authentication for the application: routes under `basePath`, sessions, the guard and the services.
 *
 * ```ts
 * AuthModule.forRoot({ secret: process.env.AUTH_SECRET, providers: [GitHub()] })
 * AuthModule.forRootAsync({ imports: [ConfigModule], inject: [ConfigService],
 *   useFactory: (config: ConfigService) => ({ secret: config.getOrThrow('AUTH_SECRET'), providers: [...] }) })
 * AuthModule.forRootAsync({ useClass: AuthConfig })   // AuthConfig implements AuthOptionsFactory
 * ```
 *
 * Settings that shape the module (`basePath`, `adapter`, `rateLimitStore`, `revocationBus`, `globalGuard`, ...) sit
 * next to the options in `forRoot` and at the top level of `forRootAsync`. An unknown key in either
 * fails at bootstrap with `AuthConfigurationError`.
 */
@Module({})
export class AuthModule extends ConfigurableAuthModule {}
