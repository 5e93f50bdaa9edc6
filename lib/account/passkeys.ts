import { Inject, Injectable } from '@nestjs/common';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { AdapterService } from '../core/adapter.service.js';
import { AuthEvents } from '../core/auth-events.js';
import {
  deletePasskey,
  listPasskeys,
  renamePasskey,
  webauthnProviderOf,
  type PasskeyInfo,
} from '../methods/webauthn/index.js';
import { UserWaysIn } from '../sign-in/user-ways-in.js';

/**
 * Managing a signed-in user's own passkeys (what the WebAuthn method offers: listing, renaming,
 * deleting), each change firing `events.accountChange`. `AuthService` and the `/account` routes call
 * it; neither checks the recent sign-in here: the routes do, application code decides.
 */
@Injectable()
export class Passkeys {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly adapters: AdapterService,
    private readonly events: AuthEvents,
    private readonly waysIn: UserWaysIn,
  ) {}

  /** Whether a WebAuthn provider is configured (passkeys can be added). */
  get enabled(): boolean {
    return webauthnProviderOf(this.config) !== undefined;
  }

  list(userId: string): Promise<PasskeyInfo[]> {
    return listPasskeys(this.adapters, this.config, userId);
  }

  async rename(userId: string, credentialID: string, name: string | null): Promise<PasskeyInfo> {
    const renamed = await renamePasskey(this.adapters, this.config, userId, credentialID, name);
    this.events.emit('accountChange', { action: 'passkey.rename', userId, detail: { credentialID } });
    return renamed;
  }

  async delete(userId: string, credentialID: string): Promise<void> {
    await deletePasskey(this.adapters, this.config, this.waysIn, userId, credentialID);
    this.events.emit('accountChange', { action: 'passkey.delete', userId, detail: { credentialID } });
  }
}
