import type {
  DataSource,
  EntityManager,
  EntityMetadata,
  InsertResult,
  ObjectLiteral,
  Repository,
  SelectQueryBuilder,
} from 'typeorm';
import type { AdapterAccount } from '../adapter.interface.js';
import type { AdapterConflictKind } from '../../errors/auth.errors.js';
import type { EntityClass } from './auth-entities.js';
import { mapWriteError } from './write-errors.js';
import { ROW_ID } from './schema-entities.js';

/** TypeORM's driver types of the SQLite family. */
export const SQLITE_TYPES: ReadonlySet<string> = new Set([
  'sqlite',
  'better-sqlite3',
  'capacitor',
  'cordova',
  'expo',
  'nativescript',
  'react-native',
  'sqljs',
]);
const MYSQL_TYPES = new Set(['mysql', 'mariadb', 'aurora-mysql']);

/** Property values that select rows, by entity property name. */
export type Keys = Record<string, string | number>;

/**
 * The statements `TypeOrmAdapter` is built from, over one data source: rows matched by exact keys
 * (also under MySQL's case-insensitive collations), inserts whose constraint violations become typed
 * errors, and deletes that return what they deleted.
 */
export class TypeOrmQueries {
  readonly mysql: boolean;

  constructor(private readonly dataSource: DataSource) {
    this.mysql = MYSQL_TYPES.has(dataSource.options.type);
  }

  repo<T extends ObjectLiteral>(entity: EntityClass<T>): Repository<T> {
    return this.dataSource.getRepository(entity);
  }

  /**
   * `alias.column = :param AND ...` for `keys`. On MySQL/MariaDB each comparison is repeated with
   * `BINARY`: a case-insensitive collation (the server default) must not let `ABC` match `abc`; the
   * plain comparison keeps the index usable.
   */
  where(target: string | EntityMetadata, keys: Keys): [string, ObjectLiteral] {
    const parts: string[] = [];
    const params: ObjectLiteral = {};
    for (const [property, value] of Object.entries(keys)) {
      // With an alias TypeORM maps `alias.property` to the column; UPDATE and DELETE take the column name.
      const column =
        typeof target === 'string'
          ? `${target}.${property}`
          : this.dataSource.driver.escape(target.findColumnWithPropertyName(property)?.databaseName ?? property);
      const param = `k_${property}`;
      params[param] = value;
      parts.push(`${column} = :${param}`);
      if (this.mysql && typeof value === 'string') parts.push(`BINARY ${column} = :${param}`);
    }
    return [parts.join(' AND '), params];
  }

  select<T extends ObjectLiteral>(entity: EntityClass<T>, alias: string, keys: Keys): SelectQueryBuilder<T> {
    const [where, params] = this.where(alias, keys);
    return this.repo(entity).createQueryBuilder(alias).where(where, params);
  }

  /** Sets the given columns (the entity's, not undefined) of the rows matching `keys`. */
  async update(
    entity: EntityClass<ObjectLiteral>,
    keys: Keys,
    values: object,
    conflict: () => AdapterConflictKind,
  ): Promise<void> {
    const repo = this.repo(entity);
    const changes = columnsOnly(repo.metadata, values);
    if (!Object.keys(changes).length) return;
    const [where, params] = this.where(repo.metadata, keys);
    try {
      await repo.createQueryBuilder().update().set(changes).where(where, params).execute();
    } catch (error) {
      throw mapWriteError(error, conflict);
    }
  }

  /** Deletes the rows whose `expires` is before `now`; returns how many went. */
  async deleteExpired(entity: EntityClass<ObjectLiteral>, now: Date): Promise<number> {
    const metadata = this.dataSource.getMetadata(entity);
    const expires = metadata.findColumnWithPropertyName('expires');
    if (!expires) throw new Error(`TypeOrmAdapter: the ${metadata.name} entity has no column for "expires".`);
    const result = await this.dataSource
      .createQueryBuilder()
      .delete()
      .from(entity)
      .where(`${this.dataSource.driver.escape(expires.databaseName)} < :now`, {
        now: this.dataSource.driver.preparePersistentValue(now, expires),
      })
      .execute();
    return result.affected ?? 0;
  }

