import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { AdapterTwoFactor, TwoFactorAdapter } from '../../adapters/adapter.interface.js';
import { AUTH_CONFIG } from '../../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../../config/resolved-config.js';
import type { ResolvedTwoFactor } from '../../config/two-factor.options.js';
import { AdapterService } from '../../core/adapter.service.js';
import { AuthEvents } from '../../core/auth-events.js';
import { InvalidRequest, InvalidTwoFactorCode, LastSignInMethod } from '../../errors/auth.errors.js';
import { KeyedQueue } from '../../util/keyed-queue.js';
import { dateMs } from '../../util/instant.js';
import { backupCodeKeys, createBackupCodes, hashBackupCode, matchesBackupCode } from './backup-codes.js';
import { qrSvg } from './qr.js';
import { createTotpSecret, totpUri, verifyTotp } from './totp.js';
import { openTotpSecret, sealTotpSecret } from './totp-secret.js';

/** The factor types this method stores. */
export const TOTP = 'totp';
export const BACKUP_CODE = 'backup-code';

/** How the user proves the second factor: an authenticator app's code, or a backup code. */
export type SecondFactorMethod = 'totp' | 'backup-code';

/** An authenticator app as the account page and API list it (never its secret). */
export interface TwoFactorInfo {
  id: string;
  type: string;
  name: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** What a user has enrolled. */
export interface TwoFactorStatus {
  /** Confirmed authenticator apps. */
  apps: TwoFactorInfo[];
  /** Backup codes not used yet. */
  backupCodesLeft: number;
}

/** An enrolment waiting for its first code: what the user scans or types into the app. */
export interface TotpEnrolment {
  id: string;
  /** Base32, for typing into the app. Shown once, never stored in clear. */
  secret: string;
  uri: string;
  qrSvg: string;
}

/** A user the policy function receives. */
type PolicyUser = { id: string; email?: string | null } & Record<string, unknown>;

/** Unconfirmed enrolments a user may have at once (older ones are dropped). */
const MAX_PENDING_ENROLMENTS = 3;
/** Seconds an unconfirmed enrolment may be confirmed in. */
const ENROLMENT_MAX_AGE = 30 * 60;
/** Longest name an app may be given. */
const MAX_NAME = 64;

/**
 * The second factors of users (`twoFactor` option): enrolment of authenticator apps (TOTP, RFC
 * 6238, through otplib), backup codes (shown once, stored as keyed hashes), verification with
 * replay protection (a TOTP step, a backup code, is accepted once: the adapter's compare-and-set
 * and delete decide between concurrent uses), and the policy. TOTP secrets are stored sealed with
 * the auth secret, like provider tokens. Changes for one user run one at a time.
 */
@Injectable()
export class TwoFactors {
  private readonly queue = new KeyedQueue();

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly adapters: AdapterService,
    private readonly events: AuthEvents,
  ) {}

  /** The resolved `twoFactor` option (the method's services run only when it is set). */
  get settings(): ResolvedTwoFactor {
    const settings = this.config.twoFactor;
    if (!settings) throw new InvalidRequest('Two-factor authentication is not turned on (`twoFactor` option).');
    return settings;
  }

  private get store(): TwoFactorAdapter {
    return this.adapters.raw as unknown as TwoFactorAdapter;
  }

  /** Whether the policy requires a second factor of this user. A policy function that throws requires one. */
  async required(user: PolicyUser): Promise<boolean> {
    const { policy } = this.settings;
    if (policy === 'required') return true;
    if (policy === 'optional') return false;
    try {
      return (await policy(user)) !== false;
    } catch (error) {
      this.config.logger.error(
        Object.assign(new Error('twoFactor.policy threw; the user is asked for a second factor.', { cause: error }), {
          name: 'TwoFactorPolicyError',
        }),
      );
      return true;
    }
  }

  /**
   * Every factor row of the user (the adapter's answer, checked), for a request that both lists the
   * methods ({@link methodsIn}) and checks one ({@link verify}): one read of the rows.
   */
  factorsOf(userId: string): Promise<readonly AdapterTwoFactor[]> {
    return this.rows(userId);
  }

