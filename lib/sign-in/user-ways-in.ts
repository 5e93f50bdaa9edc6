import { Inject, Injectable } from '@nestjs/common';
import type { AccountTokensAdapter, AdapterAccount, AdapterUser } from '../adapters/adapter.interface.js';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { InternalProvider, ResolvedAuthConfig } from '../config/resolved-config.js';
import { AdapterService } from '../core/adapter.service.js';
import { AdapterError, LastSignInMethod } from '../errors/auth.errors.js';
import { SIGN_IN_METHODS, type SignInMethod } from './sign-in-method.js';

/** One way a stored user can sign in today. */
export interface WayIn {
  /**
   * What it is. The built-in methods give `account` (a linked OAuth/OIDC account), `passkey` (a
   * WebAuthn credential), `email` (a verified address with an email provider configured) and
   * `password` (a credentials account or stored hash); an app's own method names its own.
   */
  kind: 'account' | 'passkey' | 'email' | 'password' | (string & {});
  /** The configured provider it goes through. */
  provider: string;
  /** The provider account id (`account`, `password` rows) or the credential id (`passkey`). */
  providerAccountId?: string;
}

/** What a method's `waysIn` is asked with: one user, the method's providers, what is read once for all. */
export interface WaysInQuery {
  readonly userId: string;
  /** The configured providers of the method's types, in configuration order (never empty). */
  readonly providers: readonly InternalProvider[];
  /** The user's account rows (any provider), or `null` when the adapter cannot list them. */
  readonly accounts: readonly AdapterAccount[] | null;
  /** The stored user (read at most once, for every method that asks), or `null`. */
  user(): Promise<AdapterUser | null>;
  readonly adapters: AdapterService;
  readonly config: ResolvedAuthConfig;
}

/**
 * Every way the user can sign in today: each registered method that has providers configured is
 * asked for the ways it gives (`SignInMethod.waysIn`), with the user's accounts and the user read
 * once for all. Whatever the adapter cannot list counts as absent, so the rule fails closed.
 */
export async function waysIntoAccount(
  methods: readonly SignInMethod[],
  adapters: AdapterService,
  config: ResolvedAuthConfig,
  userId: string,
): Promise<WayIn[]> {
  const accounts = await listUserAccounts(adapters, userId);
  let user: Promise<AdapterUser | null> | undefined;
  const readUser = () =>
    (user ??= adapters.has('getUser')
      ? Promise.resolve(adapters.require('getUser').getUser(userId))
      : Promise.resolve(null));
  const ways: WayIn[] = [];
  for (const method of methods) {
    if (!method.waysIn) continue;
    const providers = config.providers.filter((p) => method.types.includes(p.type));
    if (providers.length === 0) continue;
    ways.push(...(await method.waysIn({ userId, providers, accounts, user: readUser, adapters, config })));
  }
  return ways;
}

/**
 * The one rule for "the user's last way to sign in", shared by unlinking an account, deleting a
 * passkey and anything else that removes a sign-in method: the ways in every registered method
 * gives ({@link waysIntoAccount}) are counted here, once, never in a flow.
 */
@Injectable()
export class UserWaysIn {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly adapters: AdapterService,
    @Inject(SIGN_IN_METHODS) private readonly methods: readonly SignInMethod[],
  ) {}

  /** Every way the user can sign in today. */
  list(userId: string): Promise<WayIn[]> {
    return waysIntoAccount(this.methods, this.adapters, this.config, userId);
  }

  /**
   * Throws `LastSignInMethod` when removing the ways `removing` selects would leave the user no way
   * to sign in. Call it before the first write, under the user's queue (`KeyedQueue`).
   */
  async assertKeeps(userId: string, removing: (way: WayIn) => boolean, what = 'This'): Promise<void> {
    const remaining = (await this.list(userId)).filter((way) => !removing(way));
    if (remaining.length === 0)
      throw new LastSignInMethod(
        `${what} is the user's only way to sign in: link another account, add a passkey or set a password first.`,
      );
  }
}

/**
 * The user's account rows (any provider), or `null` when the adapter cannot list them (it lacks
 * `listAccountsByUserId`, `AccountTokensAdapter`). A failure surfaces as `AdapterError`.
 */
export async function listUserAccounts(adapters: AdapterService, userId: string): Promise<AdapterAccount[] | null> {
  const raw = adapters.raw as Partial<AccountTokensAdapter> | null;
  if (typeof raw?.listAccountsByUserId !== 'function') return null;
  try {
    return await raw.listAccountsByUserId(userId);
  } catch (error) {
    throw new AdapterError("The adapter's listAccountsByUserId failed. Check the database connection and schema.", {
      cause: error,
    });
  }
}
