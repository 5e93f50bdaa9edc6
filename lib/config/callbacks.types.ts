// The `callbacks` and `events` options of AuthModule (Auth.js signatures).
import type { Account, Awaitable, JWT, Profile, Session, User } from '../types/common.types.js';
import type { AdapterAccount, AdapterSession, AdapterUser } from '../adapters/adapter.interface.js';
import type { CredentialInput } from '../methods/credentials/credentials.types.js';

/** Callbacks that shape sign-in, redirects, the session and the JWT (Auth.js signatures). */
export interface CallbacksOptions {
  /** Return `false` to refuse the sign-in (`AccessDenied`), or a URL to redirect to. */
  signIn: (params: {
    user: User | AdapterUser;
    account?: Account | null;
    profile?: Profile;
    email?: { verificationRequest?: boolean };
    credentials?: Record<string, CredentialInput>;
  }) => Awaitable<boolean | string>;
  /** Decides where to redirect. The default allows relative and same-origin URLs only. */
  redirect: (params: { url: string; baseUrl: string }) => Awaitable<string>;
  /** Shapes the session returned by `/session` and injected by `@AuthSession()`. */
  session: (params: {
    session: Session & Partial<AdapterSession> & { user: User | AdapterUser };
    token: JWT;
    user: AdapterUser;
    newSession?: unknown;
    trigger?: 'update';
  }) => Awaitable<Session>;
  /** Shapes the JWT stored in the cookie (JWT strategy). Return `null` to end the session. */
  jwt: (params: {
    token: JWT;
    user: User | AdapterUser;
    account?: Account | null;
    profile?: Profile;
    trigger?: 'signIn' | 'signUp' | 'update';
    isNewUser?: boolean;
    session?: unknown;
  }) => Awaitable<JWT | null>;
}

/** Fire-and-forget notifications; a handler that throws is logged and never breaks the request. */
export interface EventCallbacks {
  /** A sign-in succeeded: the new session exists (`isNewUser` on the first sign-in of a user). */
  signIn: (message: {
    user: User;
    account?: Account | null;
    profile?: Profile;
    isNewUser?: boolean;
  }) => Awaitable<void>;
  /** A user signed out: `session` is the deleted row (`database` strategy), `token` the JWT (`jwt`). */
  signOut: (message: { session?: AdapterSession | null | void; token?: JWT | null }) => Awaitable<void>;
  /** A sign-in created a user. */
  createUser: (message: { user: User }) => Awaitable<void>;
  /** The library changed a user (an email address proven, changed or released). */
  updateUser: (message: { user: User }) => Awaitable<void>;
  /** An account was linked to a user (at sign-in, or by linking another account). */
  linkAccount: (message: {
    user: User | AdapterUser;
    account: Account;
    profile?: User | AdapterUser;
  }) => Awaitable<void>;
  /**
   * `AuthService.unlinkAccount` removed a linked account (`account` carries no tokens).
   */
  unlinkAccount: (message: {
    user: AdapterUser;
    account: Pick<AdapterAccount, 'provider' | 'providerAccountId' | 'type' | 'userId'>;
  }) => Awaitable<void>;
  /**
   * `AuthService.deleteAccount` deleted the user with its sessions, accounts and passkeys (`user` as it was).
   */
  deleteUser: (message: { user: AdapterUser }) => Awaitable<void>;
  /** The session was read by `GET` or `POST {basePath}/session` (`token` with the `jwt` strategy). */
  session: (message: { session: Session; token?: JWT }) => Awaitable<void>;
  /**
   * Beyond Auth.js: a user changed their account (the account page, the `/account/*` API, or the
   * `AuthService` method named in `action`), for an audit log. `detail` carries ids, never secrets.
   */
  accountChange: (message: AccountChangeEvent) => Awaitable<void>;
  /**
   * The provider refused a stored refresh token (`invalid_grant`) during `AuthService.getAccessToken`:
   * the account's tokens were cleared, and the user must sign in with the provider again.
   */
  refreshTokenError: (message: {
    userId: string;
    provider: string;
    providerAccountId: string;
    error: string;
  }) => Awaitable<void>;
}

/** What `events.accountChange` receives. */
export interface AccountChangeEvent {
  action:
    | 'passkey.rename'
    | 'passkey.delete'
    | 'email.change-requested'
    | 'email.changed'
    | 'password.set'
    | 'session.end'
    | 'sessions.end-others'
    | 'account.unlink'
    | 'user.delete'
    | 'two-factor.add'
    | 'two-factor.rename'
    | 'two-factor.remove'
    | 'two-factor.backup-codes'
    | 'two-factor.backup-code-used'
    | 'two-factor.reset'
    | 'api-key.create'
    | 'api-key.rotate'
    | 'api-key.revoke';
  userId: string;
  /** Ids the action was about (a credential id, a provider, a session id), never a secret. */
  detail?: Record<string, string>;
}
