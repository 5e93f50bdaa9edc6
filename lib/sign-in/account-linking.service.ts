import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { AdapterUser } from '../adapters/adapter.interface.js';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { AdapterService } from '../core/adapter.service.js';
import { AuthEvents } from '../core/auth-events.js';
import { AccountNotLinked, InvalidProvider, OAuthAccountNotLinked } from '../errors/auth.errors.js';
import type { Account } from '../types/common.types.js';
import type { ResolvedSignIn, SignInInput } from './sign-in.types.js';
import { storeSignInTokens } from './sign-in-tokens.js';
import { pickUser, toAdapterAccount, UserCreationService } from './user-creation.service.js';
import { WaysInGate, type ActiveSession } from './ways-in.gate.js';

/**
 * Decides which stored user a sign-in is for, by the account type's rules: found by account (or
 * by address for email), linked to the signed-in user, created, or refused. Users are identified
 * by (provider, providerAccountId), never by email alone.
 *
 * Two rules about ways into an existing user live here, once for every sign-in method:
 * - Whatever a sign-in attaches to the signed-in user (a new OAuth/OIDC account or passkey, the
 *   confirmation of their unverified address) passes the {@link WaysInGate} first: a session older
 *   than `account.recentSignInMaxAge` is refused with `ReauthenticationRequired`, nothing written.
 * - An address nobody proved never merges: a user whose `emailVerified` is null (created from an
 *   identity provider that did not vouch for the address, by a passkey sign-up, by `authorize`)
 *   is not reached through that address. A magic link for it gives the mailbox's owner a new user
 *   and takes the address off the unverified one; `allowDangerousEmailAccountLinking` links only
 *   into a user whose address was proven.
 */
