import {
  DEFAULT_REVOCATION_CHANNEL,
  reconnectDelay,
  type RevocationBus,
  type RevocationBusListener,
} from './revocation-bus.js';

/** The part of a `pg` client the bus uses (a client checked out of a pool has `release`). */
export interface PgListenClient {
  /** Runs a statement (`LISTEN`, `UNLISTEN`). */
  query(text: string, values?: unknown[]): Promise<unknown>;
  /** Listens to a client event (`notification`, `error`, `end`). */
  on(event: string, listener: (...args: never[]) => void): unknown;
  /** Stops listening (to one event, or to all). */
  removeAllListeners(event?: string): unknown;
  /** Gives the client back to its pool; `true` (or an error) destroys it. */
  release?(error?: Error | boolean): void;
  /** Closes the client. */
  end?(): Promise<void>;
}

/** A `pg` `Pool` (structurally): one of its connections is kept for `LISTEN`; `NOTIFY` goes through `query`. */
export interface PgPoolLike {
  /** Checks a client out of the pool (the one kept for `LISTEN`). */
  connect(): Promise<PgListenClient>;
  /** Runs a statement on any connection of the pool (`NOTIFY`, through `pg_notify`). */
  query(text: string, values?: unknown[]): Promise<unknown>;
  /** Closes the pool (only a pool the bus made itself). */
  end?(): Promise<void>;
}

/** A TypeORM `DataSource` on PostgreSQL (structurally): its driver's pool (`driver.master`) is used. */
export interface PostgresDataSourceLike {
  driver: object;
  options: { readonly type: string };
}

/**
 * Where {@link PostgresRevocationBus} connects: a `pg` `Pool`, a TypeORM `DataSource` on
 * PostgreSQL, or connection options for a `Pool` of its own (a connection string, or `pg`'s
 * `PoolConfig`; `pg` is then loaded when the bus starts).
 */
export type PostgresBusConnection = PgPoolLike | PostgresDataSourceLike | string | Record<string, unknown>;

/** Options of {@link PostgresRevocationBus}. */
export interface PostgresRevocationBusOptions {
  /** The `LISTEN/NOTIFY` channel (a lower-case identifier). @default 'nestjs_auth_revocations' */
  channel?: string;
  /** How long (ms) `subscribe` waits for the first `LISTEN` before the app starts anyway. @default 3000 */
  connectTimeout?: number;
}

const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Revocations between instances over PostgreSQL `LISTEN/NOTIFY`: no other server to run when the
 * app already has PostgreSQL. One pooled connection is kept for `LISTEN` (returned, broken, and a
 * new one taken when the connection is lost); `NOTIFY` runs as `SELECT pg_notify($1, $2)` on that
 * connection (on the pool while it is down).
 * A pool or data source given stays the app's; a pool the bus made from options is ended on close.
 *
 * ```ts
 * AuthModule.forRoot({ ..., revocationBus: { useFactory: (ds: DataSource) => new PostgresRevocationBus(ds), inject: [DataSource] } })
 * ```
 */
