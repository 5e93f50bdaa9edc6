import 'reflect-metadata';
import type { INestApplication, LoggerService, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { startDemoIdp, type DemoIdp } from './demo-idp.js';
import { startMailCatcher, type MailCatcher } from './mail-catcher.js';
import { freePort, type SampleConfig } from './sample.config.js';
import { SampleModule } from './sample.module.js';
import type { SampleUrls } from './sample.tokens.js';

/** A running sample: the app, its OpenID Provider and its SMTP catcher. */
export interface RunningSample {
  app: INestApplication;
  urls: SampleUrls;
  mail: MailCatcher;
  idp: DemoIdp;
  close(): Promise<void>;
}

/**
 * Starts the demo IdP, the SMTP catcher and the Nest app (on 127.0.0.1, served as
 * `http://localhost:<port>` because passkeys need a domain name, not an IP address).
 */
export async function startSample(
  config: SampleConfig,
  options: { logger?: LoggerService | false } = {},
): Promise<RunningSample> {
  const port = config.port || (await freePort());
  const app = `http://localhost:${port}`;
  const mail = await startMailCatcher({ port: config.smtpPort });
  let idp: DemoIdp | undefined;
  try {
    idp = await startDemoIdp({
      port: config.idpPort,
      clientId: config.idpClientId,
      clientSecret: config.idpClientSecret,
      redirectUris: [`${app}/auth/callback/demo-idp`],
    });
    const urls: SampleUrls = { app, idpIssuer: idp.issuer, smtpPort: mail.port };
    const module = SampleModule.register(config, urls, mail);
    const appOptions = { logger: options.logger === undefined ? (['warn', 'error'] as LogLevel[]) : options.logger };
    const nest =
      config.platform === 'fastify'
        ? await NestFactory.create(module, new FastifyAdapter(), appOptions)
        : await NestFactory.create(module, appOptions);
    await nest.listen(port, '127.0.0.1');
    const running = idp;
    return {
      app: nest,
      urls,
      mail,
      idp: running,
      async close() {
        await nest.close();
        await running.close();
        await mail.close();
      },
    };
  } catch (error) {
    await idp?.close();
    await mail.close();
    throw error;
  }
}
