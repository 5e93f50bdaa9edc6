import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { AdapterUser } from '../adapters/adapter.interface.js';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { AdapterService } from '../core/adapter.service.js';
import { AccountNotLinked, InvalidProvider, OAuthAccountNotLinked } from '../errors/auth.errors.js';
import type { Account } from '../types/common.types.js';
import { SessionService, type AuthUser } from '../session/session.service.js';
import type { ResolvedSignIn, SignInInput } from './sign-in.types.js';
import { pickUser, toAdapterAccount, UserCreationService } from './user-creation.service.js';

/**
 * Decides which stored user a sign-in is for, by the account type's rules: found by account (or
 * by address for email), linked to the signed-in user, created, or refused. Users are identified
 * by (provider, providerAccountId), never by email alone.
 */
@Injectable()
export class AccountLinkingService {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly adapters: AdapterService,
    private readonly sessions: SessionService,
    private readonly users: UserCreationService,
  ) {}

  /**
   * The user of a sign-in with storage. `known` is the user already found for the account (by
   * address for email); `currentUser` the user the request is signed in as, if any.
   */
  async resolve(input: SignInInput, known: AdapterUser | null, currentUser: AuthUser | null): Promise<ResolvedSignIn> {
    const { account } = input;
    switch (account.type) {
      case 'email':
        return this.emailSignIn(input, known, currentUser);
      case 'credentials':
        return this.credentialsSignIn(input, known);
      case 'oauth':
      case 'oidc':
      case 'webauthn':
        return this.accountSignIn(input, known, currentUser);
      default:
        throw new InvalidProvider(`Sign-in with a provider of type ${JSON.stringify(account.type)} is not supported.`);
    }
  }

  /**
   * Email (reference 9.2): existing user by address, else a new one; `emailVerified` set on first
   * success. A user whose address was never confirmed and who has a passkey is refused unless this
   * browser is signed in as that user: a passkey sign-up asks for an address and proves nothing, so
   * anyone could have made that account, and the link's owner must not be signed into it (the
   * account creator's passkey and sessions would then reach their mail's account).
   */
  private async emailSignIn(
    input: SignInInput,
    known: AdapterUser | null,
    currentUser: AuthUser | null,
  ): Promise<ResolvedSignIn> {
    const adapter = this.adapters.require('getUserByEmail', 'createUser', 'updateUser');
    const email = input.user.email!;
    if (known) {
      if (known.emailVerified) return { user: known, isNewUser: false };
      if (currentUser?.id !== known.id && (await this.hasPasskeys(known.id))) {
        throw new AccountNotLinked(
          'This address belongs to an account that was created with a passkey and never confirmed. Sign in with that passkey, then sign in with this address from the same browser to confirm it.',
        );
      }
      const user = await adapter.updateUser({ id: known.id, emailVerified: new Date() });
      this.sessions.emit('updateUser', { user });
      return { user, isNewUser: false };
    }
    try {
      const user = await adapter.createUser({
        ...pickUser(input.user),
        id: randomUUID(),
        email,
        emailVerified: new Date(),
      });
      return { user, isNewUser: true, created: true };
    } catch (error) {
      // Two links for one new address clicked at once: the loser finds the winner's user.
      const winner = await adapter.getUserByEmail(email);
      if (winner) return { user: winner, isNewUser: false };
      throw error;
    }
  }

  private async hasPasskeys(userId: string): Promise<boolean> {
    if (!this.adapters.has('listAuthenticatorsByUserId')) return false;
    return (await this.adapters.require('listAuthenticatorsByUserId').listAuthenticatorsByUserId(userId)).length > 0;
  }

  /**
   * Credentials with database sessions: the user `authorize` returned, found through its
   * credentials account, else the stored user with that id, else created; the account is linked.
   */
  private async credentialsSignIn(input: SignInInput, known: AdapterUser | null): Promise<ResolvedSignIn> {
    if (known) return { user: known, isNewUser: false };
    this.adapters.require('getUserByAccount', 'createUser', 'linkAccount');
    const account = toAdapterAccount(input.account, '');
    const existing =
      input.user.id && this.adapters.has('getUser')
        ? await this.adapters.require('getUser').getUser(input.user.id)
        : null;
    if (existing) {
      const linked = { ...account, userId: existing.id };
      await this.users.linkOrFindWinner(linked);
      return { user: existing, isNewUser: false, linked };
    }
    return this.users.createUserWithAccount(input, account);
  }

  /** OAuth/OIDC (reference 9.4) and WebAuthn (9.3) accounts. */
  private async accountSignIn(
    input: SignInInput,
    known: AdapterUser | null,
    currentUser: AuthUser | null,
  ): Promise<ResolvedSignIn> {
    const { account } = input;
    const stored = input.storedAccount ?? account;
    const NotLinked = account.type === 'webauthn' ? AccountNotLinked : OAuthAccountNotLinked;
    if (known) {
      if (currentUser && currentUser.id !== known.id) {
        throw new NotLinked(
          'This account is already linked to another user. Sign out first, or sign in with that user.',
        );
      }
      return { user: known, isNewUser: false };
    }
    const adapter = this.adapters.require('getUserByAccount', 'getUserByEmail', 'createUser', 'linkAccount');
    if (currentUser) {
      // Signed in: link the new account to the current user, if storage holds that user. A JWT
      // session can name a user it does not (a credentials sign-in, a deleted user): nothing to link to.
      const user = this.adapters.has('getUser') ? await this.adapters.require('getUser').getUser(currentUser.id) : null;
      if (!user && this.adapters.has('getUser')) {
        throw new NotLinked(
          'You are signed in as a user this app does not store (for example after a password sign-in with JWT sessions), so no account can be linked to it. Sign out first, then sign in with this account.',
        );
      }
      const linked = toAdapterAccount(stored, currentUser.id);
      await this.users.linkOrFindWinner(linked);
      return { user: user ?? currentUser, isNewUser: false, linked };
    }
    const email = input.user.email;
    const byEmail = email ? await adapter.getUserByEmail(email) : null;
    if (byEmail) {
      const dangerous =
        (this.providerConfig(account.provider) as { allowDangerousEmailAccountLinking?: boolean })
          .allowDangerousEmailAccountLinking === true;
      if (!dangerous || account.type === 'webauthn') {
        // A concurrent first sign-in of this same account may have created the user and not yet
        // linked the account: give it a moment before refusing (works across instances).
        const winner = await this.awaitAccountOwner(account);
        if (winner) return { user: winner, isNewUser: false };
        throw new NotLinked(
          'Another account already uses this email address. Sign in the way you did before, then link this account.',
        );
      }
      const linked = toAdapterAccount(stored, byEmail.id);
      await this.users.linkOrFindWinner(linked);
      return { user: byEmail, isNewUser: false, linked };
    }
    return this.users.createUserWithAccount(input, toAdapterAccount(stored, ''));
  }

  /** Re-reads the account's owner a few times over ~300 ms; null if it stays unlinked. */
  private async awaitAccountOwner(account: Account): Promise<AdapterUser | null> {
    const adapter = this.adapters.require('getUserByAccount');
    for (const delay of [20, 40, 80, 160]) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      const owner = await adapter.getUserByAccount(account);
      if (owner) return owner;
    }
    return null;
  }

  private providerConfig(id: string): Record<string, unknown> {
    return this.config.providerById.get(id)?.config ?? {};
  }
}
