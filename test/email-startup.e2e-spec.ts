/**
 * `verifyOnStartup` of email providers: at bootstrap the SMTP server is connected to (TCP, EHLO,
 * AUTH) with a real SMTP server, and a wrong host or password stops the start with the cause.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import { AuthConfigurationError } from '../lib/errors/auth.errors.js';
import { Email } from '../lib/methods/email/email.provider.js';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AuthModule } from '../lib/auth.module.js';
import { TEST_SECRET } from './setup/app.js';
import { startSmtpServer, type TestSmtpServer } from './setup/smtp.js';

const PASSWORD = 'smtp-password-never-logged';

/** Starts an app with one email provider; the error bootstrap failed with, or null when it started. */
async function start(email: Parameters<typeof Email>[0]): Promise<Error | null> {
  @Module({
    imports: [
      AuthModule.forRoot({
        secret: TEST_SECRET,
        providers: [Email({ from: 'auth@example.com', ...email })],
        adapter: new MemoryAdapter(),
      }),
    ],
  })
  class AppModule {}
  try {
    const app = await NestFactory.create(AppModule, { logger: false, abortOnError: false });
    await app.init();
    await app.close();
    return null;
  } catch (error) {
    return error as Error;
  }
}

describe('email providers: verifyOnStartup', () => {
  let smtp: TestSmtpServer;

  beforeAll(async () => {
    smtp = await startSmtpServer({ credentials: { user: 'mailer', pass: PASSWORD } });
  });
  afterAll(async () => {
    await smtp?.close();
  });

  it('starts when the SMTP server accepts the connection and the credentials', async () => {
    expect(await start({ server: smtp.options, verifyOnStartup: true })).toBeNull();
    expect(await start({ server: smtp.url, verifyOnStartup: true })).toBeNull();
  });

  it('fails the start with AuthConfigurationError and the cause when nothing listens', async () => {
    const error = await start({ server: 'smtp://127.0.0.1:1', verifyOnStartup: true });
    expect(error).toBeInstanceOf(AuthConfigurationError);
    expect(String(error)).toMatch(/^AuthConfigurationError: [^]*providers "email": the SMTP server[^]*ECONNREFUSED/);
    expect(((error as Error & { cause?: Error }).cause as Error).message).toContain('ECONNREFUSED');
  });

  it('fails the start when the server refuses the credentials, without printing the password', async () => {
    const error = await start({
      server: { ...smtp.options, auth: { user: 'mailer', pass: `${PASSWORD}-wrong` } },
      verifyOnStartup: true,
    });
    expect(error).toBeInstanceOf(AuthConfigurationError);
    expect(error!.message).toMatch(/Invalid login|535/);
    expect(error!.message).not.toContain(PASSWORD);
  });

  it('is off by default outside production, and refuses a value that is not a boolean', async () => {
    expect(process.env.NODE_ENV).not.toBe('production');
    expect(await start({ server: 'smtp://127.0.0.1:1' })).toBeNull();
    const error = await start({ server: smtp.url, verifyOnStartup: 'yes' as never });
    expect(error).toBeInstanceOf(AuthConfigurationError);
    expect(error!.message).toContain('verifyOnStartup must be true or false');
  });

  it('is on by default in production', async () => {
    const before = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      expect(await start({ server: 'smtp://127.0.0.1:1' })).toBeInstanceOf(AuthConfigurationError);
    } finally {
      process.env.NODE_ENV = before;
    }
  });
});
