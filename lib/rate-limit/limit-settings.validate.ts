/**
 * Bootstrap checks shared by the providers' limit settings (credentials `lockout`, email
 * `rateLimit`): an object or `false`, positive integer counts, a positive `windowSeconds`, no
 * unknown keys. Pushes one message per problem, each saying what to do.
 *
 * @returns the settings object when it is one (for further checks), otherwise `undefined`.
 */
export function validateLimitSettings(
  value: unknown,
  options: { where: string; name: string; counts: readonly string[]; extra?: readonly string[] },
  problems: string[],
): Record<string, unknown> | undefined {
  const { where, name, counts, extra = [] } = options;
  if (value === undefined || value === false) return undefined;
  const known = [...counts, 'windowSeconds', ...extra];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    problems.push(`${where}: \`${name}\` must be an object { ${known.join(', ')} } or false.`);
    return undefined;
  }
  const settings = value as Record<string, unknown>;
  for (const key of counts) {
    const v = settings[key];
    if (v !== undefined && (!Number.isInteger(v) || (v as number) < 1)) {
      problems.push(`${where}: ${name}.${key} must be a positive integer, not ${JSON.stringify(v)}.`);
    }
  }
  const w = settings.windowSeconds;
  if (w !== undefined && (typeof w !== 'number' || !Number.isFinite(w) || w <= 0)) {
    problems.push(`${where}: ${name}.windowSeconds must be a positive number of seconds, not ${JSON.stringify(w)}.`);
  }
  for (const key of Object.keys(settings)) {
    if (!known.includes(key)) problems.push(`${where}: ${name}.${key} is not a setting; use ${known.join(', ')}.`);
  }
  return settings;
}
