import { type INestApplication, Module, type Provider, type WebSocketAdapter } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { AddressInfo } from 'node:net';
import { AuthModule } from '../../lib/auth.module.js';
import type { AuthModuleExtras, AuthModuleOptions } from '../../lib/config/auth-options.interface.js';
import { TEST_SECRET } from './app.js';

export interface GatewayApp {
  app: INestApplication;
  /** e.g. `http://127.0.0.1:41234` */
  url: string;
  close(): Promise<void>;
}

/** A Nest app with AuthModule and the given gateways on 127.0.0.1 (random port), with the given WebSocket adapter. */
export async function createGatewayApp(options: {
  auth: Partial<AuthModuleOptions> & AuthModuleExtras;
  providers: Provider[];
  adapter?: (app: INestApplication) => WebSocketAdapter;
}): Promise<GatewayApp> {
  @Module({
    imports: [
      AuthModule.forRoot({ secret: TEST_SECRET, providers: [], ...options.auth } as AuthModuleOptions &
        AuthModuleExtras),
    ],
    providers: options.providers,
  })
  class GatewayAppModule {}

  const app = await NestFactory.create(GatewayAppModule, { logger: false });
  if (options.adapter) app.useWebSocketAdapter(options.adapter(app));
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  return { app, url: `http://127.0.0.1:${port}`, close: () => app.close() };
}
