import { Injectable } from '@nestjs/common';
import type { ObjectLiteral } from 'typeorm';
import type {
  AccountTokens,
  AccountTokensAdapter,
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSessionInfo,
  AdapterUser,
  PasskeyNamesAdapter,
  PrivateAccountTokensAdapter,
  SessionListingAdapter,
  SessionsByProviderSidAdapter,
  SessionsByUserAdapter,
  UserDeletionAdapter,
  VerificationTokensByIdentifierAdapter,
} from '../adapter.interface.js';
import { updateName } from './authenticator-names.query.js';
import type { EntityClass } from './auth-entities.js';
import { sessionInfoOf } from './session-details.query.js';
import { accountOf, plain } from './typeorm-queries.js';
import { swapAccountTokens, type AccountTokensMatch } from './account-tokens.query.js';
import { TypeOrmSpecAdapter } from './typeorm-spec.adapter.js';

export type { TypeOrmAdapterOptions } from './typeorm-adapter.options.js';

/**
 * The adapter over the app's TypeORM `DataSource` (SQLite, PostgreSQL, MySQL/MariaDB), using the
 * exported entities or subclasses of them. `AuthModule` builds it for you when you give no
 * `adapter` and the app has a data source; build it yourself for custom entities:
 *
 * @example
 * AuthModule.forRootAsync({
 *   adapter: { inject: [DataSource], useFactory: (ds: DataSource) => new TypeOrmAdapter(ds, { User: AppUser }) },
 *   ...
 * })
 *
 * Correct under concurrency: `useVerificationToken` consumes the token in one `DELETE ... RETURNING`
 * (PostgreSQL, SQLite, MariaDB) or a locking transaction (MySQL); `updateAuthenticatorCounter` is a
 * compare-and-set; uniqueness is the database's (a duplicate insert fails with
 * `AdapterConflictError`, a row for an unknown user with `AdapterNotFoundError`).
 *
 * SPEC's contract lives in `TypeOrmSpecAdapter` (with the wiring); this class adds the capabilities
 * beyond it (device list, sign out everywhere, token refresh, passkey names, account deletion).
 */
@Injectable()
export class TypeOrmAdapter
  extends TypeOrmSpecAdapter
  implements
    AccountTokensAdapter,
    UserDeletionAdapter,
    PasskeyNamesAdapter,
    PrivateAccountTokensAdapter,
    SessionListingAdapter,
    SessionsByProviderSidAdapter,
    SessionsByUserAdapter,
    VerificationTokensByIdentifierAdapter
{
  /** Own tables (no Auth.js `schema` preset): `encryptAccountTokens` defaults to on. */
  get privateAccountTokens(): boolean {
    return !this.schema;
  }

  // ---- users ------------------------------------------------------------------------------------

  /**
   * Deletes the user with its sessions, accounts, authenticators and its address's verification
   * tokens in one transaction (beyond SPEC: `UserDeletionAdapter`, for `AuthService.deleteAccount`).
   */
  async deleteUserCascade(userId: string): Promise<AdapterUser | null> {
    if (!this.ids.validUserId(userId)) return null;
    const { User, Session, Account, Authenticator, VerificationToken } = this.entities;
    const children: EntityClass<ObjectLiteral>[] = [Session, Account];
    if (!this.schema || this.schema.mapping.authenticator) children.push(Authenticator);
    return plain(await this.queries.deleteWithRows(User, children, userId, VerificationToken));
  }

  // ---- sessions ---------------------------------------------------------------------------------

  /** The user's sessions with their details (beyond SPEC: `SessionListingAdapter`). */
  async listSessionsByUserId(userId: string): Promise<AdapterSessionInfo[]> {
    if (!this.ids.validUserId(userId)) return [];
    const rows = await this.queries.select(this.entities.Session, 's', { userId }).getMany();
    return rows.map(sessionInfoOf);
  }

  /** The sessions of one OP session (beyond SPEC: `SessionsByProviderSidAdapter`; none without the column). */
  async listSessionsByProviderSid(providerSid: string): Promise<AdapterSessionInfo[]> {
    const repo = this.dataSource.getRepository(this.entities.Session);
    if (!providerSid || !repo.metadata.findColumnWithPropertyName('providerSid')) return [];
    return (await this.queries.select(this.entities.Session, 's', { providerSid }).getMany()).map(sessionInfoOf);
  }

  /** Deletes every session of a user (beyond SPEC: `SessionsByUserAdapter`, for `AuthService.signOutEverywhere`). */
  async deleteSessionsByUserId(userId: string): Promise<number> {
    if (!this.ids.validUserId(userId)) return 0;
    return this.queries.deleteAll(this.entities.Session, { userId });
  }

  // ---- accounts ---------------------------------------------------------------------------------

  /** The user's accounts (beyond SPEC: `AccountTokensAdapter`, for `AuthService.getAccessToken`). */
  async listAccountsByUserId(userId: string): Promise<AdapterAccount[]> {
    const rows = await this.queries.select(this.entities.Account, 'a', { userId }).getMany();
    return rows.map(accountOf);
  }

  /** Compare-and-swap of the account's tokens (beyond SPEC: `AccountTokensAdapter`; see `swapAccountTokens`). */
  async updateAccountTokens(match: AccountTokensMatch, next: AccountTokens): Promise<AdapterAccount | null> {
    const affected = await swapAccountTokens(this.dataSource, this.queries, this.entities.Account, match, next);
    if (affected === 0) return null;
    const current = await this.getAccount(match.providerAccountId, match.provider);
    if (!current) return null;
    // A driver that does not report affected rows: the row must now hold what was written.
    if (
      affected === undefined &&
      next.refresh_token !== undefined &&
      (current.refresh_token ?? null) !== next.refresh_token
    )
      return null;
    return current;
  }

  // ---- verification tokens ------------------------------------------------------------------------

  /** Deletes every verification token of an identifier (beyond SPEC: `VerificationTokensByIdentifierAdapter`). */
  async deleteVerificationTokensByIdentifier(identifier: string): Promise<number> {
    return this.queries.deleteAll(this.entities.VerificationToken, { identifier });
  }

  // ---- authenticators ---------------------------------------------------------------------------

  /** Sets or clears a passkey's name (beyond SPEC: `PasskeyNamesAdapter`); `null` for an unknown credential. */
  async updateAuthenticatorName(credentialID: string, name: string | null): Promise<AdapterAuthenticator | null> {
    this.authenticatorTable();
    const repo = this.repo(this.entities.Authenticator);
    const [where, params] = this.queries.where(repo.metadata, { credentialID });
    return (await updateName(repo, where, params, name)) ? this.getAuthenticator(credentialID) : null;
  }

  /** Deletes an authenticator (beyond SPEC: `PasskeyNamesAdapter`); `true` when a row went. */
  async deleteAuthenticator(credentialID: string): Promise<boolean> {
    this.authenticatorTable();
    return (await this.queries.deleteAll(this.entities.Authenticator, { credentialID })) > 0;
  }

  // ---- housekeeping -------------------------------------------------------------------------------

  /**
   * Deletes the sessions and verification tokens that expired before `now`. The library deletes an
   * expired row only when it is presented; run this on a schedule (e.g. daily with
   * `@nestjs/schedule`) so abandoned ones do not pile up. Not part of the adapter contract.
   *
   * @returns how many rows of each went
   */
  async deleteExpired(now: Date = new Date()): Promise<{ sessions: number; verificationTokens: number }> {
    return {
      sessions: await this.queries.deleteExpired(this.entities.Session, now),
      verificationTokens: await this.queries.deleteExpired(this.entities.VerificationToken, now),
    };
  }
}