  /** Every factor row of the user (the adapter's answer, checked). */
  private async rows(userId: string): Promise<AdapterTwoFactor[]> {
    const rows = await this.store.listTwoFactorsByUserId(userId);
    return Array.isArray(rows) ? rows.filter((r) => r && r.userId === userId && typeof r.id === 'string') : [];
  }

  /** What the user has enrolled: confirmed apps and unused backup codes. */
  async status(userId: string): Promise<TwoFactorStatus> {
    const rows = await this.rows(userId);
    return {
      apps: rows.filter((r) => r.type === TOTP && r.confirmedAt).map(infoOf),
      backupCodesLeft: rows.filter((r) => r.type === BACKUP_CODE).length,
    };
  }

  /** The methods the user can prove a second factor with now (empty: none enrolled). */
  async methods(userId: string): Promise<SecondFactorMethod[]> {
    return this.methodsIn(await this.rows(userId));
  }

  /** {@link methods} of the user's rows as {@link factorsOf} read them. */
  methodsIn(rows: readonly AdapterTwoFactor[]): SecondFactorMethod[] {
    const apps = rows.some((r) => r.type === TOTP && r.confirmedAt);
    const out: SecondFactorMethod[] = [];
    if (apps) out.push('totp');
    if (apps && rows.some((r) => r.type === BACKUP_CODE)) out.push('backup-code');
    return out;
  }

  /**
   * What a remembered device is bound to: the ids of the user's confirmed apps and of their unused
   * backup codes (adding or removing an app, new codes, a code used: each changes it). Ids only,
   * never a secret.
   */
  async fingerprintOf(userId: string): Promise<string> {
    const rows = await this.rows(userId);
    const ids = (type: string) =>
      rows
        .filter((r) => r.type === type && r.confirmedAt)
        .map((r) => r.id)
        .sort()
        .join(',');
    return `${ids(TOTP)}|${ids(BACKUP_CODE)}`;
  }

  /** A new secret for an authenticator app and what the user types, not stored (no QR code: see `startTotp`). */
  newSecret(label: string, origin: string): Omit<TotpEnrolment, 'qrSvg'> & { sealed: string } {
    const secret = createTotpSecret();
    const issuer = this.settings.issuer ?? new URL(origin).hostname;
    const uri = totpUri({ issuer, label: label || issuer, secret });
    return { id: randomUUID(), secret, uri, sealed: sealTotpSecret(secret, this.config.secrets) };
  }

  /** Starts adding an authenticator app (account page): stored unconfirmed until its first code. */
  async startTotp(userId: string, label: string, origin: string): Promise<TotpEnrolment> {
    return this.queue.run(userId, async () => {
      const enrolment = this.newSecret(label, origin);
      const now = new Date();
      const stale = (await this.rows(userId)).filter((r) => r.type === TOTP && !r.confirmedAt);
      // Old or surplus unconfirmed enrolments go: only the newest few can be confirmed.
      for (const r of stale.filter((r, i) => i <= stale.length - MAX_PENDING_ENROLMENTS || !isFreshEnrolment(r)))
        await this.store.deleteTwoFactor(r.id, userId);
      await this.store.createTwoFactor({
        id: enrolment.id,
        userId,
        type: TOTP,
        name: null,
        secret: enrolment.sealed,
        confirmedAt: null,
        createdAt: now,
        lastUsedAt: null,
        lastUsedStep: null,
      });
      const { sealed: _sealed, ...shown } = enrolment;
      return { ...shown, qrSvg: await qrSvg(shown.uri, { label: 'QR code', className: 'qr-code' }) };
    });
  }

