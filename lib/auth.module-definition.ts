import { ConfigurableModuleBuilder, Logger, type DynamicModule, type Provider } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Adapter } from './adapters/adapter.interface.js';
import { DEFAULT_ADAPTER, defaultAdapterModule } from './adapters/default-adapter.js';
import { recentSignInNotice, sessionStrategyNotice } from './config/adapter-requirements.js';
import { AUTH_CONFIG } from './config/auth.constants.js';
import { AUTH_SERVICES } from './auth.providers.js';
import { MemoryRateLimitStore } from './rate-limit/memory-rate-limit.store.js';
import { RateLimitStore } from './rate-limit/rate-limit.store.js';
import { RevocationBus } from './bus/revocation-bus.js';
import type { AuthModuleExtras, AuthModuleOptions } from './config/auth-options.interface.js';
import { AUTH_DEFAULTS } from './config/defaults.js';
import { providerFromOption, type OptionProvider } from './config/option-provider.js';
import { resolveConfigWith } from './config/resolve-config.js';
import { methodWiring, registeredMethods } from './sign-in-methods.js';
import { createAuthController } from './http/auth.controller.js';
import { AuthGuard } from './guard/auth.guard.js';

/** The extras and their defaults (every key: `forRoot` tells extras from options by these keys). */
const EXTRAS_DEFAULTS: AuthModuleExtras = {
  isGlobal: true,
  basePath: AUTH_DEFAULTS.basePath,
  adapter: undefined,
  dataSource: undefined,
  globalGuard: false,
  rateLimitStore: undefined,
  revocationBus: undefined,
  methods: undefined,
} satisfies Record<keyof AuthModuleExtras, unknown>;

export const { ConfigurableModuleClass: ConfigurableAuthModule, MODULE_OPTIONS_TOKEN: AUTH_MODULE_OPTIONS } =
  new ConfigurableModuleBuilder<AuthModuleOptions>({ moduleName: 'Auth' })
    .setClassMethodName('forRoot')
    .setFactoryMethodName('createAuthOptions')
    .setExtras<AuthModuleExtras>(EXTRAS_DEFAULTS, (definition, extras) => withAuthProviders(definition, extras))
    .build();

/** Adds routes, adapter, rate-limit store, resolved configuration, services and (optionally) the global guard. */
function withAuthProviders(definition: DynamicModule, extras: AuthModuleExtras): DynamicModule {
  // The methods first: a malformed one fails here, before anything (the default adapter) loads.
  const methods = registeredMethods(extras.methods);
  const wiring = methodWiring(methods);
  const adapter = adapterProvider(extras);
  const store = rateLimitStoreProvider(extras);
  const bus = revocationBusProvider(extras);
  const given = givenExtras(definition, extras);
  const providers: Provider[] = [
    ...(definition.providers ?? []),
    adapter.provider,
    {
      provide: AUTH_CONFIG,
      inject: [AUTH_MODULE_OPTIONS, Adapter],
      useFactory: (options: AuthModuleOptions, instance: Adapter | null) => {
        const config = resolveConfigWith(methods, options, given, instance ?? null);
        const notice = sessionStrategyNotice(options.session?.strategy !== undefined, config.session.strategy, {
          given: given.adapter != null,
          none: given.adapter === null,
          dataSource: given.dataSource,
        });
        if (notice) new Logger('AuthModule').log(notice);
        const recent = recentSignInNotice(config.session.strategy, instance ?? null);
        if (recent) new Logger('AuthModule').warn(recent);
        return config;
      },
    },
    ...AUTH_SERVICES,
    ...wiring.providers,
    store.provider,
    bus.provider,
    AuthGuard,
    ...(extras.globalGuard ? [{ provide: APP_GUARD, useExisting: AuthGuard }] : []),
  ];
  return {
    ...definition,
    global: extras.isGlobal,
    imports: [...(definition.imports ?? []), ...adapter.imports, ...store.imports, ...bus.imports],
    controllers: [...(definition.controllers ?? []), createAuthController(extras.basePath ?? AUTH_DEFAULTS.basePath)],
    providers,
    exports: [
      ...(definition.exports ?? []),
      AUTH_CONFIG,
      Adapter,
      RateLimitStore,
      AuthGuard,
      ...AUTH_SERVICES,
      ...wiring.exports,
    ],
  };
}

/**
 * The extras as the user wrote them, for the checks of `resolveConfig`. `forRoot` hands the
 * transform its whole input (options too), so only the extras' keys are kept; `forRootAsync` hands
 * its top-level keys, where an option or a typo is a mistake to report. `forRoot` registers the
 * options as a value, `forRootAsync` with a factory.
 */
function givenExtras(definition: DynamicModule, extras: AuthModuleExtras): AuthModuleExtras {
  const fromForRoot = (definition.providers ?? []).some(
    (p) => typeof p === 'object' && 'provide' in p && p.provide === AUTH_MODULE_OPTIONS && 'useValue' in p,
  );
  if (!fromForRoot) return extras;
  return Object.fromEntries(Object.entries(extras).filter(([key]) => key in EXTRAS_DEFAULTS));
}

/**
 * The `Adapter` provider for a class, an instance, a factory, an existing provider, none (`null`), or
 * the TypeORM default (whose module, and TypeORM with it, is imported only here: see
 * `defaultAdapterModule`).
 */
function adapterProvider({ adapter, dataSource }: AuthModuleExtras): OptionProvider {
  // `null`: no storage, said explicitly. TypeORM is never loaded, even where it is installed.
  if (adapter === null) return { provider: { provide: Adapter, useValue: null }, imports: [] };
  if (adapter === undefined)
    return {
      provider: { provide: Adapter, useExisting: DEFAULT_ADAPTER },
      imports: [defaultAdapterModule(dataSource)],
    };
  return providerFromOption(Adapter, adapter);
}

/** The `RateLimitStore` provider: the `rateLimitStore` setting (an instance or a provider), else a store in memory. */
function rateLimitStoreProvider({ rateLimitStore }: AuthModuleExtras): OptionProvider {
  if (rateLimitStore !== undefined && rateLimitStore !== null)
    return providerFromOption(RateLimitStore, rateLimitStore);
  return { provider: { provide: RateLimitStore, useFactory: () => new MemoryRateLimitStore() }, imports: [] };
}

/** The `RevocationBus` provider: the `revocationBus` setting (an instance or a provider), else `null` (no bus). */
function revocationBusProvider({ revocationBus }: AuthModuleExtras): OptionProvider {
  if (revocationBus !== undefined && revocationBus !== null) return providerFromOption(RevocationBus, revocationBus);
  return { provider: { provide: RevocationBus, useValue: null }, imports: [] };
}
