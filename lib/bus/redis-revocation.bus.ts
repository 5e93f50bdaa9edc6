import {
  DEFAULT_REVOCATION_CHANNEL,
  reconnectDelay,
  type RevocationBus,
  type RevocationBusListener,
} from './revocation-bus.js';

/**
 * The part of an ioredis client the bus uses: `publish`, and `duplicate` for the connection that
 * subscribes (a subscribed Redis connection runs nothing else). An `ioredis` `Redis` or `Cluster`
 * fits; the library does not depend on ioredis.
 */
export interface RedisPubSubClient {
  /** Sends a revocation to the channel (Redis `PUBLISH`). */
  publish(channel: string, message: string): Promise<unknown>;
  /** A new connection with the same options, for the subscription. */
  duplicate(): RedisSubscriberConnection;
}

/** The subscribing connection `duplicate()` returns (ioredis events: `ready`, `close`, `end`, `error`, `message`). */
export interface RedisSubscriberConnection {
  /** Redis `SUBSCRIBE`. */
  subscribe(...channels: string[]): Promise<unknown>;
  /** Connects a lazy client (`lazyConnect`). */
  connect?(): Promise<unknown>;
  /** Listens to a connection event. */
  on(event: string, listener: (...args: never[]) => void): unknown;
  /** Stops listening (to one event, or to all). */
  removeAllListeners(event?: string): unknown;
  /** Closes the connection. */
  disconnect(): void;
  readonly status?: string;
}

/** Options of {@link RedisRevocationBus}. */
export interface RedisRevocationBusOptions {
  /** The channel every instance publishes to and subscribes on. @default 'nestjs_auth_revocations' */
  channel?: string;
  /** How long (ms) `subscribe` waits for the first subscription before the app starts anyway. @default 3000 */
  connectTimeout?: number;
}

/**
 * Revocations between instances over Redis pub/sub. Publishes with the client it is given and
 * subscribes on a duplicate of it (`client.duplicate()`), which it reconnects when the connection is
 * lost and closes on shutdown; the given client stays the app's to close.
 *
 * ```ts
 * import Redis from 'ioredis';
 * AuthModule.forRoot({ ..., session: { cacheTtl: 60 }, revocationBus: new RedisRevocationBus(new Redis(url)) })
 * ```
 */
export class RedisRevocationBus implements RevocationBus {
  private readonly channel: string;
  private readonly connectTimeout: number;
  private subscriber: RedisSubscriberConnection | null = null;
  private listener: RevocationBusListener | null = null;
  private closed = false;
  private connected = false;
  private attempts = 0;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly client: RedisPubSubClient,
    options: RedisRevocationBusOptions = {},
  ) {
    if (!client || typeof client.publish !== 'function' || typeof client.duplicate !== 'function') {
      throw new TypeError(
        'RedisRevocationBus needs an ioredis client (with `publish` and `duplicate`), e.g. `new Redis(url)` from ioredis.',
      );
    }
    this.channel = options.channel ?? DEFAULT_REVOCATION_CHANNEL;
    this.connectTimeout = options.connectTimeout ?? 3000;
  }

  subscribe(listener: RevocationBusListener): Promise<void> {
    this.listener = listener;
    this.closed = false;
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.connectTimeout);
      this.open(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  async publish(payload: string): Promise<void> {
    await this.client.publish(this.channel, payload);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const subscriber = this.subscriber;
    this.subscriber = null;
    if (!subscriber) return;
    subscriber.removeAllListeners();
    subscriber.on('error', () => undefined);
    // An ended connection is closed already (ioredis would keep a 2 s timer to destroy it again).
    if (subscriber.status !== 'end') subscriber.disconnect();
  }

  /** Opens the subscribing connection; `onFirst` runs once it first listens. */
  private open(onFirst?: () => void): void {
    if (this.closed) return;
    // A Redis or Cluster duplicate (no options: their `duplicate` signatures differ); ioredis then
    // reconnects it by itself.
    const subscriber = this.client.duplicate();
    this.subscriber = subscriber;
    subscriber.on('message', (channel: string, message: unknown) => {
      if (channel === this.channel) this.listener?.message(typeof message === 'string' ? message : String(message));
    });
    subscriber.on('ready', () => {
      subscriber.subscribe(this.channel).then(
        () => {
          if (this.closed || this.subscriber !== subscriber) return;
          this.attempts = 0;
          this.setConnected(true);
          onFirst?.();
          onFirst = undefined;
        },
        // A failed SUBSCRIBE: drop the connection, the 'end'/'close' handlers try again.
        () => subscriber.disconnect(),
      );
    });
    subscriber.on('close', () => this.setConnected(false));
    // 'end': the client gave up reconnecting (its retryStrategy said so): a new connection, later.
    subscriber.on('end', () => {
      this.setConnected(false);
      if (this.closed || this.subscriber !== subscriber) return;
      subscriber.removeAllListeners();
      subscriber.on('error', () => undefined);
      this.retry = setTimeout(() => this.open(onFirst), reconnectDelay(this.attempts++));
      this.retry.unref();
    });
    // Errors show up as 'close' and reconnection; the message could hold the URL (credentials).
    subscriber.on('error', () => undefined);
    // Connect now even when the app's client is lazy (`lazyConnect`).
    if (subscriber.status === 'wait') subscriber.connect?.().catch(() => undefined);
  }

  private setConnected(connected: boolean): void {
    if (this.closed || connected === this.connected) return;
    this.connected = connected;
    this.listener?.state(connected);
  }
}
