import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { AdapterAccount, AdapterUser } from '../adapters/adapter.interface.js';
import { AdapterService } from '../core/adapter.service.js';
import { OAuthAccountNotLinked } from '../errors/auth.errors.js';
import type { Account, User } from '../types/common.types.js';
import type { ResolvedSignIn, SignInInput } from './sign-in.types.js';

/**
 * Writes users and account links for SignInService: a new user and its account as one unit, a
 * link that tolerates the same link made concurrently, and the undo of a created user.
 */
@Injectable()
export class UserCreationService {
  constructor(private readonly adapters: AdapterService) {}

  /**
   * Creates the user and links the account as one unit: if linking fails the user is deleted again.
   * When two first sign-ins of the same account race, the loser signs in as the winner's user.
   * `addressProven`: the provider vouched for the address, so `emailVerified` is set (else null).
   */
  async createUserWithAccount(
    input: SignInInput,
    account: AdapterAccount,
    addressProven = false,
  ): Promise<ResolvedSignIn> {
    const adapter = this.adapters.require('getUserByAccount', 'createUser', 'linkAccount');
    const profile = pickUser(input.user);
    let user: AdapterUser;
    try {
      user = await adapter.createUser({
        ...profile,
        // Credentials: the id authorize() returned. WebAuthn: the id the server generated and sealed in
        // the challenge (the passkey's user handle is derived from it). Never a client-chosen id.
        id:
          (input.account.type === 'credentials' || input.account.type === 'webauthn') && input.user.id
            ? input.user.id
            : randomUUID(),
        email: (profile.email ?? null) as string,
        emailVerified: addressProven && profile.email ? new Date() : null,
      });
    } catch (error) {
      const winner = await adapter.getUserByAccount(account);
      if (winner) return { user: winner, isNewUser: false };
      throw error;
    }
    const linked = { ...account, userId: user.id };
    try {
      await adapter.linkAccount(linked);
    } catch (error) {
      await this.undoCreate(user.id);
      const winner = await adapter.getUserByAccount(account);
      if (winner) return { user: winner, isNewUser: false };
      throw error;
    }
    return { user, isNewUser: true, linked, created: true };
  }

  /** Links the account; the same link made concurrently is fine, a link to another user is refused. */
  async linkOrFindWinner(account: AdapterAccount): Promise<void> {
    const adapter = this.adapters.require('linkAccount', 'getUserByAccount');
    try {
      await adapter.linkAccount(account);
    } catch (error) {
      const owner = await adapter.getUserByAccount(account);
      if (owner?.id === account.userId) return; // the same link, made concurrently
      if (owner) throw new OAuthAccountNotLinked('This account was just linked to another user.');
      throw error;
    }
  }

  /** Deletes a user this sign-in created, when the adapter can (best effort). */
  async undoCreate(userId: string): Promise<void> {
    if (!this.adapters.has('deleteUser')) return;
    try {
      await this.adapters.require('deleteUser').deleteUser(userId);
    } catch {
      // best effort: the original error is the one to report
    }
  }
}

/** The user fields that are stored (not whatever else a profile carried). */
export function pickUser(user: User): Pick<User, 'name' | 'email' | 'image'> {
  return { name: user.name ?? null, email: user.email ?? null, image: user.image ?? null };
}

/** The account as stored: tokens kept, `type` as given (credentials accounts included, see ARCHITECTURE.md). */
export function toAdapterAccount(account: Account, userId: string): AdapterAccount {
  const { userId: _ignored, ...rest } = account;
  return { ...rest, userId } as AdapterAccount;
}
