import type { Provider } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { Adapter } from '../adapter.interface.js';
import { authEntities } from './auth-entities.js';
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
        return ds ? new TypeOrmAdapter(ds) : null;
      },
    },
  };
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
