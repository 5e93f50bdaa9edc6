import { AdapterConflictError, AdapterNotFoundError, type AdapterConflictKind } from '../../errors/auth.errors.js';
import { mapWriteError } from '../typeorm/write-errors.js';

// Prisma's errors as the adapter contract's typed errors.

/** What Prisma's known request errors carry (`PrismaClientKnownRequestError`), read structurally. */
interface PrismaKnownError {
  code?: unknown;
  meta?: unknown;
  message?: unknown;
}

/** Prisma's error code (`P2002`...), or `undefined` for another error. */
export function prismaCodeOf(error: unknown): string | undefined {
  const code = (error as PrismaKnownError | null)?.code;
  return typeof code === 'string' && /^P\d{4}$/.test(code) ? code : undefined;
}

/** The violated constraint as far as Prisma tells (its `meta`: the fields or the index), for the conflict kind. */
export function prismaTargetOf(error: unknown): string {
  const e = (error as PrismaKnownError | null) ?? {};
  let meta = '';
  try {
    meta = JSON.stringify(e.meta ?? {});
  } catch {
    // A meta that is no JSON tells nothing.
  }
  return meta;
}

/**
 * A unique violation (`P2002`) as `AdapterConflictError`, a foreign-key violation (`P2003`) as
 * `AdapterNotFoundError` (a row for an unknown user), naming the rule, never the values; a driver's
 * own error (a raw query) as `mapWriteError` maps it. Anything else is returned as it is.
 */
export function prismaWriteError(error: unknown, conflict: (error: unknown) => AdapterConflictKind): unknown {
  const code = prismaCodeOf(error);
  if (code === 'P2002') return new AdapterConflictError(conflict(error), undefined, { cause: error });
  if (code === 'P2003') return new AdapterNotFoundError('user', 'The record refers to a user that does not exist.');
  return mapWriteError(error, conflict);
}
