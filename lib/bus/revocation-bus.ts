import type { FactoryProvider, InjectionToken, ModuleMetadata, Type } from '@nestjs/common';

/**
 * What a {@link RevocationBus} tells the module: each message published by any instance (its own
 * included), and whether it is subscribed right now.
 */
export interface RevocationBusListener {
  /** A message as published (a short string; the session layer decodes and checks it). */
  message(payload: string): void;
  /**
   * `true` once the bus listens (and again after each reconnection), `false` when the connection
   * is lost: messages published in between are missed.
   */
  state(connected: boolean): void;
}

/**
 * A publish/subscribe channel shared by every instance of the app, over which revocations (a
 * signed-out session, a user's sessions ended, a revoked JWT) reach the other instances' session
 * caches: `RedisRevocationBus` (Redis pub/sub) or `PostgresRevocationBus` (PostgreSQL
 * `LISTEN/NOTIFY`). Given as the `revocationBus` module setting.
 *
 * This interface is also the DI token (as `RateLimitStore` is).
 */
export interface RevocationBus {
  /**
   * Starts listening and keeps listening: reconnects after a connection loss, calling
   * `listener.state`. Resolves once the first attempt succeeded or failed; never rejects.
   */
  subscribe(listener: RevocationBusListener): Promise<void>;
  /** Sends a message to every subscribed instance. Rejects when it could not be sent. */
  publish(payload: string): Promise<void>;
  /** Stops listening and closes the connections the bus opened (never the client or pool it was given). */
  close(): Promise<void>;
}

/**
 * The `revocationBus` module setting: an instance, or a provider Nest builds so it can inject the
 * app's Redis client, pg pool or TypeORM `DataSource`: a class, `{ useClass }`,
 * `{ useFactory, inject }` or `{ useExisting }`.
 *
 * ```ts
 * AuthModule.forRoot({ ..., revocationBus: new RedisRevocationBus(redis) })
 * AuthModule.forRoot({ ..., revocationBus: { useFactory: (ds: DataSource) => new PostgresRevocationBus(ds), inject: [DataSource] } })
 * ```
 */
export type RevocationBusOption =
  | RevocationBus
  | Type<RevocationBus>
  | { useClass: Type<RevocationBus>; imports?: ModuleMetadata['imports'] }
  | (Pick<FactoryProvider<RevocationBus | null>, 'useFactory' | 'inject'> & { imports?: ModuleMetadata['imports'] })
  | { useExisting: InjectionToken; imports?: ModuleMetadata['imports'] };

/** DI token of the revocation bus (same name as the interface); its value is `null` without a bus. */
export const RevocationBus: unique symbol = Symbol('nestjs-auth:RevocationBus');

/** The default channel name (a PostgreSQL identifier too). */
export const DEFAULT_REVOCATION_CHANNEL = 'nestjs_auth_revocations';

/** Delays between reconnection attempts: doubling from 100 ms up to 5 s. */
export function reconnectDelay(attempt: number): number {
  return Math.min(5000, 100 * 2 ** Math.min(attempt, 6));
}

/** True for an object with `publish`, `subscribe` and `close` functions (what a `revocationBus` instance must be). */
export function isRevocationBus(value: unknown): value is RevocationBus {
  const bus = value as Partial<Record<keyof RevocationBus, unknown>> | null;
  return (
    !!bus &&
    typeof bus === 'object' &&
    typeof bus.publish === 'function' &&
    typeof bus.subscribe === 'function' &&
    typeof bus.close === 'function'
  );
}
