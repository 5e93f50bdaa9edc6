import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Optional, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { isRevocationBus, RevocationBus } from '../bus/revocation-bus.js';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { AuthConfigurationError } from '../errors/auth.errors.js';
import { decodeMessage, encodeMessage, keyedHash, messageKey, type RevocationKind } from './revocation-message.js';

/** Counters of the revocation bus, for monitoring (`RevocationBroadcast.stats()`). */
export interface RevocationBusStats {
  /** Subscribed right now (always true without a bus). */
  connected: boolean;
  published: number;
  /** Publications that failed (the revocation still applied here). */
  publishFailures: number;
  /** Messages from other instances applied. */
  applied: number;
  /** This instance's own messages, coming back, ignored. */
  own: number;
  /** Messages that were not revocation messages, ignored. */
  malformed: number;
  /** Times the connection was lost. */
  disconnects: number;
}

/** What a receiving part does with a revocation: `reset` after the connection changed (messages may be missed). */
export interface RevocationHandlers {
  s?: (key: string) => void;
  u?: (key: string) => void;
  j?: (key: string, until: number) => void;
  k?: (key: string) => void;
  reset?: () => void;
}

/**
 * Sends this instance's revocations to the other instances over the `revocationBus` and applies
 * theirs, with the session cache and JWT revocation as its two users. Messages carry an HMAC of the
 * token or id under a key derived from the secret, never the value; a message from this instance is
 * ignored when it comes back. Without a bus every method is a no-op and {@link live} stays true.
 * While the bus is not subscribed {@link live} is false: the cache then serves no database session.
 */
@Injectable()
export class RevocationBroadcast implements OnApplicationBootstrap, OnModuleDestroy {
  /** True when a bus is configured. */
  readonly enabled: boolean;
  /** False while a configured bus is not subscribed (at start, after a connection loss). */
  live: boolean;
  private readonly origin = randomBytes(16).toString('base64url');
  /** The key of the message hashes, derived on first use. */
  private key?: Buffer;
  private readonly handlers: RevocationHandlers[] = [];
  private readonly counts = { published: 0, publishFailures: 0, applied: 0, own: 0, malformed: 0, disconnects: 0 };

  /**
   * Nest injects this service; an app does not construct it.
   *
   * @internal
   */
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    @Optional() @Inject(RevocationBus) private readonly bus: RevocationBus | null = null,
  ) {
    if (bus !== null && bus !== undefined && !isRevocationBus(bus))
      throw new AuthConfigurationError([
        'The revocation bus must have publish, subscribe and close (new RedisRevocationBus(client) or new PostgresRevocationBus(pool)).',
      ]);
    this.enabled = !!bus;
    this.live = !bus;
  }

  /**
   * Registers what to do with other instances' revocations.
   *
   * @internal
   */
  on(handlers: RevocationHandlers): void {
    this.handlers.push(handlers);
  }

  /**
   * The keyed hash of `value`: how a revocation of it is named on the bus and in the receivers' indexes.
   *
   * @internal
   */
  keyOf(kind: RevocationKind, value: string): string {
    return keyedHash((this.key ??= messageKey(this.config.secrets[0]!)), kind, value);
  }

  /**
   * Tells the other instances. Never rejects (a failure is counted and logged); the promise, which
   * callers may leave alone, settles once the message is sent.
   *
   * @internal
   */
  publish(kind: RevocationKind, key: string, until?: number): Promise<void> {
    if (!this.bus) return Promise.resolve();
    const payload = encodeMessage({ origin: this.origin, kind, key, until });
    this.counts.published++;
    return this.bus.publish(payload).catch(() => {
      this.counts.publishFailures++;
      this.config.logger.warn('revocation_bus_publish_failed');
    });
  }

  /** Counters, for monitoring. */
  stats(): RevocationBusStats {
    return { connected: this.live, ...this.counts };
  }

  /**
   * Applies one message from the bus (public for the specs).
   *
   * @internal
   */
  receive(payload: unknown): void {
    const message = decodeMessage(payload);
    if (!message) {
      this.counts.malformed++;
      return;
    }
    if (message.origin === this.origin) {
      this.counts.own++;
      return;
    }
    this.counts.applied++;
    for (const h of this.handlers) {
      if (message.kind === 'j') h.j?.(message.key, message.until!);
      else h[message.kind]?.(message.key);
    }
  }

  /**
   * The bus's connection changed: what was cached may have missed messages, so it goes.
   *
   * @internal
   */
  connection(connected: boolean): void {
    if (!this.bus) return;
    if (!connected && this.live) this.counts.disconnects++;
    this.live = connected;
    for (const h of this.handlers) h.reset?.();
    if (!connected) this.config.logger.warn('revocation_bus_disconnected');
  }

  /**
   * Nest calls this at bootstrap: subscribes to the bus.
   *
   * @internal
   */
  async onApplicationBootstrap(): Promise<void> {
    if (!this.bus) return;
    await this.bus.subscribe({ message: (payload) => this.receive(payload), state: (c) => this.connection(c) });
    if (!this.live) this.config.logger.warn('revocation_bus_not_connected');
  }

  /**
   * Nest calls this at shutdown: closes the bus.
   *
   * @internal
   */
  async onModuleDestroy(): Promise<void> {
    if (!this.bus) return;
    this.live = false;
    await this.bus.close();
  }
}
