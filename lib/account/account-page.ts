import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import type { RequestContext } from '../core/request-context.js';
import { Verification } from '../errors/auth.errors.js';
import { isPlausibleToken } from '../methods/email/index.js';
import { webauthnProviderOf } from '../methods/webauthn/index.js';
import type { AccountPageParams } from '../pages/account.page.js';
import { loadRenderers } from '../pages/load-renderers.js';
import type { AuthResponse } from '../types/http.types.js';
import type { EmailChangeService } from './email-change.service.js';
import type { Passkeys } from './passkeys.js';
import type { PasswordChangeService } from './password-change.service.js';
import type { AccountRequest } from './account-routes.js';

/**
 * The parts of the account page that other parts of the module fill in (sessions, linked
 * accounts, deleting the account, two-factor, API keys), each `undefined` when not available.
 */
export interface AccountSections {
  sessions?: AccountPageParams['sessions'];
  accounts?: AccountPageParams['accounts'];
  canDelete?: boolean;
  twoFactor?: AccountPageParams['twoFactor'];
  apiKeys?: AccountPageParams['apiKeys'];
}

/** The parts whose state the page shows: the user's passkeys, email change, password. */
export interface AccountPageParts {
  passkeys: Passkeys;
  emailChange: EmailChangeService;
  passwords: PasswordChangeService;
}

export { wantsJson as isJsonRequest } from '../core/web-request.js';

/** `GET /account`: the page, or (JSON) what it shows, with the CSRF token for the actions. */
export async function accountPage(
  config: ResolvedAuthConfig,
  { passkeys: passkeyList, emailChange, passwords }: AccountPageParts,
  req: AccountRequest,
  json: boolean,
  readSections: (req: AccountRequest) => Promise<AccountSections>,
): Promise<AuthResponse> {
  const { ctx, user } = req;
  const webauthn = webauthnProviderOf(config);
  const [passkeys, hasPassword, sections] = await Promise.all([
    webauthn ? passkeyList.list(user.id) : undefined,
    passwords.store ? passwords.hasPassword(user.id) : undefined,
    readSections(req),
  ]);
  const email = emailChange.available ? { current: user.email ?? null } : undefined;
  const minLength = passwords.store?.minLength;
  const password = hasPassword === undefined ? undefined : { hasPassword, ...(minLength ? { minLength } : {}) };
  if (json) {
    return {
      json: {
        user: { id: user.id, name: user.name ?? null, email: user.email ?? null },
        csrfToken: ctx.csrfToken,
        ...(sections.sessions ? { sessions: sections.sessions } : {}),
        ...(sections.accounts ? { accounts: sections.accounts.linked, linkable: sections.accounts.linkable } : {}),
        ...(passkeys ? { passkeys } : {}),
        ...(email ? { email } : {}),
        ...(password ? { password } : {}),
        ...(sections.twoFactor ? { twoFactor: sections.twoFactor } : {}),
        ...(sections.apiKeys ? { apiKeys: sections.apiKeys.keys } : {}),
      },
    };
  }
  const query = ctx.request.query;
  const { renderAccountPage } = await loadRenderers();
  return {
    headers: { 'X-Frame-Options': 'DENY' },
    html: renderAccountPage({
      user,
      csrfToken: ctx.csrfToken,
      accountUrl: `${ctx.authUrl}/account`,
      authUrl: ctx.authUrl,
      theme: config.theme,
      notice: query.notice?.slice(0, 64),
      error: query.error?.slice(0, 64),
      sessions: sections.sessions,
      accounts: sections.accounts,
      passkeys:
        webauthn && passkeys
          ? { list: passkeys, provider: webauthn.id, scriptUrl: `${ctx.authUrl}/webauthn-client.js` }
          : undefined,
      email,
      password,
      canDelete: sections.canDelete,
      twoFactor: sections.twoFactor,
      apiKeys: sections.apiKeys,
      messages: config.messages,
    }),
  };
}

/** `GET /account/email/confirm?token&email`: a button that confirms (a link scanner's GET changes nothing). */
export async function emailConfirmPage(config: ResolvedAuthConfig, ctx: RequestContext): Promise<AuthResponse> {
  const { token, email } = ctx.request.query;
  if (!isPlausibleToken(token) || typeof email !== 'string' || email.length > 320)
    throw new Verification('The confirmation link is incomplete; open the link from the email again.');
  const { renderEmailChangeConfirmPage } = await loadRenderers();
  return {
    headers: { 'Referrer-Policy': 'no-referrer', 'X-Frame-Options': 'DENY' },
    html: renderEmailChangeConfirmPage({
      action: `${ctx.authUrl}/account/email/confirm`,
      csrfToken: ctx.csrfToken,
      token,
      email,
      theme: config.theme,
      messages: config.messages,
    }),
  };
}
