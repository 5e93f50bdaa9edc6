import { type DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule, getRepositoryToken } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
// A real app imports these from 'nestjs-auth', and the catalogue's GitHub and Google from 'nestjs-auth/providers'.
import {
  AuthModule,
  Credentials,
  Email,
  Passkey,
  verifyPassword,
  type AuthModuleOptions,
  type Provider,
} from '../lib/index.js';
import { GitHub, Google } from '../lib/providers.js';
import { BrowserAuthGuard } from './browser-auth.guard.js';
import { DevInboxController } from './dev-inbox.controller.js';
import type { MailCatcher } from './mail-catcher.js';
import { SamplePassword } from './sample-password.entity.js';
import type { SampleConfig } from './sample.config.js';
import { SampleController } from './sample.controller.js';
import { MAIL_CATCHER, SAMPLE_CONFIG, SAMPLE_URLS, type SampleUrls } from './sample.tokens.js';
import { SeedService } from './seed.service.js';

/** A small logo for the `theme` option (a data: URI keeps the pages free of external requests). */
const LOGO =
  'data:image/svg+xml,' +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#4f46e5"/>' +
      '<path d="M20 30v-6a12 12 0 0 1 24 0v6" fill="none" stroke="#fff" stroke-width="5"/><rect x="14" y="30" width="36" height="24" rx="5" fill="#fff"/></svg>',
  );

/**
 * The sample app: TypeORM on a SQLite file (the library's tables are created by `synchronize`),
 * `AuthModule` with every kind of provider, and the sample's pages.
 */
@Module({})
export class SampleModule {
  static register(config: SampleConfig, urls: SampleUrls, mail: MailCatcher): DynamicModule {
    return {
      module: SampleModule,
      imports: [
        TypeOrmModule.forRoot({
          type: 'better-sqlite3',
          database: config.database,
          // WAL: a session lookup takes 2 system calls instead of 8 (see "TypeORM" in the docs, "The session lookup").
          enableWAL: true,
          autoLoadEntities: true,
          synchronize: true,
        }),
        TypeOrmModule.forFeature([SamplePassword]),
        AuthModule.forRootAsync({
          // The credentials provider checks passwords in the sample's own table.
          imports: [TypeOrmModule.forFeature([SamplePassword])],
          inject: [getRepositoryToken(SamplePassword)],
          useFactory: (passwords: Repository<SamplePassword>) => authOptions(config, urls, passwords),
        }),
      ],
      controllers: [SampleController, DevInboxController],
      providers: [
        SeedService,
        BrowserAuthGuard,
        { provide: SAMPLE_CONFIG, useValue: config },
        { provide: SAMPLE_URLS, useValue: urls },
        { provide: MAIL_CATCHER, useValue: mail },
      ],
    };
  }
}

function authOptions(config: SampleConfig, urls: SampleUrls, passwords: Repository<SamplePassword>): AuthModuleOptions {
  const providers: Provider[] = [
    // A generic OpenID Connect provider: discovery from the issuer.
    {
      id: 'demo-idp',
      name: 'Demo IdP',
      type: 'oidc',
      issuer: urls.idpIssuer,
      clientId: config.idpClientId,
      clientSecret: config.idpClientSecret,
    },
    Email({
      server: { host: '127.0.0.1', port: urls.smtpPort, secure: false, ignoreTLS: true },
      from: 'nestjs-auth sample <no-reply@example.com>',
    }),
    Credentials({
      name: 'Password',
      credentials: {
        email: { label: 'Email', type: 'email', autocomplete: 'username', required: true },
        password: { label: 'Password', type: 'password', autocomplete: 'current-password', required: true },
      },
      async authorize({ email, password }) {
        const row = typeof email === 'string' ? await passwords.findOneBy({ email: email.trim().toLowerCase() }) : null;
        // Verify even when the user is unknown (against a dummy hash): both answers take as long.
        const ok = await verifyPassword(typeof password === 'string' ? password : '', row?.passwordHash ?? null);
        return ok && row ? { id: row.userId, email: row.email } : null;
      },
    }),
    Passkey({ relyingParty: { id: new URL(urls.app).hostname, name: 'nestjs-auth sample', origin: urls.app } }),
  ];
  // The catalogue factories read AUTH_GITHUB_ID/SECRET and AUTH_GOOGLE_ID/SECRET themselves.
  if (config.github) providers.push(GitHub());
  if (config.google) providers.push(Google());
  return {
    secret: config.secret,
    url: urls.app,
    session: { strategy: config.sessionStrategy },
    providers,
    theme: { colorScheme: 'auto', brandColor: '#4f46e5', logo: LOGO, buttonText: '' },
  };
}
