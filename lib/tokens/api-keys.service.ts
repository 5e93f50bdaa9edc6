import { Inject, Injectable } from '@nestjs/common';
import type { AdapterApiKey, ApiKeyAdapter } from '../adapters/adapter-extensions.js';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import { SCOPE } from '../config/access-token.options.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { AdapterService } from '../core/adapter.service.js';
import { AuthEvents } from '../core/auth-events.js';
import { AdapterNotFoundError, InvalidRequest } from '../errors/auth.errors.js';
import { ApiKeyReader, apiKeyHash, newApiKey } from '../session/api-keys.js';
import { dateMs } from '../util/instant.js';
import { KeyedQueue } from '../util/keyed-queue.js';

/** One of a user's API keys, as `AuthService.listApiKeys` gives it: never the key. */
export interface ApiKeyInfo {
  id: string;
  name: string;
  /** The key's last four characters, to tell keys apart. */
  hint: string;
  scopes: string[];
  createdAt: Date;
  expires: Date | null;
  lastUsedAt: Date | null;
}

/** What creating (or rotating) a key gives: the key, shown this once, and its details. */
export interface CreatedApiKey {
  /** The key itself: show it to the user now; it cannot be read again. */
  key: string;
  apiKey: ApiKeyInfo;
}

/** What a new key is given. */
export interface ApiKeyInput {
  /** What the user calls it (1 to 100 characters). */
  name: unknown;
  /** What it may do (each one of `accessToken.scopes` when that is set). @default none */
  scopes?: unknown;
  /** When it stops working (a Date or ISO string, in the future, within ten years); `null`: never. @default null */
  expires?: unknown;
}

const NAME_MAX = 100;
const TEN_YEARS_MS = 10 * 366 * 86_400_000;
const ID = /^[0-9A-Za-z]{12}$/;

/**
 * API keys (`apiKeys`): a user's long-lived keys for scripts and other services. A key is
 * `<prefix>_<id><secret><checksum>` (base62, 190 random bits, a CRC-32 a secret scanner checks), shown
 * once and stored as its SHA-256 only. Revoking or rotating one forgets it on every instance at once
 * (the revocation bus). Changes of one user run one after the other, so `maxPerUser` holds.
 */
