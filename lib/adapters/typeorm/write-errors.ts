import { AdapterConflictError, AdapterNotFoundError, type AdapterConflictKind } from '../../errors/auth.errors.js';

// Drivers' constraint violations as the adapter contract's typed errors.

interface DriverError {
  code?: string;
  errno?: number;
  constraint?: string;
  message?: string;
}

function driverErrorOf(error: unknown): DriverError {
  const e = error as { driverError?: DriverError } & DriverError;
  return e?.driverError ?? e ?? {};
}

/** The name of the violated constraint, as far as the driver tells (for choosing the conflict kind). */
export function constraintOf(error: unknown): string {
  const e = driverErrorOf(error);
  return `${e.constraint ?? ''} ${e.message ?? ''}`;
}

/**
 * A driver's unique or foreign-key violation as a typed error that names the rule, never the values
 * (drivers quote the duplicate key in their messages). Anything else is rethrown as it is.
 */
export function mapWriteError(error: unknown, conflict: (error: unknown) => AdapterConflictKind): unknown {
  const { code, errno } = driverErrorOf(error);
  if (
    code === '23505' ||
    code === 'ER_DUP_ENTRY' ||
    errno === 1062 ||
    code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  ) {
    return new AdapterConflictError(conflict(error), undefined, { cause: error });
  }
  if (
    code === '23503' ||
    code === 'ER_NO_REFERENCED_ROW_2' ||
    errno === 1452 ||
    code === 'SQLITE_CONSTRAINT_FOREIGNKEY'
  ) {
    return new AdapterNotFoundError('user', 'The record refers to a user that does not exist.');
  }
  return error;
}