export class PostgresRevocationBus implements RevocationBus {
  private readonly channel: string;
  private readonly connectTimeout: number;
  private pool: PgPoolLike | null = null;
  private ownsPool = false;
  private client: PgListenClient | null = null;
  private listener: RevocationBusListener | null = null;
  private closed = false;
  private connected = false;
  private attempts = 0;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly connection: PostgresBusConnection,
    options: PostgresRevocationBusOptions = {},
  ) {
    this.channel = options.channel ?? DEFAULT_REVOCATION_CHANNEL;
    this.connectTimeout = options.connectTimeout ?? 3000;
    if (!CHANNEL.test(this.channel))
      throw new TypeError('PostgresRevocationBus: `channel` must be a lower-case identifier (letters, digits, _).');
    const ok = typeof connection === 'string' ? connection.length > 0 : !!connection && typeof connection === 'object';
    if (!ok)
      throw new TypeError(
        'PostgresRevocationBus needs a pg Pool, a TypeORM DataSource on PostgreSQL, or pg connection options.',
      );
  }

  async subscribe(listener: RevocationBusListener): Promise<void> {
    this.listener = listener;
    this.closed = false;
    // The app starts after the first attempt, or after `connectTimeout` (the attempt goes on).
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.listen(),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, this.connectTimeout))),
    ]);
    clearTimeout(timer);
  }

  async publish(payload: string): Promise<void> {
    // On the listening connection when there is one: no wait for a pool connection to open.
    const via = this.client ?? (await this.poolOf());
    await via.query('SELECT pg_notify($1, $2)', [this.channel, payload]);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    if (client) this.discard(client, false);
    if (this.ownsPool) await this.pool?.end?.().catch(() => undefined);
    this.pool = null;
  }

  /** Takes a connection, runs `LISTEN`, and keeps it; on failure tries again later. */
  private async listen(): Promise<void> {
    if (this.closed) return;
    let client: PgListenClient | undefined;
    try {
      client = await (await this.poolOf()).connect();
      const taken = client;
      taken.on('notification', (note: { channel?: string; payload?: string }) => {
        if (note?.channel === this.channel) this.listener?.message(note.payload ?? '');
      });
      taken.on('error', () => this.lost(taken));
      taken.on('end', () => this.lost(taken));
      await taken.query(`LISTEN ${this.channel}`);
      if (this.closed) return this.discard(taken, false);
      this.client = taken;
      this.attempts = 0;
      this.setConnected(true);
    } catch {
      if (client) this.discard(client, true);
      this.later();
    }
  }

  /** The listening connection broke: report it, drop it, listen again. */
  private lost(client: PgListenClient): void {
    if (this.client !== client) return;
    this.client = null;
    this.setConnected(false);
    this.discard(client, true);
    this.later();
  }

  private later(): void {
    if (this.closed) return;
    clearTimeout(this.retry);
    this.retry = setTimeout(() => void this.listen(), reconnectDelay(this.attempts++));
    this.retry.unref();
  }

  /** Gives a connection back: destroyed when broken (`release(true)`), otherwise after `UNLISTEN`. */
  private discard(client: PgListenClient, broken: boolean): void {
    client.removeAllListeners('notification');
    client.removeAllListeners('end');
    client.on('error', () => undefined);
    if (broken) {
      client.release?.(true);
      return;
    }
    client.query('UNLISTEN *').then(
      () => client.release?.(),
      () => client.release?.(true),
    );
  }

  /** The pool: the one given, the data source's, or one made from options (loading `pg`). */
  private async poolOf(): Promise<PgPoolLike> {
    if (this.pool) return this.pool;
    const c = this.connection as Record<string, unknown>;
    if (typeof c === 'object' && typeof c.connect === 'function' && typeof c.query === 'function') {
      this.pool = c as unknown as PgPoolLike;
    } else if (typeof c === 'object' && c.driver && typeof c.options === 'object') {
      const master = (c.driver as { master?: PgPoolLike }).master;
      if ((c as unknown as PostgresDataSourceLike).options.type !== 'postgres' || typeof master?.connect !== 'function')
        throw new TypeError('PostgresRevocationBus: the DataSource is not an initialized PostgreSQL data source.');
      this.pool = master;
    } else {
      const name = 'pg';
      const pg = (await import(name)) as { default?: { Pool: new (o: unknown) => PgPoolLike }; Pool?: unknown };
      const Pool = (pg.default?.Pool ?? pg.Pool) as new (o: unknown) => PgPoolLike;
      const pool = new Pool(typeof this.connection === 'string' ? { connectionString: this.connection } : c);
      (pool as unknown as { on?(e: string, l: () => void): void }).on?.('error', () => undefined);
      this.pool = pool;
      this.ownsPool = true;
    }
    return this.pool;
  }

  private setConnected(connected: boolean): void {
    if (this.closed || connected === this.connected) return;
    this.connected = connected;
    this.listener?.state(connected);
  }
}
