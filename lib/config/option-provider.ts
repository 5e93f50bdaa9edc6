import type { InjectionToken, ModuleMetadata, Provider, Type } from '@nestjs/common';

/** The provider a user's option becomes, and the modules its dependencies come from. */
export interface OptionProvider {
  provider: Provider;
  imports: NonNullable<ModuleMetadata['imports']>;
}

/**
 * The provider of `token` for a swappable part given as an option (the adapter, the rate-limit
 * store): a class Nest instantiates, `{ useClass }`, `{ useFactory, inject }`, `{ useExisting }`
 * (each with optional `imports`), or else the value itself.
 */
export function providerFromOption(token: InjectionToken, option: unknown): OptionProvider {
  if (typeof option === 'function') return { provider: { provide: token, useClass: option as Type }, imports: [] };
  if (option && typeof option === 'object') {
    const spec = option as {
      useClass?: unknown;
      useFactory?: unknown;
      inject?: unknown[];
      useExisting?: unknown;
      imports?: ModuleMetadata['imports'];
    };
    const imports = spec.imports ?? [];
    if (typeof spec.useClass === 'function')
      return { provider: { provide: token, useClass: spec.useClass as Type }, imports };
    if (typeof spec.useFactory === 'function') {
      const useFactory = spec.useFactory as (...args: unknown[]) => unknown;
      return { provider: { provide: token, useFactory, inject: (spec.inject ?? []) as InjectionToken[] }, imports };
    }
    if (spec.useExisting !== undefined && spec.useExisting !== null) {
      return { provider: { provide: token, useExisting: spec.useExisting as InjectionToken }, imports };
    }
  }
  return { provider: { provide: token, useValue: option }, imports: [] };
}

/** Whether `option` is one Nest builds (a class or a provider spec) rather than the value itself. */
export function isProviderSpec(option: unknown): boolean {
  const { provider } = providerFromOption('option', option);
  return !(typeof provider === 'object' && 'useValue' in provider);
}
