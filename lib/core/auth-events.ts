import { Inject, Injectable } from '@nestjs/common';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { EventError } from '../errors/auth.errors.js';

type Events = ResolvedAuthConfig['events'];

/** The name of an `events.*` callback. */
export type AuthEventName = keyof Events;

/** What the `events.<K>` callback receives. */
export type AuthEventMessage<K extends AuthEventName> = Parameters<NonNullable<Events[K]>>[0];

/**
 * The one way the library fires the `events.*` callbacks (createUser, linkAccount, signIn, signOut,
 * session, updateUser, accountChange, unlinkAccount, deleteUser, refreshTokenError). A handler runs
 * after the current turn; one that throws or rejects is logged as `EventError` and never breaks the
 * request.
 */
@Injectable()
export class AuthEvents {
  /** The module's own listeners (e.g. ending native apps' sign-ins on an account change), by event. */
  private readonly listeners = new Map<AuthEventName, ((m: unknown) => unknown)[]>();

  constructor(@Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig) {}

  /** Adds one of the module's own listeners of `name`; it runs as the application's handler does. */
  listen<K extends AuthEventName>(name: K, listener: (message: AuthEventMessage<K>) => unknown): void {
    const list = this.listeners.get(name) ?? [];
    list.push(listener as (m: unknown) => unknown);
    this.listeners.set(name, list);
  }

  /** Fires `events[name]` with `message`, if the application set it, and the module's listeners. Never throws. */
  emit<K extends AuthEventName>(name: K, message: AuthEventMessage<K>): void {
    for (const listener of this.listeners.get(name) ?? [])
      Promise.resolve()
        .then(() => listener(message))
        .catch((error: unknown) =>
          this.config.logger.error(
            new EventError(`The module's ${String(name)} listener failed: ${(error as Error)?.message ?? error}`),
          ),
        );
    const handler = this.config.events[name] as ((m: unknown) => unknown) | undefined;
    if (!handler) return;
    Promise.resolve()
      .then(() => handler(message))
      .catch((error) =>
        this.config.logger.error(
          new EventError(`The ${String(name)} event handler threw: ${(error as Error)?.message ?? error}`),
        ),
      );
  }
}
