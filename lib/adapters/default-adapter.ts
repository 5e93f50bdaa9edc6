import type { DynamicModule, Provider } from '@nestjs/common';

/** The token of the default adapter (a `TypeOrmAdapter`, or `null`): `AuthModule` aliases `Adapter` to it. */
export const DEFAULT_ADAPTER = Symbol('nestjs-auth:default-adapter');

/** The optional peers the default adapter needs. */
const TYPEORM_PACKAGES = ['typeorm', '@nestjs/typeorm'] as const;

/** The module providing {@link DEFAULT_ADAPTER}. */
class AuthDefaultAdapterModule {}

/**
 * The default adapter as a module for `AuthModule`'s `imports`, loaded only when the app passes no
 * `adapter`: TypeORM and `@nestjs/typeorm` are optional peers, so an app with its own adapter
 * never loads them and need not install them.
 *
 * The import is a promise Nest awaits while it scans the modules, that is before any provider is
 * created: the entities it registers for `autoLoadEntities` are in place when the app's TypeORM
 * data source is built. When the app installed neither package the default adapter is `null` (no
 * storage: JWT sessions only; a feature that needs storage then fails at bootstrap with
 * `MissingAdapter`). Any other failure to load is an error.
 *
 * @param dataSource The name of the TypeORM data source. @default the default data source
 * @param load How the TypeORM half is loaded (tests pass a loader that fails as a missing package would).
 */
export async function defaultAdapterModule(
  dataSource?: string,
  load: () => Promise<typeof import('./typeorm/typeorm-adapter.provider.js')> = () =>
    import('./typeorm/typeorm-adapter.provider.js'),
): Promise<DynamicModule> {
  let provider: Provider;
  try {
    const { createDefaultAdapterProvider } = await load();
    provider = { ...createDefaultAdapterProvider(dataSource).provider, provide: DEFAULT_ADAPTER } as Provider;
  } catch (error) {
    if (!isMissingPackage(error, TYPEORM_PACKAGES)) throw error;
    provider = { provide: DEFAULT_ADAPTER, useFactory: () => null };
  }
  return { module: AuthDefaultAdapterModule, providers: [provider], exports: [DEFAULT_ADAPTER] };
}

/**
 * Whether `error` says one of `packages` is not installed (Node's `ERR_MODULE_NOT_FOUND`, or
 * `MODULE_NOT_FOUND` from `require`), naming the package itself rather than something it imports.
 */
export function isMissingPackage(error: unknown, packages: readonly string[]): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  if (typeof message !== 'string') return false;
  return packages.some((name) => message.includes(`'${name}'`) || message.includes(`"${name}"`));
}
