import type { InternalProviderOf } from '../../providers/internal-provider.js';
import { validateLimitSettings } from '../../rate-limit/limit-settings.validate.js';
import type { CredentialsConfig } from './credentials.types.js';

/**
 * Bootstrap checks of a credentials provider: the form fields, the lockout settings and the input
 * bound. (A missing `authorize` is reported by resolve-config, as MissingAuthorize.) Pushes one
 * message per problem, each saying what to do.
 */
export function validateCredentialsProvider(
  provider: InternalProviderOf<'credentials'>,
  problems: string[],
  _ctx: { hasAdapter: boolean },
): void {
  const c: Partial<CredentialsConfig> = provider.config;
  const where = `providers ${JSON.stringify(provider.id)} (credentials)`;

  const fields = c.credentials;
  if (fields === undefined || fields === null || typeof fields !== 'object' || Array.isArray(fields)) {
    problems.push(
      `${where}: \`credentials\` must be an object of form fields, e.g. { email: { label: 'Email' }, password: { label: 'Password', type: 'password' } }.`,
    );
  } else {
    for (const [name, input] of Object.entries(fields)) {
      if (!/^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/.test(name)) {
        problems.push(
          `${where}: credentials field ${JSON.stringify(name.slice(0, 64))} needs a plain name (letters, digits, '_', '.', '-'; at most 64 characters).`,
        );
      } else if (name === 'csrfToken' || name === 'callbackUrl') {
        problems.push(
          `${where}: credentials field ${JSON.stringify(name)} clashes with the form's own hidden field; rename it.`,
        );
      }
      if (input === null || typeof input !== 'object' || Array.isArray(input)) {
        problems.push(`${where}: credentials.${name} must be an object like { label: 'Password', type: 'password' }.`);
      }
    }
  }

  const lockout = validateLimitSettings(
    c.lockout,
    { where, name: 'lockout', counts: ['maxAttempts', 'maxAttemptsPerIp'], extra: ['identifierField'] },
    problems,
  );
  const id = lockout?.identifierField;
  if (id !== undefined) {
    if (typeof id !== 'string' || id === '') {
      problems.push(`${where}: lockout.identifierField must be the name of a credentials field.`);
    } else if (fields && typeof fields === 'object' && !Object.hasOwn(fields, id)) {
      problems.push(
        `${where}: lockout.identifierField ${JSON.stringify(id)} is not one of the credentials fields (${Object.keys(fields).join(', ') || 'none'}).`,
      );
    }
  }

  const store = c.passwordStore as Partial<Record<string, unknown>> | undefined;
  if (store !== undefined) {
    if (
      store === null ||
      typeof store !== 'object' ||
      typeof store.getPasswordHash !== 'function' ||
      typeof store.setPasswordHash !== 'function'
    ) {
      problems.push(
        `${where}: passwordStore must be an object with getPasswordHash(userId) and setPasswordHash(userId, hash).`,
      );
    } else if (
      store.minLength !== undefined &&
      (!Number.isInteger(store.minLength) || (store.minLength as number) < 1 || (store.minLength as number) > 1024)
    ) {
      problems.push(`${where}: passwordStore.minLength must be an integer from 1 to 1024.`);
    }
  }

  const max = c.maxInputLength;
  if (max !== undefined && (!Number.isInteger(max) || (max as number) < 1 || (max as number) > 65_536)) {
    problems.push(`${where}: maxInputLength must be an integer from 1 to 65536, not ${JSON.stringify(max)}.`);
  }
}
