import { Inject, Injectable, Optional } from '@nestjs/common';
import { ADAPTER_METHODS, Adapter, type AdapterMethod } from '../adapters/adapter.interface.js';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { AdapterError, AuthError, MissingAdapterMethods } from '../errors/auth.errors.js';
import { TokenCipher } from '../util/token-cipher.js';
import type { AccountTokens, AdapterAccount, PrivateAccountTokensAdapter } from '../adapters/adapter.interface.js';

/** The account columns `encryptAccountTokens` encrypts. */
const SEALED_COLUMNS = ['access_token', 'refresh_token', 'id_token'] as const;

type Required_<K extends AdapterMethod> = { [P in K]-?: NonNullable<Adapter[P]> };

/**
 * The adapter as the flows use it. `require()` checks that every method a flow will call exists
 * before the flow writes anything (so a missing method never leaves a partial write), and wraps
 * each call so a storage failure surfaces as `AdapterError` (its cause logged, never its arguments).
 */
@Injectable()
export class AdapterService {
  private readonly wrapped = new Map<AdapterMethod, (...args: any[]) => Promise<unknown>>();

  /**
   * Whether account tokens are stored encrypted: `encryptAccountTokens` when set, otherwise on for
   * an adapter that declares `privateAccountTokens` (the library's own tables), off for the rest.
   */
  readonly encryptsTokens: boolean;

  /** Encrypts and decrypts account tokens when `encryptAccountTokens` is on. */
  private readonly cipher?: TokenCipher;

  constructor(
    @Optional() @Inject(Adapter) private readonly adapter: Adapter | null,
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
  ) {
    // Unset: on for an adapter whose token columns only this library reads (TypeOrmAdapter's own tables).
    this.encryptsTokens =
      config.encryptAccountTokens ??
      (adapter as Partial<PrivateAccountTokensAdapter> | null)?.privateAccountTokens === true;
    if (this.encryptsTokens) this.cipher = new TokenCipher(config.secrets);
    if (!adapter) return;
    // Methods may live on the prototype (classes) or on the object (literals): read both once.
    for (const name of ADAPTER_METHODS) {
      const fn = (adapter as Record<string, unknown>)[name];
      if (typeof fn !== 'function') continue;
      this.wrapped.set(name, async (...args: unknown[]) => {
        try {
          // Account tokens go in sealed and come out opened (a no-op unless encryptAccountTokens).
          if (name === 'linkAccount') args = [this.sealAccount(args[0] as AdapterAccount)];
          const result = await (fn as (...a: unknown[]) => unknown).apply(adapter, args);
          return name === 'getAccount' || name === 'unlinkAccount' || name === 'linkAccount'
            ? this.openAccount(result as AdapterAccount | null | undefined)
            : result;
        } catch (error) {
          if (error instanceof AuthError) throw error;
          this.config.logger.debug(`adapter_${name} failed`);
          // The driver's message may quote stored values (tokens in a unique-key violation): keep it
          // out of our message; it stays reachable as `cause` for debugging.
          const code = (error as { code?: unknown })?.code;
          throw new AdapterError(
            `The adapter's ${name} failed (${(error as Error)?.name ?? 'Error'}${code ? ` ${String(code)}` : ''}). Check the database connection and schema.`,
            { cause: error },
          );
        }
      });
    }
  }

  /**
   * The token columns as stored: encrypted when `encryptAccountTokens` is on (`null` and absent
   * values stay as they are), else unchanged. For writes that bypass `linkAccount`.
   */
  sealTokens<T extends AccountTokens>(tokens: T): T {
    if (!this.cipher || !tokens) return tokens;
    const out = { ...tokens } as Record<string, unknown>;
    for (const column of SEALED_COLUMNS) {
      const value = out[column];
      if (typeof value === 'string') out[column] = this.cipher.encrypt(value);
    }
    return out as T;
  }

  /**
   * The account with its token columns decrypted (a value no configured secret opens is dropped:
   * fail closed). Rows written before encryption was on read as they are.
   */
  openAccount<T extends AdapterAccount | null | undefined>(account: T): T {
    if (!this.cipher || !account) return account;
    const out = { ...account } as Record<string, unknown>;
    for (const column of SEALED_COLUMNS) {
      const value = out[column];
      if (typeof value !== 'string') continue;
      const plain = this.cipher.decrypt(value);
      if (plain === undefined) delete out[column];
      else out[column] = plain;
    }
    return out as T;
  }

  private sealAccount(account: AdapterAccount): AdapterAccount {
    return this.sealTokens(account as AdapterAccount & AccountTokens);
  }

  /** The configured adapter, or `null` when the module runs without storage. */
  get raw(): Adapter | null {
    return this.adapter;
  }

  /** True when an adapter is configured and implements every one of `methods`. */
  has(...methods: AdapterMethod[]): boolean {
    return methods.every((m) => this.wrapped.has(m));
  }

  /**
   * The adapter narrowed to `methods`, each wrapped. Throws `MissingAdapterMethods` (listing what
   * is missing) when there is no adapter or it lacks any of them: call it before the first write.
   */
  require<K extends AdapterMethod>(...methods: K[]): Required_<K> {
    const missing = methods.filter((m) => !this.wrapped.has(m));
    if (missing.length) {
      throw new MissingAdapterMethods(
        missing,
        this.adapter
          ? `The adapter does not implement ${missing.join(', ')}, which this sign-in needs. Implement them, or use an adapter that does (TypeOrmAdapter, MemoryAdapter).`
          : `This operation needs storage (${missing.join(', ')}) but no adapter is configured. Configure a TypeORM data source or pass an adapter to AuthModule.`,
      );
    }
    const out = {} as Record<string, unknown>;
    for (const m of methods) out[m] = this.wrapped.get(m);
    return out as Required_<K>;
  }
}

/**
 * A call to an adapter method the service does not wrap (`AccountTokensAdapter`'s, on the raw
 * adapter), its failure surfaced as `AdapterError` (the cause kept, never logged with values).
 */
export async function adapterCall<T>(name: string, fn: () => T | PromiseLike<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof AuthError) throw error;
    throw new AdapterError(`The adapter's ${name} failed (${(error as Error)?.name ?? 'Error'}).`, { cause: error });
  }
}