@Injectable()
export class AccountLinkingService {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly adapters: AdapterService,
    private readonly events: AuthEvents,
    private readonly users: UserCreationService,
    private readonly gate: WaysInGate,
  ) {}

  /**
   * The user of a sign-in with storage. `known` is the user already found for the account (by
   * address for email); `current` the cookie session the request is signed in with, if any.
   */
  async resolve(input: SignInInput, known: AdapterUser | null, current: ActiveSession | null): Promise<ResolvedSignIn> {
    const { account } = input;
    switch (account.type) {
      case 'email':
        return this.emailSignIn(input, known, current);
      case 'credentials':
        return this.credentialsSignIn(input, known);
      case 'oauth':
      case 'oidc':
      case 'webauthn':
        return this.accountSignIn(input, known, current);
      default:
        throw new InvalidProvider(`Sign-in with a provider of type ${JSON.stringify(account.type)} is not supported.`);
    }
  }

  /**
   * Email (reference 9.2): existing user by address, else a new one; `emailVerified` set on first
   * success. The link proves the mailbox, so it reaches a user only when that user's address was
   * proven too (`emailVerified`), or when this browser is signed in as that user (recently: the
   * confirmed address is a new way in). A user whose address nobody proved (an identity provider
   * that did not vouch for it, a passkey sign-up, which asks for an address and proves nothing)
   * could have been made by anyone: the mailbox's owner gets a user of their own instead, and the
   * address leaves the unverified user (who keeps its other ways in).
   */
  private async emailSignIn(
    input: SignInInput,
    known: AdapterUser | null,
    current: ActiveSession | null,
  ): Promise<ResolvedSignIn> {
    const adapter = this.adapters.require('getUserByEmail', 'createUser', 'updateUser');
    if (known) {
      if (known.emailVerified) return { user: known, isNewUser: false };
      if (current?.user.id !== known.id) return this.takeAddress(input, known);
      await this.gate.check(current, 'confirm-address');
      const user = await adapter.updateUser({ id: known.id, emailVerified: new Date() });
      this.events.emit('updateUser', { user });
      return { user, isNewUser: false };
    }
    return this.createEmailUser(input);
  }

  /** A new user for a proven address; when two links for it are followed at once, the loser finds the winner. */
  private async createEmailUser(input: SignInInput): Promise<ResolvedSignIn> {
    const adapter = this.adapters.require('getUserByEmail', 'createUser');
    const email = input.user.email!;
    try {
      const user = await adapter.createUser({
        ...pickUser(input.user),
        id: randomUUID(),
        email,
        emailVerified: new Date(),
      });
      return { user, isNewUser: true, created: true };
    } catch (error) {
      const winner = await adapter.getUserByEmail(email);
      if (winner?.emailVerified) return { user: winner, isNewUser: false };
      throw error;
    }
  }

  /**
   * The magic link's owner takes the address from `holder`, a user that holds it unproven: the
   * holder's address is cleared (`events.updateUser`), then the owner's user is created. If the
   * creation fails for another reason than a concurrent link for the same address, the holder's
   * address is put back: the sign-in fails and changes nothing.
   */
  private async takeAddress(input: SignInInput, holder: AdapterUser): Promise<ResolvedSignIn> {
    const adapter = this.adapters.require('updateUser');
    const released = await adapter.updateUser({ id: holder.id, email: null as unknown as string });
    this.config.logger.debug('unverified_address_released', { userId: holder.id });
    try {
      const resolved = await this.createEmailUser(input);
      this.events.emit('updateUser', { user: released });
      return resolved;
    } catch (error) {
      await Promise.resolve(adapter.updateUser({ id: holder.id, email: holder.email })).catch(() => undefined);
      throw error;
    }
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

  /**
   * OAuth/OIDC (reference 9.4) and WebAuthn (9.3) accounts. Signed in, an account nobody has yet is
   * linked to the signed-in user exactly as the explicit link would (through the gate, to a stored
   * user); signed out, an address another user holds is refused, unless the provider allows
   * dangerous linking and that user's address was proven. A new user's address counts as proven
   * when the provider vouched for it (`email_verified: true`).
   */
  private async accountSignIn(
    input: SignInInput,
    known: AdapterUser | null,
    current: ActiveSession | null,
  ): Promise<ResolvedSignIn> {
    const { account } = input;
    const stored = input.storedAccount ?? account;
    const NotLinked = account.type === 'webauthn' ? AccountNotLinked : OAuthAccountNotLinked;
    const currentUser = current?.user;
    if (known) {
      if (currentUser && currentUser.id !== known.id) {
        throw new NotLinked(
          'This account is already linked to another user. Sign out first, or sign in with that user.',
        );
      }
      // The provider's new tokens replace the stored ones (restoring getAccessToken after invalid_grant).
      if (await storeSignInTokens(this.adapters, stored, known.id))
        this.config.logger.debug('account_tokens_updated', { provider: stored.provider });
      return { user: known, isNewUser: false };
    }
    const adapter = this.adapters.require('getUserByAccount', 'getUserByEmail', 'createUser', 'linkAccount');
    if (current && currentUser) {
      // Signed in: link the new account to the current user, if storage holds that user. A JWT
      // session can name a user it does not (a credentials sign-in, a deleted user): nothing to link to.
      const user = this.adapters.has('getUser') ? await this.adapters.require('getUser').getUser(currentUser.id) : null;
      if (!user && this.adapters.has('getUser')) {
        throw new NotLinked(
          'You are signed in as a user this app does not store (for example after a password sign-in with JWT sessions), so no account can be linked to it. Sign out first, then sign in with this account.',
        );
      }
      await this.gate.check(current, account.type === 'webauthn' ? 'add-passkey' : 'link-account');
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
      if (!dangerous || account.type === 'webauthn' || !byEmail.emailVerified) {
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
    return this.users.createUserWithAccount(input, toAdapterAccount(stored, ''), vouchesForAddress(input));
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

/**
 * Whether the identity provider vouched for the address it gave: an OAuth/OIDC profile whose
 * `email_verified` is `true` (the boolean, as OpenID Connect defines it) for that same address.
 * Anything else (absent, `false`, the string "true", another address) is not a proof.
 */
export function vouchesForAddress(input: SignInInput): boolean {
  const { account, profile, user } = input;
  if (account.type !== 'oauth' && account.type !== 'oidc') return false;
  if (profile?.email_verified !== true || typeof user.email !== 'string' || typeof profile.email !== 'string')
    return false;
  return profile.email.trim().toLowerCase() === user.email.trim().toLowerCase();
}
