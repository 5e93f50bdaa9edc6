/**
 * The one place that decides whether an instant read from storage or from a token is valid, and
 * whether it lies in the past or the future. Everything else asks these functions instead of
 * comparing dates itself, because the obvious comparison fails open: `NaN < now` and `NaN > now`
 * are both false, so `expires.valueOf() < now` lets an invalid date through as "not expired".
 *
 * The rule: an instant that is missing, not a `Date` (or, for token claims, not a number), NaN,
 * infinite or outside what a `Date` can hold is invalid, and an invalid expiry is expired.
 */

/** The largest distance from the epoch a `Date` can hold, in milliseconds (ECMA-262 21.4.1.1). */
export const MAX_INSTANT_MS = 8.64e15;

/** Seconds of clock skew tolerated on token time claims (`exp`, `nbf`, `iat`), as in Auth.js. */
export const CLOCK_SKEW_SECONDS = 15;

/** Milliseconds since the epoch of a valid `Date`; `undefined` for anything else (strings included). */
export function dateMs(value: unknown): number | undefined {
  if (!(value instanceof Date)) return undefined;
  const ms = value.getTime();
  return Number.isFinite(ms) && Math.abs(ms) <= MAX_INSTANT_MS ? ms : undefined;
}

/**
 * Milliseconds since the epoch of a JWT NumericDate (seconds, RFC 7519 section 2) or of an OAuth
 * `expires_at`; `undefined` when it is not a finite number a `Date` can hold.
 */
export function numericDateMs(value: unknown): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  const ms = value * 1000;
  return Math.abs(ms) <= MAX_INSTANT_MS ? ms : undefined;
}

/** True only when `ms` is a valid instant strictly after `now`. */
export function isFutureMs(ms: number | undefined, now: number): ms is number {
  return ms !== undefined && ms > now;
}

/** True when a stored expiry (a `Date`) has passed, or is not a valid `Date` at all (fail closed). */
export function isExpiredDate(expires: unknown, now: number = Date.now()): boolean {
  return !isFutureMs(dateMs(expires), now);
}

/** True when a NumericDate expiry (seconds) has passed, or is not a valid number at all (fail closed). */
export function isExpiredNumericDate(exp: unknown, now: number = Date.now()): boolean {
  return !isFutureMs(numericDateMs(exp), now);
}

/** The verdict on a token's time claims; see {@link checkTimeClaims}. */
export type TimeClaimsVerdict = { status: 'valid'; expMs: number } | { status: 'expired' } | { status: 'invalid' };

/**
 * Checks a token's `exp` (required), `nbf` and `iat` (optional) against `now`:
 * - any of them present but not a valid NumericDate: `invalid`;
 * - `nbf` or `iat` later than `now` plus {@link CLOCK_SKEW_SECONDS}: `invalid` (a token cannot be
 *   issued in the future; one that claims so was minted with a wrong clock or forged with the secret);
 * - `exp` at or before `now` (less `expToleranceMs`): `expired`.
 */
export function checkTimeClaims(
  claims: { exp?: unknown; nbf?: unknown; iat?: unknown },
  now: number = Date.now(),
  expToleranceMs = 0,
): TimeClaimsVerdict {
  const expMs = numericDateMs(claims.exp);
  if (expMs === undefined) return { status: 'invalid' };
  const latest = now + CLOCK_SKEW_SECONDS * 1000;
  for (const claim of [claims.nbf, claims.iat]) {
    if (claim === undefined) continue;
    const ms = numericDateMs(claim);
    if (ms === undefined || ms > latest) return { status: 'invalid' };
  }
  return expMs > now - expToleranceMs ? { status: 'valid', expMs } : { status: 'expired' };
}

/**
 * A duration in milliseconds read from a store (a window's remaining time, a TTL) made safe:
 * a finite number within `[0, max]`, else `fallback` (the caller's full window, so a bad value
 * errs on the side of "still limited").
 */
export function safeDurationMs(value: unknown, fallback: number, max: number = MAX_INSTANT_MS): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= max ? value : fallback;
}

/** The last instant whose ISO string has a four-digit year: 9999-12-31T23:59:59.999Z. */
const LAST_FOUR_DIGIT_YEAR_MS = 253_402_300_799_999;
const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/**
 * `new Date(ms).toISOString()` computed with integer arithmetic, without creating a `Date`: the
 * same string for every whole millisecond from 1970 to the end of year 9999 (a spec compares them
 * over random instants and the calendar's edges), a quarter of the time in a loop. Anything else
 * goes to `Date` (which throws a `RangeError` for an invalid instant, as before).
 */
export function isoStringOfMs(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms > LAST_FOUR_DIGIT_YEAR_MS) return new Date(ms).toISOString();
  const days = Math.floor(ms / 86_400_000);
  let rest = ms - days * 86_400_000;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const millis = rest - seconds * 1000;
  // The civil date of a day count, through 400-year eras of 146,097 days that start on March 1st.
  const shifted = days + 719_468;
  const era = Math.floor(shifted / 146_097);
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const milli = millis < 10 ? `00${millis}` : millis < 100 ? `0${millis}` : `${millis}`;
  return `${year}-${two(month)}-${two(day)}T${two(hours)}:${two(minutes)}:${two(seconds)}.${milli}Z`;
}
