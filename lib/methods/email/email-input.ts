// What the email flow reads from a request and a provider: the submitted address (normalised, any
// refusal a clear EmailSignin), a link's token and address, and a generated token, checked.
import { AuthError, CallbackRouteError, EmailSignInError, Verification } from '../../errors/auth.errors.js';
import { defaultNormalizeIdentifier, EMAIL_MAX_LENGTH } from './email.normalize.js';
import type { EmailConfig } from './email.types.js';
import { generateEmailToken, isPlausibleToken } from './email-token.js';

/** The provider's normaliser applied to the submitted address; any refusal is `EmailSignin`. */
export function normalize(provider: EmailConfig, raw: unknown): string {
  if (typeof raw !== 'string' || raw.trim() === '') throw new EmailSignInError('Enter an email address.');
  const normalizer =
    typeof provider.normalizeIdentifier === 'function' ? provider.normalizeIdentifier : defaultNormalizeIdentifier;
  let identifier: unknown;
  try {
    identifier = normalizer(raw);
  } catch (error) {
    if (error instanceof AuthError) throw error;
    throw new EmailSignInError('The email address was refused: enter a single address like name@example.com.', {
      cause: error,
    });
  }
  // Whatever a custom normaliser returns must still be one line of bounded length.
  if (
    typeof identifier !== 'string' ||
    identifier === '' ||
    identifier.length > EMAIL_MAX_LENGTH ||
    /[\u0000-\u001f\u007f]/.test(identifier)
  ) {
    throw new EmailSignInError('The email address is not valid: enter a single address like name@example.com.');
  }
  return identifier;
}

/** The token and address of a link (query on GET, form on POST); anything malformed is `Verification`. */
export function readLink(
  provider: EmailConfig,
  source: Record<string, unknown>,
): { token: string; identifier: string } {
  const token = source.token;
  const email = source.email;
  if (!isPlausibleToken(token) || typeof email !== 'string' || email === '') {
    throw new Verification(
      'The sign-in link is incomplete or malformed; open the link from the email again, or request a new one.',
    );
  }
  let identifier: string;
  try {
    identifier = normalize(provider, email);
  } catch {
    throw new Verification(
      'The sign-in link is incomplete or malformed; open the link from the email again, or request a new one.',
    );
  }
  return { token, identifier };
}

/** Runs the provider's `generateVerificationToken` (or the default) and checks what it returns. */
export async function generateToken(provider: EmailConfig): Promise<string> {
  if (typeof provider.generateVerificationToken !== 'function') return generateEmailToken();
  const token = await provider.generateVerificationToken();
  if (!isPlausibleToken(token)) {
    throw new CallbackRouteError(
      'generateVerificationToken() must return a non-empty string of at most 512 characters without control characters.',
    );
  }
  return token;
}
