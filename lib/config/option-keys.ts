import type { AuthModuleExtras, AuthModuleOptions } from './auth-options.interface.js';

// Written as objects so the compiler fails when the interfaces gain or lose a key.
const OPTION_KEYS = Object.keys({
  secret: 0,
  providers: 0,
  session: 0,
  jwt: 0,
  callbacks: 0,
  events: 0,
  pages: 0,
  theme: 0,
  messages: 0,
  cookies: 0,
  useSecureCookies: 0,
  trustHost: 0,
  url: 0,
  trustedOrigins: 0,
  redirectProxyUrl: 0,
  debug: 0,
  encryptAccountTokens: 0,
  rpc: 0,
  logger: 0,
  account: 0,
  twoFactor: 0,
  nativeApps: 0,
  accessToken: 0,
  apiKeys: 0,
} satisfies Record<keyof AuthModuleOptions, 0>);
const EXTRA_KEYS = Object.keys({
  isGlobal: 0,
  basePath: 0,
  adapter: 0,
  dataSource: 0,
  globalGuard: 0,
  rateLimitStore: 0,
  revocationBus: 0,
  methods: 0,
} satisfies Record<keyof AuthModuleExtras, 0>);

/**
 * Splits what `forRoot` takes in one object into the options and the module settings beside them
 * (`basePath`, `adapter`, `globalGuard`, ...), as `forRoot` does.
 */
export function splitModuleSettings(value: Record<string, unknown>): {
  options: Record<string, unknown>;
  settings: Record<string, unknown>;
} {
  const options: Record<string, unknown> = {};
  const settings: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) (EXTRA_KEYS.includes(key) ? settings : options)[key] = v;
  return { options, settings };
}

/**
 * Options that moved, each setting having one place now (breaking): whether the options (or, by
 * mistake, the settings) still give it, and where it went.
 */
const MOVED_OPTIONS: ReadonlyArray<{ given: (keys: Record<string, unknown>) => boolean; moved: string }> = [
  {
    given: (keys) => keys.rateLimit !== undefined,
    moved:
      '`rateLimit.store` moved to the `rateLimitStore` module setting: write `rateLimitStore: store` next to the options in forRoot (at the top level of forRootAsync, next to useFactory); it also takes a class or `{ useFactory, inject }`.',
  },
  {
    given: (keys) => typeof keys.session === 'object' && keys.session !== null && 'revocationBus' in keys.session,
    moved:
      '`session.revocationBus` moved to the `revocationBus` module setting: write `revocationBus: bus` next to the options in forRoot (at the top level of forRootAsync, next to useFactory); it also takes a class or `{ useFactory, inject }`.',
  },
];
/** Top-level keys of moved options, reported by their `MOVED_OPTIONS` message instead of as unknown. */
const MOVED_KEYS = ['rateLimit'];

/**
 * Problems with the top-level keys of the options (as `forRoot` got them, or as the `forRootAsync`
 * factory returned them) and of the extras (the settings next to them): a key the module does not
 * know, with the closest known one, or a key in the wrong place. A typo is never silently ignored.
 */
export function optionKeyProblems(options: object, extras: object): string[] {
  const problems: string[] = [];
  for (const { given, moved } of MOVED_OPTIONS) {
    if (given(options as Record<string, unknown>) || given(extras as Record<string, unknown>)) problems.push(moved);
  }
  for (const key of Object.keys(options)) {
    if (OPTION_KEYS.includes(key) || MOVED_KEYS.includes(key)) continue;
    if (EXTRA_KEYS.includes(key)) {
      problems.push(
        `\`${key}\` shapes the module, so it cannot come from the options factory: give it at the top level of forRootAsync, next to useFactory.`,
      );
    } else {
      problems.push(unknownKey(key));
    }
  }
  for (const key of Object.keys(extras)) {
    if (EXTRA_KEYS.includes(key) || MOVED_KEYS.includes(key)) continue;
    if (OPTION_KEYS.includes(key)) {
      problems.push(
        `\`${key}\` is an option, not a module setting: with forRootAsync, return it from the factory (useFactory or createAuthOptions()).`,
      );
    } else {
      problems.push(unknownKey(key));
    }
  }
  return problems;
}

function unknownKey(key: string): string {
  const known = [...OPTION_KEYS, ...EXTRA_KEYS];
  const close = closestKey(key, known);
  return `unknown option \`${key}\`: ${close ? `did you mean \`${close}\`?` : `use one of ${known.join(', ')}.`}`;
}

/** The known key nearest to `key` (case-insensitive edit distance), when near enough to be a typo. */
function closestKey(key: string, known: readonly string[]): string | undefined {
  let best: { key: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (!best || distance < best.distance) best = { key: candidate, distance };
  }
  // One edit in four characters (at least two): `sesion`, `globalGaurd`, `secrets` are typos; `foo` is not.
  return best && best.distance <= Math.max(2, Math.floor(key.length / 4)) ? best.key : undefined;
}

/** Levenshtein distance, with a swap of two neighbours counting as one edit. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}
