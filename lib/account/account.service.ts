import { Inject, Injectable } from '@nestjs/common';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { AdapterService } from '../core/adapter.service.js';
import { AuthEvents } from '../core/auth-events.js';
import { deletePasskey, listPasskeys, renamePasskey, type PasskeyInfo } from '../methods/webauthn/index.js';
import { EmailChangeService, type EmailChangeLinks } from './email-change.service.js';
import { PasswordChangeService } from './password-change.service.js';

/**
 * The account operations a signed-in user performs on their own account (passkeys, email,
 * password), each firing `events.accountChange`. `AuthService` and the `/account` routes call
 * these; neither checks the recent sign-in here: the routes do, application code decides.
 */
@Injectable()
export class AccountService {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly adapters: AdapterService,
    private readonly events: AuthEvents,
    readonly emailChange: EmailChangeService,
    readonly passwords: PasswordChangeService,
  ) {}

  /** Whether a WebAuthn provider is configured (passkeys can be added). */
  get passkeysEnabled(): boolean {
    return this.config.providers.some((p) => p.type === 'webauthn');
  }

  listPasskeys(userId: string): Promise<PasskeyInfo[]> {
    return listPasskeys(this.adapters, this.config, userId);
  }

  async renamePasskey(userId: string, credentialID: string, name: string | null): Promise<PasskeyInfo> {
    const renamed = await renamePasskey(this.adapters, this.config, userId, credentialID, name);
    this.events.emit('accountChange', { action: 'passkey.rename', userId, detail: { credentialID } });
    return renamed;
  }

  async deletePasskey(userId: string, credentialID: string): Promise<void> {
    await deletePasskey(this.adapters, this.config, userId, credentialID);
    this.events.emit('accountChange', { action: 'passkey.delete', userId, detail: { credentialID } });
  }

  changeEmail(userId: string, newEmail: unknown, links: EmailChangeLinks): Promise<{ email: string; expires: Date }> {
    return this.emailChange.request(userId, newEmail, links);
  }

  confirmEmailChange(
    userId: string,
    token: unknown,
    email: unknown,
    links: EmailChangeLinks,
  ): Promise<{ email: string; previous: string | null }> {
    return this.emailChange.confirm(userId, token, email, links);
  }

  setPassword(
    userId: string,
    newPassword: unknown,
    currentPassword: unknown,
    options: { requireCurrent: boolean },
  ): Promise<void> {
    return this.passwords.set(userId, newPassword, currentPassword, options);
  }
}
