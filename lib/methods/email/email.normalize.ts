import { domainToASCII } from 'node:url';
import { EmailSignInError } from '../../errors/auth.errors.js';

/** Longest address accepted (RFC 5321: a path holds at most 254 characters of address). */
export const EMAIL_MAX_LENGTH = 254;

/** Longest raw input looked at: anything longer is refused before Unicode normalisation runs. */
const MAX_INPUT_LENGTH = 1024;

/**
 * Characters no sign-in address may contain. Each one lets a mail library read one string as
 * several addresses, or as an address other than the one stored: double quotes and backslashes
 * (`"a@evil"@victim.com`, GHSA-5jpx-9hw9-2fx4), commas and semicolons (address lists,
 * CVE-2022-35924), angle brackets, parentheses and colons (display names, comments, groups),
 * square brackets (address literals), whitespace, control and invisible formatting characters
 * (header injection, spoofing). Apostrophes and backticks are not among them: they are plain
 * `atext` (RFC 5322), in an SMTP envelope as they are, and the browser's `type=email` check accepts
 * them (WHATWG "valid e-mail address"), so `o'brien@example.com` signs in.
 */
const FORBIDDEN = /[\p{Cc}\p{Cf}\p{Z}\s"(),:;<>[\]\\]/u;

const DOMAIN_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * The default `normalizeIdentifier` of email providers: one canonical address, or an
 * `EmailSignin` error before anything is looked up, stored or sent.
 *
 * Unicode NFKC runs first, so full-width or small `＠` / `﹫` become `@` and are counted with the
 * others (GHSA-7rqj-j65f-68wh); then trim and lower-case. The result has exactly one `@`, a local
 * part of 1-64 bytes without leading, trailing or doubled dots, a domain of valid DNS labels
 * written in ASCII (internationalised domains in punycode, so both spellings are one user), none
 * of the forbidden characters (double quotes, backslashes, commas, semicolons, angle brackets,
 * parentheses, colons, square brackets, whitespace, control and invisible formatting characters),
 * and at most 254 characters (`EMAIL_MAX_LENGTH`).
 * `+tags` are kept: `a+x@example.com` and `a@example.com` are different users.
 *
 * Every local part the WHATWG "valid e-mail address" production (the browser's `type=email` check)
 * accepts is accepted (letters, digits and ``.!#$%&'*+/=?^_`{|}~-``, so `o'brien@example.com`),
 * except dots at either end or doubled, which an SMTP envelope can carry only quoted. Local parts
 * beyond ASCII (`josé@…`, SMTPUTF8) are accepted as before.
 */
export function defaultNormalizeIdentifier(identifier: string): string {
  if (typeof identifier !== 'string' || identifier.trim() === '') {
    throw new EmailSignInError('Enter an email address.');
  }
  if (identifier.length > MAX_INPUT_LENGTH) throw invalid();
  const value = identifier.normalize('NFKC').trim().toLowerCase();
  if (value.length === 0 || value.length > EMAIL_MAX_LENGTH || FORBIDDEN.test(value)) throw invalid();

  const parts = value.split('@');
  if (parts.length !== 2) throw invalid();
  const [local, domain] = parts as [string, string];
  if (local.length === 0 || Buffer.byteLength(local, 'utf8') > 64) throw invalid();
  if (local.startsWith('.') || local.endsWith('.') || local.includes('..')) throw invalid();

  // `domainToASCII` applies IDNA (UTS #46) and returns '' for a name it cannot convert.
  const ascii = domain.endsWith('.') ? '' : domainToASCII(domain);
  if (!ascii || ascii.length > 253 || !ascii.split('.').every((label) => DOMAIN_LABEL.test(label))) throw invalid();

  const address = `${local}@${ascii}`;
  if (address.length > EMAIL_MAX_LENGTH) throw invalid();
  return address;
}

function invalid(): EmailSignInError {
  // The address stays out of the message: messages are logged.
  return new EmailSignInError('The email address is not valid: enter a single address like name@example.com.');
}
