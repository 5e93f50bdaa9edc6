import { Module } from '@nestjs/common';
import { ConfigurableAuthModule } from './auth.module-definition.js';

/**
 * Authentication for the application: routes under `basePath`, sessions, the guard and the services.
 *
 * ```ts
 * AuthModule.forRoot({ secret: process.env.AUTH_SECRET, providers: [GitHub()] })
 * AuthModule.forRootAsync({ imports: [ConfigModule], inject: [ConfigService],
 *   useFactory: (config: ConfigService) => ({ secret: config.getOrThrow('AUTH_SECRET'), providers: [...] }) })
 * ```
 */
@Module({})
export class AuthModule extends ConfigurableAuthModule {}