  /**
   * Confirms an enrolment with its first code. Returns new backup codes (to show once) when the user
   * had none, else `null`. `InvalidTwoFactorCode` for a wrong code or an unknown/expired enrolment.
   */
  async confirmTotp(userId: string, id: unknown, code: unknown, name?: unknown): Promise<string[] | null> {
    if (typeof id !== 'string' || id.length > 64)
      throw new InvalidRequest('Send the `id` of the enrolment to confirm.');
    return this.queue.run(userId, async () => {
      const rows = await this.rows(userId);
      const row = rows.find((r) => r.id === id && r.type === TOTP && !r.confirmedAt);
      const fresh = row && isFreshEnrolment(row);
      const secret = fresh ? openTotpSecret(row.secret, this.config.secrets) : null;
      if (!row || !secret)
        throw new InvalidTwoFactorCode('This setup has expired or was replaced: start adding the app again.');
      const match = await verifyTotp(secret, code);
      if (!match || !(await this.store.useTwoFactorStep(row.id, userId, match.step, new Date())))
        throw new InvalidTwoFactorCode('That code did not work: enter the current code your app shows.');
      await this.store.updateTwoFactor(row.id, userId, { confirmedAt: new Date(), name: cleanName(name) });
      const codes = rows.some((r) => r.type === BACKUP_CODE) ? null : await this.replaceBackupCodes(userId);
      this.events.emit('accountChange', { action: 'two-factor.add', userId, detail: { id: row.id } });
      return codes;
    });
  }

  /** Adds a confirmed app from a secret proved at sign-in (required enrolment); returns the backup codes to show. */
  /** The time step a required enrolment's first code proves, or `InvalidTwoFactorCode`; writes nothing. */
  async checkEnrolment(sealed: string, code: unknown): Promise<number> {
    const secret = openTotpSecret(sealed, this.config.secrets);
    const match = secret ? await verifyTotp(secret, code) : null;
    if (!match) throw new InvalidTwoFactorCode('That code did not work: enter the current code your app shows.');
    return match.step;
  }

  /**
   * Stores the app of a required enrolment whose code {@link checkEnrolment} proved (at `step`),
   * once the pending sign-in was consumed; returns the backup codes to show.
   */
  async enrolConfirmed(userId: string, sealed: string, step: number): Promise<string[]> {
    return this.queue.run(userId, async () => {
      // Of concurrent answers to one enrolment (a double submit), the first stores the app; the
      // others must not add it again nor replace the backup codes the first one is showing.
      if ((await this.rows(userId)).some((r) => r.type === TOTP && r.confirmedAt))
        throw new InvalidTwoFactorCode(
          'That code did not work: enter the current code your app shows (each code works once).',
        );
      const now = new Date();
      await this.store.createTwoFactor({
        id: randomUUID(),
        userId,
        type: TOTP,
        name: null,
        secret: sealed,
        confirmedAt: now,
        createdAt: now,
        lastUsedAt: now,
        lastUsedStep: step,
      });
      const codes = await this.replaceBackupCodes(userId);
      this.events.emit('accountChange', { action: 'two-factor.add', userId });
      return codes;
    });
  }

  /**
   * Checks a second factor of the user: `otp` for an app's code, `lookup` for a backup code (used up).
   * `InvalidTwoFactorCode` when it does not match or was used already (a replayed TOTP step).
   * `factors`: the user's rows as {@link factorsOf} read them in this request (else read here); what
   * decides a use is the adapter's compare-and-set or delete, never the rows read.
   */
  async verify(
    userId: string,
    method: SecondFactorMethod,
    code: unknown,
    factors?: readonly AdapterTwoFactor[],
  ): Promise<'otp' | 'lookup'> {
    const rows = factors ?? (await this.rows(userId));
    if (method === 'backup-code') {
      const keys = backupCodeKeys(this.config.secrets);
      for (const row of rows.filter((r) => r.type === BACKUP_CODE)) {
        if (!matchesBackupCode(code, row.secret, keys)) continue;
        // Used by deleting it: of concurrent uses of one code, one deletes it.
        if (await this.store.deleteTwoFactor(row.id, userId)) {
          this.events.emit('accountChange', { action: 'two-factor.backup-code-used', userId });
          return 'lookup';
        }
        break;
      }
      throw new InvalidTwoFactorCode('That backup code did not work, or was used already.');
    }
    for (const row of rows.filter((r) => r.type === TOTP && r.confirmedAt)) {
      const secret = openTotpSecret(row.secret, this.config.secrets);
      if (!secret) continue;
      const match = await verifyTotp(secret, code, { afterStep: row.lastUsedStep });
      // The compare-and-set on the step: a code is accepted once, whoever submits it first.
      if (match && (await this.store.useTwoFactorStep(row.id, userId, match.step, new Date()))) return 'otp';
    }
    throw new InvalidTwoFactorCode(
      'That code did not work: enter the current code your app shows (each code works once).',
    );
  }

