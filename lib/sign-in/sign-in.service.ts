import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { AdapterAccount, AdapterUser } from '../adapters/adapter.interface.js';
import { AdapterService } from '../core/adapter.service.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import {
  AccessDenied,
  AccountNotLinked,
  AuthError,
  InvalidProvider,
  OAuthAccountNotLinked,
} from '../errors/auth.errors.js';
import type { Account, Profile, User } from '../types/common.types.js';
import { toAbsolute } from '../core/callback-url.js';
import type { AuthResponse } from '../types/http.types.js';
import type { ProviderContext } from '../core/request-context.js';
import { SessionService, type AuthUser } from '../session/session.service.js';

/** What a flow hands over once the provider has proven who the user is. */
export interface SignInInput {
  /** What `profile()` / `authorize()` / the email / the passkey gave (the id may be absent). */
  user: User;
  /**
   * `{ provider, providerAccountId, type, ...tokens }`, as the `signIn` and `jwt` callbacks and the
   * `signIn` event see it (OAuth: the whole token response, as Auth.js passes it).
   */
  account: Account;
  /** The account row to store when linking (OAuth: what the provider's `account()` keeps); default `account`. */
  storedAccount?: Account;
  /** The provider's raw profile (oauth/oidc). */
  profile?: Profile;
  email?: { verificationRequest?: boolean };
  credentials?: Record<string, unknown>;
  /**
   * Runs once the user and account are resolved and before the session starts (e.g. storing a new
   * passkey). If it throws for a user created by this sign-in, the user is deleted again.
   */
  afterUser?: (user: AdapterUser | AuthUser, isNewUser: boolean) => Promise<void>;
}

interface Resolved {
  user: AdapterUser | (User & { id: string });
  isNewUser: boolean;
  /** The account written by this sign-in (for the linkAccount event). */
  linked?: AdapterAccount;
  created?: boolean;
}

/**
 * Completes every sign-in: the `signIn` callback, finding, creating or linking the user by the
 * account type's rules, a new session (the previous one is ended: no fixation), events, and the
 * redirect. Users are identified by (provider, providerAccountId), never by email alone.
 */
