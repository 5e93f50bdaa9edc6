/**
 * The enumeration of every way into an account (issue 35): each place in lib/ that writes an
 * account link, an authenticator, a user's address or a password, and each route of the action
 * table, is listed here with the check that guards it. A new writer or a new route fails this test
 * until it is added, with its check; `test/ways-in.e2e-spec.ts` then proves the checks from outside
 * (a stale session is refused on every route that adds a way in, and writes nothing).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { AUTH_ROUTE_PATHS } from '../lib/router/auth-routes.js';

const LIB = join(process.cwd(), 'lib');

/** The adapter and password-store methods that write a way in (or take one away). */
const WRITES =
  /\.(linkAccount|createAuthenticator|updateUser|setPasswordHash|unlinkAccount|deleteAuthenticator|createTwoFactor|replaceTwoFactors|deleteTwoFactorsByUserId|createApiKey|createRefreshFamily)\(/g;

/**
 * `file method` → how many calls, and what guards them. "pipeline" is the sign-in pipeline
 * (SignInService → AccountLinkingService), whose attaching branches call WaysInGate.check.
 */
const WRITERS: Record<string, { calls: number; guard: string }> = {
  // Native apps (`nativeApps`): a refresh-token family is a long-lived way in.
  'native-apps/refresh-tokens.ts createRefreshFamily': {
    calls: 1,
    guard:
      "the token route redeems only a one-time code the authorize route issued to a session WaysInGate 'app-sign-in' found recent (else the user signed in again, through the pipeline), bound to the client, redirect URI and PKCE challenge",
  },
  // API keys (`apiKeys`): a key is a way in for scripts and services.
  'tokens/api-keys.service.ts createApiKey': {
    calls: 1,
    guard:
      "create and rotate: the 'api-keys/create' and 'api-keys/rotate' actions, declared { wayIn: 'add-api-key' } (an API key itself is refused by the account API); AuthService.createApiKey/rotateApiKey: the app's own check",
  },
  // Second factors (`twoFactor`): an app or backup codes added, removed or made again.
  'methods/two-factor/two-factors.service.ts createTwoFactor': {
    calls: 2,
    guard:
      "startTotp: the 'two-factor/totp' action, declared { wayIn: 'add-second-factor' }; enrolConfirmed: a required enrolment at sign-in, proved by that sign-in's first factor (TwoFactorChallenge)",
  },
  'methods/two-factor/two-factors.service.ts replaceTwoFactors': {
    calls: 1,
    guard:
      "new backup codes: 'two-factor/confirm' and 'two-factor/backup-codes', declared { wayIn: 'add-second-factor' }, or a required enrolment at sign-in",
  },
  'methods/two-factor/two-factors.service.ts deleteTwoFactorsByUserId': {
    calls: 2,
    guard:
      "removing the last app: 'two-factor/remove', declared { wayIn: 'remove-second-factor' }; TwoFactors.reset: the administrator's reset (trusted server code)",
  },
  'sign-in/user-creation.service.ts linkAccount': {
    calls: 2,
    guard:
      'pipeline: a new user with its account, or linkOrFindWinner for the links AccountLinkingService and ExplicitLinkService decided (both gated)',
  },
  'sign-in/account-linking.service.ts updateUser': {
    calls: 3,
    guard:
      "pipeline: confirming the signed-in user's address (WaysInGate 'confirm-address'); taking an unproven address off its holder, and putting it back",
  },
  'account/email-change.service.ts updateUser': {
    calls: 1,
    guard: "confirmed by the single-use link sent to the new address; started through WaysInGate 'change-email'",
  },
  'account/password-change.service.ts setPasswordHash': {
    calls: 1,
    guard: "account API: WaysInGate 'set-password'; AuthService.setPassword: the app's own check",
  },
  'methods/webauthn/webauthn-registration.service.ts createAuthenticator': {
    calls: 1,
    guard: "pipeline (afterUser, after AccountLinkingService passed WaysInGate 'add-passkey' for a signed-in user)",
  },
  'methods/webauthn/webauthn-registration.service.ts unlinkAccount': {
    calls: 1,
    guard: "undoes the registration's own link when storing the passkey fails",
  },
  'methods/webauthn/passkeys.ts unlinkAccount': {
    calls: 1,
    guard: "deletePasskey: account API WaysInGate 'remove-passkey'; AuthService.deletePasskey: the app's own check",
  },
  'methods/webauthn/passkeys.ts deleteAuthenticator': { calls: 1, guard: 'deletePasskey, as above' },
  'sign-in/account-management.service.ts unlinkAccount': {
    calls: 1,
    guard: "account API WaysInGate 'unlink-account'; AuthService.unlinkAccount: SensitiveActionProof",
  },
  'account/account-routes.ts unlinkAccount': {
    calls: 1,
    guard: "the 'accounts/unlink' action, declared { wayIn: 'unlink-account' }",
  },
  'guard/auth.service.ts unlinkAccount': {
    calls: 2,
    guard: 'AuthService.unlinkAccount: SensitiveActionProof (the deprecated one-argument form: the caller)',
  },
};

/**
 * Every route of the action table (`AuthAction`) and whether it can add a way in to an existing
 * user, and through what.
 */
const ROUTES: Record<string, string> = {
  providers: 'reads only',
  csrf: 'reads only',
  session: 'reads only (re-issues the session cookie)',
  signin: 'starts a sign-in; what it may attach is decided at the callback, by the pipeline',
  link: "WaysInGate 'link-account' at the start; the callback links only to the user sealed then",
  signout: 'ends a session',
  callback: "the sign-in pipeline: attaching to the signed-in user passes WaysInGate ('link-account', 'add-passkey')",
  'verify-request': 'a page',
  error: 'a page',
  'webauthn-options': "registration for a signed-in user: WaysInGate 'add-passkey'",
  'webauthn-client': 'a script',
  'backchannel-logout': 'ends sessions, authenticated by the provider-signed logout token',
  account: 'each action declares its check (AccountRoutes.list(), walked by test/ways-in.e2e-spec.ts)',
  'two-factor':
    "completes a sign-in the second factor holds; a required enrolment adds an app proved by this same sign-in's first factor",
  authorize:
    "a native app's sign-in: only from a session WaysInGate 'app-sign-in' finds recent (else the user signs in again), by a signed-in person's choice",
  token:
    'exchanges a one-time code the authorize route issued (PKCE-bound), or rotates a refresh token of an existing family',
  revoke: "ends a native app's sign-in",
  jwks: 'reads only (public keys)',
  'access-token':
    'a token for the signed-in session (never made from a token or API key): adds no way in, lives accessToken.maxAge',
  unknown: 'answers 400',
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'fixtures' || e.name === 'testing' ? [] : sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts') ? [path] : [];
  });
}