  /** Deletes every row matching `keys`; returns how many went. */
  async deleteAll(entity: EntityClass<ObjectLiteral>, keys: Keys): Promise<number> {
    const [where, params] = this.where(this.dataSource.getMetadata(entity), keys);
    const result = await this.dataSource.createQueryBuilder().delete().from(entity).where(where, params).execute();
    return result.affected ?? 0;
  }

  async insert<T extends ObjectLiteral>(
    repo: Repository<T>,
    value: object,
    conflict: (error: unknown) => AdapterConflictKind,
  ): Promise<InsertResult> {
    try {
      return await repo
        .createQueryBuilder()
        .insert()
        .values(repo.create(value as T) as never)
        .execute();
    } catch (error) {
      throw mapWriteError(error, conflict);
    }
  }

  /**
   * Deletes the rows matching `keys` and returns them, atomically: `DELETE ... RETURNING` when
   * `inOneStatement`, otherwise a transaction that locks the rows (`SELECT ... FOR UPDATE`) first.
   */
  async deleteReturning<T extends ObjectLiteral>(
    entity: EntityClass<T>,
    keys: Keys,
    inOneStatement: boolean,
  ): Promise<T[]> {
    if (!inOneStatement) return this.deleteLocking(entity, keys);
    const metadata = this.dataSource.getMetadata(entity);
    const [where, params] = this.where(metadata, keys);
    const [sql, parameters] = this.dataSource
      .createQueryBuilder()
      .delete()
      .from(entity)
      .where(where, params)
      .getQueryAndParameters();
    const runner = this.dataSource.createQueryRunner();
    try {
      const result = await runner.query(`${sql} RETURNING *`, parameters, true);
      return (result.records as ObjectLiteral[]).map((raw) => this.hydrate(metadata, raw) as T);
    } finally {
      await runner.release();
    }
  }

  async deleteLocking<T extends ObjectLiteral>(entity: EntityClass<T>, keys: Keys): Promise<T[]> {
    return this.dataSource.transaction(async (manager: EntityManager) => {
      const [selectWhere, selectParams] = this.where('t', keys);
      const rows = await manager
        .createQueryBuilder(entity, 't')
        .setLock('pessimistic_write')
        .where(selectWhere, selectParams)
        .getMany();
      if (!rows.length) return [];
      const [where, params] = this.where(manager.connection.getMetadata(entity), keys);
      await manager.createQueryBuilder().delete().from(entity).where(where, params).execute();
      return rows;
    });
  }

  /**
   * Deletes a user and, first, its rows in `children` (by `userId`) and, with `tokens`, the
   * verification tokens of its address (by `identifier`), in one transaction: for tables whose
   * foreign keys do not cascade, and for deleting an account as one unit. The user row is locked
   * first. Returns the user as it was, or null when there was none (nothing is deleted).
   */
  async deleteWithRows<T extends ObjectLiteral>(
    user: EntityClass<T>,
    children: EntityClass<ObjectLiteral>[],
    userId: string,
    tokens?: EntityClass<ObjectLiteral>,
  ): Promise<T | null> {
    return this.dataSource.transaction(async (manager) => {
      const [selectWhere, selectParams] = this.where('u', { id: userId });
      const query = manager.createQueryBuilder(user, 'u').where(selectWhere, selectParams);
      if (!SQLITE_TYPES.has(this.dataSource.options.type)) query.setLock('pessimistic_write');
      const found = await query.getOne();
      if (!found) return null;
      const email = (found as { email?: unknown }).email;
      const steps: [EntityClass<ObjectLiteral>, Keys][] = children.map((entity) => [entity, { userId }]);
      if (tokens && typeof email === 'string' && email) steps.push([tokens, { identifier: email }]);
      steps.push([user as EntityClass<ObjectLiteral>, { id: userId }]);
      for (const [entity, keys] of steps) {
        const [where, params] = this.where(manager.connection.getMetadata(entity), keys);
        await manager.createQueryBuilder().delete().from(entity).where(where, params).execute();
      }
      return found;
    });
  }

