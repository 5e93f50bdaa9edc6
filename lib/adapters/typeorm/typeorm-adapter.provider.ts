import type { Provider } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AuthConfigurationError } from '../../errors/auth.errors.js';
import { Adapter } from '../adapter.interface.js';
import { ApiKeyEntity } from './api-key.entity.js';
import { authEntities } from './auth-entities.js';
import { RefreshFamilyEntity } from './refresh-family.entity.js';
import { SigningKeyEntity } from './signing-key.entity.js';
import { TwoFactorEntity } from './two-factor.entity.js';
import { TypeOrmAdapter } from './typeorm.adapter.js';

/**
 * The adapter `AuthModule` uses when it is given no `adapter`: a {@link TypeOrmAdapter} over the
 * app's data source (the default one, or the one named `dataSource`), or `null` (no storage: JWT
 * sessions only) when the app has no TypeORM data source.
 *
 * Calling it registers the entities for that data source's `autoLoadEntities`. That is a side
 * effect of `TypeOrmModule.forFeature`, whose module is deliberately not imported: importing it
 * would make the app fail to start when it has no TypeORM data source at all. Apps that list their
 * entities by hand add {@link authEntities}.
 *
 * @param dataSource The name of the TypeORM data source. @default the default data source
 */
export function createDefaultAdapterProvider(dataSource?: string): { provider: Provider; entities: Function[] } {
  const entities = [...authEntities] as Function[];
  TypeOrmModule.forFeature(entities, dataSource);
  const token = getDataSourceToken(dataSource);
  return {
    entities,
    provider: {
      provide: Adapter,
      // Injected (optionally) rather than only looked up, so Nest creates the data source first.
      inject: [ModuleRef, { token, optional: true }],
      useFactory: (moduleRef: ModuleRef, injected?: DataSource): TypeOrmAdapter | null => {
        const ds = isDataSource(injected) ? injected : findDataSource(moduleRef, token);
        if (!ds) return null;
        assertAuthEntities(ds, dataSource);
        return new TypeOrmAdapter(ds);
      },
    },
  };
}

/** The entities of capabilities beyond SPEC, whose tables an app may leave out. */
const OPTIONAL_ENTITIES: ReadonlySet<Function> = new Set([
  TwoFactorEntity,
  RefreshFamilyEntity,
  ApiKeyEntity,
  SigningKeyEntity,
]);

/**
 * Fails the bootstrap when the data source the default adapter picked does not know its entities
 * (an app that lists its own `entities` without `autoLoadEntities`): otherwise the app starts and
 * the first sign-in fails with TypeORM's `EntityMetadataNotFoundError`. A data source that is not
 * initialized yet (`manualInitialization`) has no metadata to check.
 */
export function assertAuthEntities(ds: DataSource, dataSource?: string): void {
  if (ds.isInitialized === false) return;
  // TwoFactorEntity, RefreshFamilyEntity, ApiKeyEntity and SigningKeyEntity are optional: an app that
  // lists the entities one by one without them starts, and what needs them is then refused at
  // bootstrap (the adapter has no two-factor, refresh-token, API key or signing-key methods).
  const missing = authEntities.filter(
    (entity) => !OPTIONAL_ENTITIES.has(entity) && !ds.hasMetadata(entity) && !ds.hasMetadata(entity.name),
  );
  if (!missing.length) return;
  const name = dataSource ? `"${dataSource}"` : '(the default one)';
  throw new AuthConfigurationError([
    `AuthModule was given no \`adapter\`, so it uses TypeOrmAdapter over your TypeORM data source ${name}, ` +
      `but that data source does not know its entities (${missing.map((e) => e.name).join(', ')}): ` +
      "add `autoLoadEntities: true` to its TypeOrmModule.forRoot options, or add the library's entities to its list " +
      "(`import { authEntities } from 'nestjs-auth/typeorm'`, then `entities: [...authEntities, ...yours]`), " +
      'or pass `adapter` to AuthModule (MissingAdapter).',
  ]);
}

function findDataSource(moduleRef: ModuleRef, token: ReturnType<typeof getDataSourceToken>): DataSource | null {
  try {
    const found: unknown = moduleRef.get(token, { strict: false });
    return isDataSource(found) ? found : null;
  } catch {
    // No provider for the token: the app has no TypeORM data source.
    return null;
  }
}

/** Duck-typed: an app may load its own copy of `typeorm`, whose DataSource is another class. */
function isDataSource(value: unknown): value is DataSource {
  return (
    typeof (value as DataSource | undefined)?.getRepository === 'function' &&
    typeof (value as DataSource).transaction === 'function'
  );
}