describe('the ways into an account, enumerated', () => {
  it('lists every place in lib/ that writes an account, an authenticator, an address or a password', () => {
    const found: Record<string, number> = {};
    for (const file of sources(LIB)) {
      const rel = relative(LIB, file).split('\\').join('/');
      if (rel.startsWith('adapters/')) continue; // the storage itself
      for (const match of readFileSync(file, 'utf8').matchAll(WRITES)) {
        const key = `${rel} ${match[1]}`;
        found[key] = (found[key] ?? 0) + 1;
      }
    }
    const listed = Object.fromEntries(Object.entries(WRITERS).map(([key, { calls }]) => [key, calls]));
    const problems = [
      ...Object.entries(found)
        .filter(([key, calls]) => listed[key] !== calls)
        .map(
          ([key, calls]) =>
            `${key}: ${calls} call(s), the enumeration lists ${listed[key] ?? 0}. Add it to WRITERS in test/ways-in.spec.ts with the check that guards it (WaysInGate for anything that adds a way into an existing user).`,
        ),
      ...Object.keys(listed)
        .filter((key) => !(key in found))
        .map((key) => `${key}: listed but no longer in lib/; remove it from WRITERS.`),
    ];
    expect(problems).toEqual([]);
    for (const { guard } of Object.values(WRITERS)) expect(guard.length).toBeGreaterThan(10);
  });

  it('classifies every route of the action table', () => {
    // AUTH_ROUTE_PATHS is a Record over every AuthAction but the catch-all: a new action is there.
    const actions = [...Object.keys(AUTH_ROUTE_PATHS), 'unknown'];
    expect(actions.filter((a) => !(a in ROUTES))).toEqual([]);
    expect(Object.keys(ROUTES).filter((a) => !actions.includes(a))).toEqual([]);
  });

  it('routes the gated writers through WaysInGate', () => {
    const read = (rel: string) => readFileSync(join(LIB, rel), 'utf8');
    // Each attaching branch of the pipeline, the link's start and the passkey options call the gate.
    expect(read('sign-in/account-linking.service.ts').match(/this\.gate\.check\(/g)).toHaveLength(2);
    expect(read('sign-in/explicit-link.service.ts')).toMatch(/this\.gate\.check\(state, 'link-account'\)/);
    expect(read('methods/webauthn/webauthn-options.service.ts')).toMatch(
      /if \(sessionUser\) await this\.gate\.checkRequest\(ctx, 'add-passkey'\)/,
    );
    expect(read('account/account-routes.ts')).toMatch(/await this\.gate\.check\(req\.state, action\.check\.wayIn\)/);
  });
});