  /**
   * Replaces the rows matching `keys` with `rows`, in one transaction. The row `owner` names (the
   * user the rows belong to) is locked first, so concurrent replacements of the same rows run one
   * after the other instead of each keeping its own new rows.
   */
  async replace(
    entity: EntityClass<ObjectLiteral>,
    keys: Keys,
    rows: object[],
    conflict: (error: unknown) => AdapterConflictKind,
    owner?: [EntityClass<ObjectLiteral>, Keys],
  ): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      if (owner && !SQLITE_TYPES.has(this.dataSource.options.type)) {
        const [lockWhere, lockParams] = this.where('o', owner[1]);
        await manager
          .createQueryBuilder(owner[0], 'o')
          .setLock('pessimistic_write')
          .where(lockWhere, lockParams)
          .getOne();
      }
      const metadata = manager.connection.getMetadata(entity);
      const [where, params] = this.where(metadata, keys);
      await manager.createQueryBuilder().delete().from(entity).where(where, params).execute();
      if (!rows.length) return;
      const repo = manager.getRepository(entity);
      try {
        await repo
          .createQueryBuilder()
          .insert()
          .values(rows.map((row) => repo.create(row as ObjectLiteral)) as never)
          .execute();
      } catch (error) {
        throw mapWriteError(error, conflict);
      }
    });
  }

  /** A raw row (database column names and values) turned into an entity instance. */
  private hydrate(metadata: EntityMetadata, raw: ObjectLiteral): ObjectLiteral {
    const entity = metadata.create() as ObjectLiteral;
    for (const column of metadata.columns) {
      // Columns never selected (a mapping's surrogate keys) are never returned either.
      if (!column.isSelect || !(column.databaseName in raw)) continue;
      column.setEntityValue(entity, this.dataSource.driver.prepareHydratedValue(raw[column.databaseName], column));
    }
    return entity;
  }
}

/**
 * Whether the database deletes and returns in one statement: PostgreSQL, SQLite 3.35+ and MariaDB
 * 10.0.5+ do (also when reached through the `mysql` driver); MySQL does not.
 */
export function deleteReturningSupported(dataSource: DataSource): boolean {
  const { type } = dataSource.options;
  if (type === 'postgres' || type === 'cockroachdb' || SQLITE_TYPES.has(type)) return true;
  if (!MYSQL_TYPES.has(type)) return false;
  const driver = dataSource.driver as typeof dataSource.driver & { version?: string };
  if (driver.isReturningSqlSupported('delete')) return true;
  const match = /^(\d+)\.(\d+)\.(\d+)-MariaDB/i.exec(driver.version ?? '');
  return !!match && versionAtLeast(match.slice(1).map(Number), [10, 0, 5]);
}

function versionAtLeast(actual: number[], wanted: number[]): boolean {
  for (let i = 0; i < wanted.length; i++) {
    if ((actual[i] ?? 0) !== wanted[i]) return (actual[i] ?? 0) > wanted[i]!;
  }
  return true;
}

/**
 * The entity as a plain object (so callers hold no TypeORM instance), or `null`. A mapping's
 * surrogate key is left out: TypeORM selects primary columns even when they are `select: false`.
 */
export function plain<T extends object>(row: T | null | undefined): T | null {
  if (!row) return null;
  const { [ROW_ID]: _rowId, ...rest } = row as T & { [ROW_ID]?: unknown };
  return rest as T;
}

/** An account without the `null`s of its unset token columns (the type has them optional). */
export function accountOf(row: ObjectLiteral): AdapterAccount {
  return Object.fromEntries(
    Object.entries(row).filter(([k, v]) => v !== null && v !== undefined && k !== ROW_ID),
  ) as AdapterAccount;
}

/** Only the properties that are columns of the entity, and not undefined (a partial update). */
function columnsOnly(metadata: EntityMetadata, values: object): ObjectLiteral {
  const out: ObjectLiteral = {};
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined && metadata.findColumnWithPropertyName(key)) out[key] = value;
  }
  return out;
}
