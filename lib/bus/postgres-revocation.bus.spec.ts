import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { PgListenClient, PgPoolLike } from './postgres-revocation.bus.js';
import { DataSource } from 'typeorm';
import { databaseTargets, POSTGRES_URL } from '../../test/setup/databases.js';
import { PostgresRevocationBus } from './postgres-revocation.bus.js';
import type { RevocationBusListener } from './revocation-bus.js';

const [postgres] = await databaseTargets(['postgres']);

/** `pg` (a dev dependency without type declarations here): the parts the spec uses. */
type Rows<T> = Promise<{ rows: T[] }>;
interface PgClient {
  connect(): Promise<void>;
  query<T = Record<string, unknown>>(text: string, values?: unknown[]): Rows<T>;
  end(): Promise<void>;
}
interface PgPool extends PgPoolLike {
  query<T = Record<string, unknown>>(text: string, values?: unknown[]): Rows<T>;
  connect(): Promise<PgListenClient>;
  end(): Promise<void>;
  totalCount: number;
  idleCount: number;
}
const pgName = 'pg';
const pg = ((await import(pgName)) as { default: unknown }).default as {
  Client: new (options: object) => PgClient;
  Pool: new (options: object) => PgPool;
};

function recorder() {
  const messages: string[] = [];
  const states: boolean[] = [];
  const listener: RevocationBusListener = { message: (m) => messages.push(m), state: (c) => states.push(c) };
  return { messages, states, listener };
}

async function until(check: () => boolean, ms = 5000): Promise<number> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
  return Date.now() - start;
}

postgres!.describe('PostgresRevocationBus (real PostgreSQL, LISTEN/NOTIFY)', () => {
  const channel = `nestjs_auth_test_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  let admin: PgClient;
  const pools: PgPool[] = [];
  const buses: PostgresRevocationBus[] = [];
  const pool = () => {
    const p = new pg.Pool({ connectionString: POSTGRES_URL, max: 3, application_name: channel });
    pools.push(p);
    return p;
  };
  /** The backends listening on the channel. */
  const listeners = async () =>
    (
      await admin.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND query ILIKE 'LISTEN%'",
        [channel],
      )
    ).rows.map((r) => r.pid);

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
  });
  afterAll(async () => {
    await Promise.all(buses.map((b) => b.close()));
    await Promise.all(pools.map((p) => p.end()));
    await admin.end();
  });

  it('refuses a channel that is not an identifier, and no connection at all', () => {
    expect(() => new PostgresRevocationBus(POSTGRES_URL, { channel: 'bad; DROP' })).toThrow(/lower-case identifier/);
    expect(() => new PostgresRevocationBus('')).toThrow(/needs a pg Pool/);
    expect(() => new PostgresRevocationBus(null as never)).toThrow(/needs a pg Pool/);
  });

  it('delivers a message to every listening instance (a pool, connection options), the publisher included', async () => {
    const [a, b] = [recorder(), recorder()];
    const busA = new PostgresRevocationBus(pool(), { channel });
    const busB = new PostgresRevocationBus(
      { connectionString: POSTGRES_URL, application_name: channel, max: 2 },
      { channel },
    );
    buses.push(busA, busB);
    await Promise.all([busA.subscribe(a.listener), busB.subscribe(b.listener)]);
    expect([a.states, b.states]).toEqual([[true], [true]]);
    await busB.publish('hello');
    await until(() => a.messages.length === 1 && b.messages.length === 1);
    expect(a.messages).toEqual(['hello']);
    await admin.query('SELECT pg_notify($1, $2)', [`${channel}_other`, 'not for us']);
    await busA.publish('second');
    await until(() => b.messages.length === 2);
    expect(b.messages).toEqual(['hello', 'second']);
  });

  it('with a TypeORM DataSource, uses its pool', async () => {
    const ds = new DataSource({ type: 'postgres', url: POSTGRES_URL, applicationName: channel });
    await ds.initialize();
    try {
      const r = recorder();
      const bus = new PostgresRevocationBus(ds, { channel });
      await bus.subscribe(r.listener);
      await bus.publish('from the data source');
      await until(() => r.messages.length === 1);
      await bus.close();
      expect(r.states).toEqual([true]);
    } finally {
      await ds.destroy();
    }
    const wrong = new PostgresRevocationBus({ driver: {}, options: { type: 'mysql' } }, { channel });
    await expect(wrong.publish('x')).rejects.toThrow(/not an initialized PostgreSQL data source/);
  });

  it('listens again after its backend is terminated (pg_terminate_backend), telling the listener', async () => {
    const r = recorder();
    const bus = new PostgresRevocationBus(pool(), { channel });
    buses.push(bus);
    await bus.subscribe(r.listener);
    const before = await listeners();
    await admin.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [before]);
    await until(() => r.states.length >= 2);
    expect(r.states.slice(0, 2)).toEqual([true, false]);
    expect(await until(() => r.states.at(-1) === true)).toBeLessThan(3000);
    await admin.query('SELECT pg_notify($1, $2)', [channel, 'after reconnect']);
    await until(() => r.messages.includes('after reconnect'));
  });

  it('close() returns its connection to the pool it was given and leaves the pool open', async () => {
    const p = pool();
    const r = recorder();
    const bus = new PostgresRevocationBus(p, { channel });
    await bus.subscribe(r.listener);
    expect(p.totalCount - p.idleCount).toBe(1);
    await bus.close();
    await until(() => p.totalCount === p.idleCount);
    expect((await p.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await admin.query('SELECT pg_notify($1, $2)', [channel, 'after close']);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(r.messages).not.toContain('after close');
    expect(r.states).toEqual([true]);
  });
});