  /** New backup codes for the user (the old ones stop working); returns them, to show once. */
  async regenerateBackupCodes(userId: string): Promise<string[]> {
    const codes = await this.queue.run(userId, () => this.replaceBackupCodes(userId));
    this.events.emit('accountChange', { action: 'two-factor.backup-codes', userId });
    return codes;
  }

  private async replaceBackupCodes(userId: string): Promise<string[]> {
    const codes = createBackupCodes(this.settings.backupCodes);
    const [key] = backupCodeKeys(this.config.secrets);
    const now = new Date();
    await this.store.replaceTwoFactors(
      userId,
      BACKUP_CODE,
      codes.map((code) => ({
        id: randomUUID(),
        userId,
        type: BACKUP_CODE,
        name: null,
        secret: hashBackupCode(code, key!),
        confirmedAt: now,
        createdAt: now,
        lastUsedAt: null,
        lastUsedStep: null,
      })),
    );
    return codes;
  }

  /** Renames one of the user's apps; `InvalidRequest` when they have no such app. */
  async rename(userId: string, id: unknown, name: unknown): Promise<TwoFactorInfo> {
    if (typeof id !== 'string' || id.length > 64) throw new InvalidRequest('Send the `id` of the app to rename.');
    const updated = await this.store.updateTwoFactor(id, userId, { name: cleanName(name) });
    if (!updated || updated.type !== TOTP) throw new InvalidRequest('There is no authenticator app with this id.');
    this.events.emit('accountChange', { action: 'two-factor.rename', userId, detail: { id } });
    return infoOf(updated);
  }

  /**
   * Removes one of the user's apps. The last one is refused (`LastSignInMethod`) when the policy
   * requires a second factor of the user; with the last app, the backup codes go too.
   */
  async remove(user: PolicyUser, id: unknown): Promise<void> {
    if (typeof id !== 'string' || id.length > 64) throw new InvalidRequest('Send the `id` of the app to remove.');
    await this.queue.run(user.id, async () => {
      const rows = await this.rows(user.id);
      const row = rows.find((r) => r.id === id && r.type === TOTP);
      if (!row) throw new InvalidRequest('There is no authenticator app with this id.');
      const others = rows.filter((r) => r.type === TOTP && r.confirmedAt && r.id !== id);
      if (row.confirmedAt && !others.length && (await this.required(user)))
        throw new LastSignInMethod(
          'This is your last second factor and this app requires one: add another authenticator app first.',
        );
      await this.store.deleteTwoFactor(row.id, user.id);
      if (row.confirmedAt && !others.length) await this.store.deleteTwoFactorsByUserId(user.id, BACKUP_CODE);
    });
    this.events.emit('accountChange', { action: 'two-factor.remove', userId: user.id, detail: { id } });
  }

  /**
   * Removes every second factor of the user (an administrator's reset, when they lost them all):
   * their next sign-in asks for none, or, when the policy requires one, enrols a new app.
   */
  async reset(userId: string): Promise<number> {
    const removed = await this.queue.run(
      userId,
      async () => Number(await this.store.deleteTwoFactorsByUserId(userId)) || 0,
    );
    this.events.emit('accountChange', { action: 'two-factor.reset', userId });
    return removed;
  }
}

/** An unconfirmed enrolment that may still be confirmed (an unreadable date: not). */
function isFreshEnrolment(row: AdapterTwoFactor): boolean {
  const created = dateMs(row.createdAt);
  return created !== undefined && Date.now() - created <= ENROLMENT_MAX_AGE * 1000;
}

function infoOf(row: AdapterTwoFactor): TwoFactorInfo {
  return {
    id: row.id,
    type: row.type,
    name: row.name ?? null,
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt ?? null,
  };
}

/** A name as stored: trimmed, control characters dropped, at most 64 characters; `null` when empty. */
function cleanName(name: unknown): string | null {
  if (typeof name !== 'string') return null;
  const clean = name
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, MAX_NAME);
  return clean || null;
}
