import { describe, expect, it } from '@jest/globals';
import type { InternalProviderOf } from '../../providers/internal-provider.js';
import { Credentials, CREDENTIALS_DEFAULTS, resolveLockout } from './credentials.provider.js';
import { validateCredentialsProvider } from './credentials.validate.js';

/** resolve-config's merge (plain objects merged, everything else replaced), kept local to avoid its imports. */
function deepMerge(target: Record<string, unknown>, source: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...target };
  for (const [key, value] of Object.entries(source)) {
    const current = out[key];
    const plain = (v: unknown) => v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype;
    out[key] =
      plain(value) && plain(current)
        ? deepMerge(current as Record<string, unknown>, value as Record<string, unknown>)
        : value;
  }
  return out;
}

/** The provider as resolve-config builds it: the factory's defaults with the user's options merged over. */
function internal(raw: Record<string, unknown>): InternalProviderOf<'credentials'> {
  const { options, ...defaults } = raw as Record<string, unknown> & { options?: Record<string, unknown> };
  const config = deepMerge(defaults, options ?? {}) as InternalProviderOf<'credentials'>['config'];
  return { id: config.id, name: config.name, type: config.type, config };
}

function problemsOf(raw: Record<string, unknown>): string[] {
  const problems: string[] = [];
  validateCredentialsProvider(internal(raw), problems, { hasAdapter: false });
  return problems;
}

const fields = { email: { label: 'Email', type: 'email' }, password: { label: 'Password', type: 'password' } };
const authorize = async () => null;

describe('Credentials()', () => {
  it('has Auth.js defaults and merges the user config over them', () => {
    const p = internal(Credentials({ credentials: fields, authorize }) as never);
    expect(p).toMatchObject({ id: 'credentials', name: 'Credentials', type: 'credentials' });
    expect(p.config.credentials).toEqual(fields);
    expect(p.config.authorize).toBe(authorize);
    const custom = internal(Credentials({ id: 'password', name: 'Password', credentials: {}, authorize }) as never);
    expect(custom).toMatchObject({ id: 'password', name: 'Password', type: 'credentials' });
  });

  it('gives no default authorize (a forgotten one is a bootstrap error, not a silent refusal)', () => {
    const p = internal(Credentials({ credentials: fields } as never) as never);
    expect(p.config.authorize).toBeUndefined();
  });

  it('resolves the lockout defaults and the identifier field', () => {
    expect(resolveLockout({ credentials: fields })).toEqual({
      maxAttempts: 5,
      maxAttemptsPerIp: 30,
      windowSeconds: 900,
      identifierField: 'email',
    });
    expect(resolveLockout({ credentials: { username: {}, password: {} } })?.identifierField).toBe('username');
    expect(resolveLockout({ credentials: { phone: {}, pin: {} } })?.identifierField).toBe('phone');
    expect(
      resolveLockout({ credentials: fields, lockout: { maxAttempts: 3, identifierField: 'password' } }),
    ).toMatchObject({ maxAttempts: 3, maxAttemptsPerIp: 30, identifierField: 'password' });
    expect(resolveLockout({ credentials: fields, lockout: false })).toBeNull();
    expect(CREDENTIALS_DEFAULTS).toMatchObject({
      maxAttempts: 5,
      maxAttemptsPerIp: 30,
      windowSeconds: 900,
      maxInputLength: 1024,
    });
  });
});

describe('validateCredentialsProvider', () => {
  it('accepts a well-formed provider', () => {
    expect(
      problemsOf(
        Credentials({
          credentials: fields,
          authorize,
          lockout: { maxAttempts: 10, windowSeconds: 60, identifierField: 'email' },
          maxInputLength: 2048,
        }) as never,
      ),
    ).toEqual([]);
    expect(problemsOf(Credentials({ credentials: fields, authorize, lockout: false }) as never)).toEqual([]);
  });

  it('reports every problem, each saying what to do', () => {
    const problems = problemsOf({
      id: 'credentials',
      name: 'Credentials',
      type: 'credentials',
      authorize,
      credentials: { 'bad name': {}, csrfToken: {}, password: 'text' },
      lockout: { maxAttempts: 0, maxAttemptsPerIp: 2.5, windowSeconds: -1, identifierField: 'username', maxAttempt: 3 },
      maxInputLength: 0,
    });
    expect(problems).toHaveLength(9);
    expect(problems.join('\n')).toMatch(/"bad name" needs a plain name/);
    expect(problems.join('\n')).toMatch(/"csrfToken" clashes/);
    expect(problems.join('\n')).toMatch(/credentials.password must be an object/);
    expect(problems.join('\n')).toMatch(/lockout.maxAttempts must be a positive integer/);
    expect(problems.join('\n')).toMatch(/lockout.maxAttemptsPerIp must be a positive integer/);
    expect(problems.join('\n')).toMatch(/lockout.windowSeconds must be a positive number/);
    expect(problems.join('\n')).toMatch(/identifierField "username" is not one of the credentials fields/);
    expect(problems.join('\n')).toMatch(
      /lockout.maxAttempt is not a setting; use maxAttempts, maxAttemptsPerIp, windowSeconds, identifierField/,
    );
    expect(problems.join('\n')).toMatch(/maxInputLength must be an integer/);
    for (const p of problems) expect(p.startsWith('providers "credentials" (credentials): ')).toBe(true);
  });

  it('checks passwordStore: both functions, and a sensible minLength', () => {
    const base = { id: 'c', name: 'C', type: 'credentials', authorize, credentials: {} };
    expect(problemsOf({ ...base, passwordStore: { getPasswordHash: () => null } })).toEqual([
      expect.stringMatching(/passwordStore must be an object with getPasswordHash\(userId\) and setPasswordHash/),
    ]);
    const store = { getPasswordHash: () => null, setPasswordHash: () => undefined };
    expect(problemsOf({ ...base, passwordStore: { ...store, minLength: 0 } })).toEqual([
      expect.stringMatching(/passwordStore.minLength must be an integer from 1 to 1024/),
    ]);
    expect(problemsOf({ ...base, passwordStore: store })).toEqual([]);
  });

  it('requires credentials to be an object and lockout an object or false', () => {
    expect(problemsOf({ id: 'c', name: 'C', type: 'credentials', authorize, credentials: [] })).toEqual([
      expect.stringMatching(/`credentials` must be an object of form fields/),
    ]);
    expect(problemsOf({ id: 'c', name: 'C', type: 'credentials', authorize })).toHaveLength(1);
    expect(problemsOf({ id: 'c', name: 'C', type: 'credentials', authorize, credentials: {}, lockout: true })).toEqual([
      expect.stringMatching(/`lockout` must be an object/),
    ]);
  });
});
