import type { AdapterAccount, AdapterUser } from '../adapters/adapter.interface.js';
import type { Account, Profile, User } from '../types/common.types.js';
import type { AuthUser } from '../session/session.types.js';

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
  /**
   * What the first factor proved, as RFC 8176 method references, when the account type does not say
   * it all (a passkey with user verification: `['hwk', 'user', 'mfa']`); default by account type.
   */
  amr?: readonly string[];
  /**
   * The factor proves nothing about who the user is (a passkey the signed-in user just registered):
   * the new session keeps what the request's session proved, and proves no more.
   */
  amrFromSession?: boolean;
}

/** The user a sign-in resolved to, and what it wrote on the way. */
export interface ResolvedSignIn {
  user: AdapterUser | (User & { id: string });
  isNewUser: boolean;
  /** The account written by this sign-in (for the linkAccount event). */
  linked?: AdapterAccount;
  /** True when this sign-in created the user (undone if a later step fails). */
  created?: boolean;
}
