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
  constructor(@Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig) {}

  /** Fires `events[name]` with `message`, if the application set it. Never throws. */
  emit<K extends AuthEventName>(name: K, message: AuthEventMessage<K>): void {
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
