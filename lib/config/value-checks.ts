// Checks of single option values; each pushes a problem that says what to do and returns a usable value.

/** True for an absolute http(s) URL. */
export function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** A number of seconds above zero, else the fallback (and a problem when one was given). */
export function positiveNumber(value: unknown, fallback: number, name: string, problems: string[]): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    problems.push(`${name} must be a positive number of seconds, not ${JSON.stringify(value)}.`);
    return fallback;
  }
  return value;
}

/**
 * A whole number from 0 to `max` (a count of `unit`), else the fallback (and a problem when one was
 * given, with `example` as a value to write).
 */
export function wholeNumber(
  value: unknown,
  fallback: number,
  { name, max, unit, example }: { name: string; max: number; unit: string; example?: string },
  problems: string[],
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max) {
    problems.push(
      `${name} must be a whole number of ${unit} from 0 to ${max}${example ? ` (e.g. ${example})` : ''}, not ${JSON.stringify(value)}.`,
    );
    return fallback;
  }
  return value;
}

/** A number of seconds, zero or more, else the fallback (and a problem when one was given). */
export function nonNegativeNumber(value: unknown, fallback: number, name: string, problems: string[]): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    problems.push(`${name} must be zero or a positive number of seconds, not ${JSON.stringify(value)}.`);
    return fallback;
  }
  return value;
}
