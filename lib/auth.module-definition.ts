import { ConfigurableModuleBuilder, type DynamicModule, type Provider } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Adapter } from './adapters/adapter.interface.js';
import { createDefaultAdapterProvider } from './adapters/typeorm/typeorm-adapter.provider.js';
import { AUTH_CONFIG, AUTH_EXTRAS } from './config/auth.constants.js';
import { AUTH_SERVICES } from './auth.providers.js';
import { MemoryRateLimitStore } from './rate-limit/memory-rate-limit.store.js';
import { RateLimitStore } from './rate-limit/rate-limit.store.js';
import type { AdapterOption, AuthModuleExtras, AuthModuleOptions } from './config/auth-options.interface.js';
import { AUTH_DEFAULTS } from './config/defaults.js';
import { resolveConfig } from './config/resolve-config.js';
import { createAuthController } from './http/auth.controller.js';
import { AuthGuard } from './guard/auth.guard.js';

export const {
  ConfigurableModuleClass: ConfigurableAuthModule,
  MODULE_OPTIONS_TOKEN: AUTH_MODULE_OPTIONS,
  OPTIONS_TYPE: AUTH_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: AUTH_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<AuthModuleOptions>({ moduleName: 'Auth' })
  .setClassMethodName('forRoot')
  .setExtras<AuthModuleExtras>(
    { isGlobal: false, basePath: AUTH_DEFAULTS.basePath, adapter: undefined, dataSource: undefined, globalGuard: false },
    (definition, extras) => withAuthProviders(definition, extras),
  )
  .build();

/** Adds routes, adapter, resolved configuration, services and (optionally) the global guard. */
function withAuthProviders(definition: DynamicModule, extras: AuthModuleExtras): DynamicModule {
  const adapter = adapterProvider(extras.adapter, extras.dataSource);
  const providers: Provider[] = [
    ...(definition.providers ?? []),
    { provide: AUTH_EXTRAS, useValue: extras },
    ...adapter.providers,
    {
      provide: AUTH_CONFIG,
      inject: [AUTH_MODULE_OPTIONS, Adapter],
      useFactory: (options: AuthModuleOptions, instance: Adapter | null) => resolveConfig(options, extras, instance ?? null),
    },
    ...AUTH_SERVICES,
    // The user's store (e.g. Redis, shared by several instances) replaces the in-memory default.
    {
      provide: RateLimitStore,
      inject: [AUTH_MODULE_OPTIONS],
      useFactory: (options: AuthModuleOptions) => options.rateLimit?.store ?? new MemoryRateLimitStore(),
    },
    AuthGuard,
    ...(extras.globalGuard ? [{ provide: APP_GUARD, useExisting: AuthGuard }] : []),
  ];
  return {
    ...definition,
    global: extras.isGlobal,
    imports: [...(definition.imports ?? []), ...adapter.imports],
    controllers: [...(definition.controllers ?? []), createAuthController(extras.basePath ?? AUTH_DEFAULTS.basePath)],
    providers,
    exports: [...(definition.exports ?? []), AUTH_CONFIG, Adapter, AuthGuard, ...AUTH_SERVICES],
  };
}

/** The `Adapter` provider for a class, an instance, a factory, or the TypeORM default. */
function adapterProvider(option: AdapterOption | undefined, dataSource: string | undefined): { providers: Provider[]; imports: any[] } {
  if (option === undefined || option === null) {
    return { providers: [createDefaultAdapterProvider(dataSource).provider], imports: [] };
  }
  if (typeof option === 'function') {
    return { providers: [{ provide: Adapter, useClass: option }], imports: [] };
  }
  if ('useClass' in option && typeof option.useClass === 'function') {
    return { providers: [{ provide: Adapter, useClass: option.useClass }], imports: option.imports ?? [] };
  }
  if ('useFactory' in option && typeof option.useFactory === 'function') {
    return {
      providers: [{ provide: Adapter, useFactory: option.useFactory, inject: option.inject ?? [] }],
      imports: option.imports ?? [],
    };
  }
  return { providers: [{ provide: Adapter, useValue: option }], imports: [] };
}
