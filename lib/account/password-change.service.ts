import { Inject, Injectable } from '@nestjs/common';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { AuthEvents } from '../core/auth-events.js';
import { AuthConfigurationError, InvalidRequest, WrongPassword } from '../errors/auth.errors.js';
import { hashPassword, PASSWORD_DEFAULTS, passwordStoreOf, verifyPassword } from '../methods/credentials/index.js';
import type { PasswordStore } from '../methods/credentials/credentials.types.js';

/** Shortest new password unless `passwordStore.minLength` says otherwise. */
export const DEFAULT_PASSWORD_MIN_LENGTH = 8;

/**
 * Setting or changing a credentials user's password. The library stores no hashes: the app's
 * `passwordStore` (an option of its `Credentials` provider) reads and writes them; the hash is
 * `hashPassword`'s (scrypt, PHC string) and the current password is checked with `verifyPassword`.
 */
@Injectable()
export class PasswordChangeService {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly events: AuthEvents,
  ) {}

  /** The `passwordStore` of the credentials provider that has one, if any. */
  get store(): PasswordStore | undefined {
    return passwordStoreOf(this.config);
  }

  /** Whether the user has a password now (the page asks for the current one only then). */
  async hasPassword(userId: string): Promise<boolean> {
    const store = this.store;
    return Boolean(store && (await store.getPasswordHash(userId)));
  }

  /**
   * Stores a new password for `userId`. When the user has one and `requireCurrent` is true (the
   * HTTP API), `currentPassword` must verify; given a `currentPassword`, it must verify in any case.
   * Otherwise (app code after its own check, e.g. the "forgot password" recipe) the old one is replaced.
   *
   * @throws WrongPassword, InvalidRequest (too short, too long, not text)
   */
  async set(
    userId: string,
    newPassword: unknown,
    currentPassword: unknown,
    { requireCurrent }: { requireCurrent: boolean },
  ): Promise<void> {
    const store = this.store;
    if (!store)
      throw new AuthConfigurationError([
        'setting passwords needs a credentials provider with `passwordStore` (where your app keeps the hashes)',
      ]);
    if (typeof userId !== 'string' || userId === '') throw new InvalidRequest('There is no such user.');
    const min = store.minLength ?? DEFAULT_PASSWORD_MIN_LENGTH;
    if (typeof newPassword !== 'string') throw new InvalidRequest('Enter a new password.');
    const length = [...newPassword.normalize('NFKC')].length;
    if (length < min) throw new InvalidRequest(`The new password needs at least ${min} characters.`);
    if (Buffer.byteLength(newPassword.normalize('NFKC'), 'utf8') > PASSWORD_DEFAULTS.maxPasswordBytes)
      throw new InvalidRequest(`The new password is longer than ${PASSWORD_DEFAULTS.maxPasswordBytes} bytes.`);

    const current = await store.getPasswordHash(userId);
    if (current && (requireCurrent || currentPassword !== undefined)) {
      // verifyPassword never throws and takes the same time for any wrong input.
      const ok = typeof currentPassword === 'string' && (await verifyPassword(currentPassword, current));
      if (!ok) throw new WrongPassword('The current password is wrong.');
    }
    await store.setPasswordHash(userId, await hashPassword(newPassword));
    this.events.emit('accountChange', { action: 'password.set', userId });
  }
}