@Injectable()
export class SignInService {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly adapters: AdapterService,
    private readonly sessions: SessionService,
  ) {}

  async completeSignIn(ctx: ProviderContext, input: SignInInput): Promise<AuthResponse> {
    const { account, profile } = input;
    if (!account?.providerAccountId || !account.type) {
      throw new InvalidProvider('The sign-in returned no account id; check the provider\'s profile() returns an `id`.');
    }
    const stateful = this.adapters.raw !== null && (account.type !== 'credentials' || this.config.session.strategy === 'database');
    const current = await this.sessions.read({ cookies: ctx.request.cookies, authorization: undefined, secure: ctx.secure });
    const currentUser = current.status === 'active' && current.user.id ? current.user : null;

    // The user the signIn callback sees: the stored one when the account is known.
    let known: AdapterUser | null = null;
    if (stateful && account.type !== 'email') {
      known = await this.adapters.require('getUserByAccount').getUserByAccount(account);
    } else if (stateful && account.type === 'email' && input.user.email) {
      known = await this.adapters.require('getUserByEmail').getUserByEmail(input.user.email);
    }
    const callbackUser = known ?? this.statelessUser(input.user, account);
    await this.runSignInCallback(ctx, { user: callbackUser, account, profile, email: input.email, credentials: input.credentials as never });

    const resolved = stateful
      ? await this.loginOrRegister(input, known, currentUser)
      : { user: this.statelessUser(input.user, account), isNewUser: false };

    if (input.afterUser) {
      try {
        await input.afterUser(resolved.user as AdapterUser, resolved.isNewUser);
      } catch (error) {
        if (resolved.created) await this.undoCreate(resolved.user.id);
        throw error;
      }
    }

    // A new session on every sign-in: end the one the request came with (database strategy, or a
    // JWT with `session.jwtRevocation`).
    if (current.status === 'active' && !current.bearer && (current.strategy === 'database' || this.config.session.jwtRevocation)) {
      await this.sessions.revoke(current.sessionToken).catch(() => undefined);
    }
    const cookies = await this.sessions.create(ctx, resolved.user, { account, profile, isNewUser: resolved.isNewUser });

    if (resolved.created) this.sessions.emit('createUser', { user: resolved.user });
    if (resolved.linked) this.sessions.emit('linkAccount', { user: resolved.user, account: resolved.linked, profile: input.user });
    this.sessions.emit('signIn', { user: resolved.user, account, profile, isNewUser: resolved.isNewUser });

    const newUserPage = this.config.pages.newUser;
    const redirect =
      resolved.isNewUser && newUserPage && account.type !== 'credentials'
        ? withQuery(toAbsolute(newUserPage, ctx.origin), { callbackUrl: ctx.callbackUrl })
        : ctx.callbackUrl;
    return { redirect, cookies };
  }

  /**
   * The `signIn` callback, with the same rules for every flow: `false` refuses (`AccessDenied`), a
   * thrown AuthError passes through, any other throw refuses, a string redirects (through the
   * `redirect` callback, so it stays on this origin by default).
   */
  async runSignInCallback(ctx: ProviderContext, params: Parameters<ResolvedAuthConfig['callbacks']['signIn']>[0]): Promise<void> {
    let result: boolean | string;
    try {
      result = await this.config.callbacks.signIn(params);
    } catch (error) {
      if (error instanceof AuthError) throw error;
      throw new AccessDenied('The signIn callback threw; the sign-in was refused.', { cause: error });
    }
    if (typeof result === 'string') {
      const target = toAbsolute(await this.config.callbacks.redirect({ url: result, baseUrl: ctx.origin }), ctx.origin);
      throw new SignInRedirect(target);
    }
    if (!result) throw new AccessDenied('The signIn callback refused this user.');
  }

  /** Without storage the provider's user is the session's user, identified by the account id. */
  private statelessUser(user: User, account: Account): User & { id: string } {
    return { ...user, id: user.id ?? account.providerAccountId };
  }

  private async loginOrRegister(input: SignInInput, known: AdapterUser | null, currentUser: AuthUser | null): Promise<Resolved> {
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
  private async emailSignIn(input: SignInInput, known: AdapterUser | null, currentUser: AuthUser | null): Promise<Resolved> {
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
      const user = await adapter.createUser({ ...pickUser(input.user), id: randomUUID(), email, emailVerified: new Date() });
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
  private async credentialsSignIn(input: SignInInput, known: AdapterUser | null): Promise<Resolved> {
    if (known) return { user: known, isNewUser: false };
    const adapter = this.adapters.require('getUserByAccount', 'createUser', 'linkAccount');
    const account = toAdapterAccount(input.account, '');
    const existing = input.user.id && this.adapters.has('getUser') ? await this.adapters.require('getUser').getUser(input.user.id) : null;
    if (existing) {
      const linked = { ...account, userId: existing.id };
      await this.linkOrFindWinner(linked);
      return { user: existing, isNewUser: false, linked };
    }
    return this.createUserWithAccount(input, account);
  }

  /** OAuth/OIDC (reference 9.4) and WebAuthn (9.3) accounts. */
  private async accountSignIn(input: SignInInput, known: AdapterUser | null, currentUser: AuthUser | null): Promise<Resolved> {
    const { account } = input;
    const stored = input.storedAccount ?? account;
    const NotLinked = account.type === 'webauthn' ? AccountNotLinked : OAuthAccountNotLinked;
    if (known) {
      if (currentUser && currentUser.id !== known.id) {
        throw new NotLinked('This account is already linked to another user. Sign out first, or sign in with that user.');
      }
      return { user: known, isNewUser: false };
    }
    const adapter = this.adapters.require('getUserByAccount', 'getUserByEmail', 'createUser', 'linkAccount');
    if (currentUser) {
      // Signed in: link the new account to the current user.
      const linked = toAdapterAccount(stored, currentUser.id);
      await this.linkOrFindWinner(linked);
      const user = this.adapters.has('getUser') ? await this.adapters.require('getUser').getUser(currentUser.id) : null;
      return { user: user ?? currentUser, isNewUser: false, linked };
    }
    const email = input.user.email;
    const byEmail = email ? await adapter.getUserByEmail(email) : null;
    if (byEmail) {
      const dangerous = (this.providerConfig(account.provider) as { allowDangerousEmailAccountLinking?: boolean }).allowDangerousEmailAccountLinking === true;
      if (!dangerous || account.type === 'webauthn') {
        // A concurrent first sign-in of this same account may have created the user and not yet
        // linked the account: give it a moment before refusing (works across instances).
        const winner = await this.awaitAccountOwner(account);
        if (winner) return { user: winner, isNewUser: false };
        throw new NotLinked('Another account already uses this email address. Sign in the way you did before, then link this account.');
      }
      const linked = toAdapterAccount(stored, byEmail.id);
      await this.linkOrFindWinner(linked);
      return { user: byEmail, isNewUser: false, linked };
    }
    return this.createUserWithAccount(input, toAdapterAccount(stored, ''));
  }

  /**
   * Creates the user and links the account as one unit: if linking fails the user is deleted again.
   * When two first sign-ins of the same account race, the loser signs in as the winner's user.
   */
  private async createUserWithAccount(input: SignInInput, account: AdapterAccount): Promise<Resolved> {
    const adapter = this.adapters.require('getUserByAccount', 'createUser', 'linkAccount');
    const profile = pickUser(input.user);
    let user: AdapterUser;
    try {
      user = await adapter.createUser({
        ...profile,
        // Credentials: the id authorize() returned. WebAuthn: the id the server generated and sealed in
        // the challenge (the passkey's user handle is derived from it). Never a client-chosen id.
        id: (input.account.type === 'credentials' || input.account.type === 'webauthn') && input.user.id ? input.user.id : randomUUID(),
        email: (profile.email ?? null) as string,
        emailVerified: null,
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

  private async linkOrFindWinner(account: AdapterAccount): Promise<void> {
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

  private async undoCreate(userId: string): Promise<void> {
    if (!this.adapters.has('deleteUser')) return;
    try {
      await this.adapters.require('deleteUser').deleteUser(userId);
    } catch {
      // best effort: the original error is the one to report
    }
  }

  private providerConfig(id: string): Record<string, unknown> {
    return this.config.providerById.get(id)?.config ?? {};
  }
}

/**
 * Thrown by the `signIn` callback path when it returned a URL: the router turns it into a
 * redirect (not an error page).
 */
export class SignInRedirect extends Error {
  constructor(readonly url: string) {
    super('The signIn callback redirected.');
  }
}

/** The user fields that are stored (not whatever else a profile carried). */
function pickUser(user: User): Pick<User, 'name' | 'email' | 'image'> {
  return { name: user.name ?? null, email: user.email ?? null, image: user.image ?? null };
}

/** The account as stored: tokens kept, `type` as given (credentials accounts included, see ARCHITECTURE.md). */
function toAdapterAccount(account: Account, userId: string): AdapterAccount {
  const { userId: _ignored, ...rest } = account;
  return { ...rest, userId } as AdapterAccount;
}

function withQuery(url: string, params: Record<string, string>): string {
  const u = new URL(url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.href;
}