@Injectable()
export class ApiKeys {
  private readonly queue = new KeyedQueue();

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly adapters: AdapterService,
    private readonly reader: ApiKeyReader,
    private readonly events: AuthEvents,
  ) {}

  private get store(): ApiKeyAdapter {
    if (!this.config.apiKeys) throw new InvalidRequest('API keys are off: set the `apiKeys` option.');
    return this.adapters.raw as unknown as ApiKeyAdapter;
  }

  /** The user's keys, oldest first (never a key). */
  async list(userId: string): Promise<ApiKeyInfo[]> {
    const rows = (await this.store.listApiKeysByUserId(userId)) as unknown;
    return (Array.isArray(rows) ? (rows as AdapterApiKey[]) : []).filter((r) => r?.userId === userId).map(infoOf);
  }

  /**
   * A new key for the user.
   *
   * @throws InvalidRequest for a bad name, scope or expiry, or when the user has `maxPerUser` keys
   */
  async create(userId: string, input: ApiKeyInput): Promise<CreatedApiKey> {
    const fields = this.check(input);
    return this.queue.run(userId, async () => {
      const store = this.store;
      const existing = await store.listApiKeysByUserId(userId);
      if (existing.length >= this.config.apiKeys!.maxPerUser)
        throw new InvalidRequest(
          `A user may have ${this.config.apiKeys!.maxPerUser} API keys: revoke one before making another.`,
        );
      const created = await this.write(userId, fields);
      this.events.emit('accountChange', { action: 'api-key.create', userId, detail: { id: created.apiKey.id } });
      return created;
    });
  }

  /**
   * Replaces a key with a new one (same name, scopes and expiry): the old one stops working at once,
   * here and on every instance.
   *
   * @throws InvalidRequest when the user has no key with this id
   */
  rotate(userId: string, id: unknown): Promise<CreatedApiKey> {
    return this.queue.run(userId, async () => {
      const old = await this.owned(userId, id);
      const created = await this.write(userId, { name: old.name, scopes: old.scopes, expires: old.expires });
      await this.store.deleteApiKey(old.id, userId);
      await this.reader.forget(old.id);
      this.events.emit('accountChange', {
        action: 'api-key.rotate',
        userId,
        detail: { id: old.id, replacedBy: created.apiKey.id },
      });
      return created;
    });
  }

  /**
   * Revokes a key: it stops working at once, here and on every instance.
   *
   * @throws InvalidRequest when the user has no key with this id
   */
  revoke(userId: string, id: unknown): Promise<void> {
    return this.queue.run(userId, async () => {
      const key = await this.owned(userId, id);
      if (!(await this.store.deleteApiKey(key.id, userId))) throw new InvalidRequest('The user has no such API key.');
      await this.reader.forget(key.id);
      this.events.emit('accountChange', { action: 'api-key.revoke', userId, detail: { id: key.id } });
    });
  }

  private async owned(userId: string, id: unknown): Promise<AdapterApiKey> {
    if (typeof id !== 'string' || !ID.test(id)) throw new InvalidRequest('The API key id is malformed.');
    const row = await this.store.getApiKey(id);
    if (!row || row.userId !== userId) throw new InvalidRequest('The user has no such API key.');
    return row;
  }

  private async write(
    userId: string,
    fields: Pick<AdapterApiKey, 'name' | 'scopes' | 'expires'>,
  ): Promise<CreatedApiKey> {
    const { key, id, hint } = newApiKey(this.config.apiKeys!.prefix);
    const row: AdapterApiKey = {
      id,
      userId,
      ...fields,
      keyHash: apiKeyHash(key),
      hint,
      createdAt: new Date(),
      lastUsedAt: null,
    };
    try {
      await this.store.createApiKey(row);
    } catch (error) {
      // A user storage does not have (credentials whose `authorize` returns its own users): a key
      // must belong to a stored user, whom deleting also deletes the key.
      if (error instanceof AdapterNotFoundError)
        throw new InvalidRequest('API keys belong to stored users: this user is not in storage.');
      throw error;
    }
    return { key, apiKey: infoOf(row) };
  }

  /** A new key's fields, checked; every mistake is an `InvalidRequest` saying what to send. */
  private check(input: ApiKeyInput): Pick<AdapterApiKey, 'name' | 'scopes' | 'expires'> {
    const name = typeof input?.name === 'string' ? input.name.trim() : '';
    if (!name || name.length > NAME_MAX || /[\u0000-\u001f\u007f]/.test(name))
      throw new InvalidRequest(`name must be 1 to ${NAME_MAX} printable characters.`);
    const raw = input.scopes ?? [];
    const scopes = typeof raw === 'string' ? raw.split(' ').filter(Boolean) : raw;
    if (!Array.isArray(scopes) || scopes.length > 50 || !scopes.every((s) => typeof s === 'string' && SCOPE.test(s)))
      throw new InvalidRequest('scopes must be scope names (letters, digits, _ . : / -).');
    const allowed = this.config.accessToken.scopes;
    const unknown = allowed ? (scopes as string[]).filter((s) => !allowed.has(s)) : [];
    if (unknown.length) throw new InvalidRequest(`scopes has ${unknown.length} scope(s) not in accessToken.scopes.`);
    let expires: Date | null = null;
    if (input.expires !== undefined && input.expires !== null && input.expires !== '') {
      const ms = dateMs(
        input.expires instanceof Date
          ? input.expires
          : typeof input.expires === 'string'
            ? new Date(input.expires)
            : NaN,
      );
      const now = Date.now();
      if (ms === undefined || ms <= now || ms > now + TEN_YEARS_MS)
        throw new InvalidRequest('expires must be a date in the future, within ten years (or null: never).');
      expires = new Date(ms);
    }
    return { name, scopes: [...new Set(scopes as string[])], expires };
  }
}

function infoOf(row: AdapterApiKey): ApiKeyInfo {
  return {
    id: row.id,
    name: row.name,
    hint: row.hint,
    scopes: [...row.scopes],
    createdAt: row.createdAt,
    expires: row.expires,
    lastUsedAt: row.lastUsedAt,
  };
}
