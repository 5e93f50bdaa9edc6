import { existsSync } from 'node:fs';

/**
 * Whether this run is strict: under CI nothing may skip, so a missing database, Redis or Chromium
 * fails the suite instead of skipping it. Strict means `CI` is set to anything but an empty string,
 * `false` or `0` (case and surrounding spaces ignored): `CI=true`, `CI=1`, `CI=TRUE`, `CI=yes` are
 * all strict, as CI services set it in any of these spellings.
 *
 * Every suite that may skip asks this one function (`test/setup/databases.ts`, `redis.ts`, the
 * Chromium suites, the fuzzer's seed); `test/ci-strict.spec.ts` holds it.
 */
export function isStrictCi(...given: [] | [value: string | undefined]): boolean {
  // An explicit `undefined` means "CI unset", not "read the environment" (a default parameter would).
  const value = given.length ? given[0] : process.env.CI;
  if (value === undefined) return false;
  const normalised = value.trim().toLowerCase();
  return normalised !== '' && normalised !== 'false' && normalised !== '0';
}

/** What a suite prints when it skips: how to make it fail instead. */
export const STRICT_HINT = 'set CI=true to fail instead';

/** Chromium for the browser suites: Debian's package unless `AUTH_TEST_CHROMIUM` names another. */
export const CHROMIUM = process.env.AUTH_TEST_CHROMIUM || '/usr/bin/chromium';

/**
 * Whether {@link CHROMIUM} is there. When it is not, a strict run throws (the browser suites must run
 * in CI); otherwise one line on stderr says which suite is skipped and why.
 */
export function chromiumAvailable(suite: string): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (isStrictCi())
    throw new Error(
      `Chromium is missing at ${CHROMIUM} (CI=${process.env.CI}: ${suite} must run); install the Debian package "chromium".`,
    );
  process.stderr.write(`[skipped] ${suite}: no Chromium at ${CHROMIUM} (${STRICT_HINT})\n`);
  return false;
}

/**
 * DevTools' virtual authenticator as a platform passkey authenticator (resident keys, user
 * verification, presence simulated): the options of `WebAuthn.addVirtualAuthenticator`.
 */
export const VIRTUAL_PLATFORM_AUTHENTICATOR = {
  protocol: 'ctap2',
  transport: 'internal',
  hasResidentKey: true,
  hasUserVerification: true,
  isUserVerified: true,
  automaticPresenceSimulation: true,
} as const;
