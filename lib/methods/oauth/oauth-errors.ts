import { AuthError, InvalidCheck, OAuthCallbackError } from '../../errors/auth.errors.js';
import { loadedOAuth4WebApi } from '../../util/oauth4webapi.js';

/** An error's message for a log line or a typed error, cut to 300 characters. */
export function describe(error: unknown): string {
  if (error instanceof Error) return error.message.slice(0, 300);
  return 'unknown error';
}

/** Maps oauth4webapi and transport failures to the library's typed errors (no token or code in messages). */
export function mapProtocolError(error: unknown, name: string): AuthError {
  if (error instanceof AuthError) return error;
  // Not loaded yet: then the error cannot be one of oauth4webapi's.
  const o = loadedOAuth4WebApi();
  if (!o) return unexpected(error, name);
  if (error instanceof o.ResponseBodyError) {
    return new OAuthCallbackError(`${name} refused the request (${error.error}).`, {
      cause: { error: error.error, status: error.status },
    });
  }
  if (error instanceof o.WWWAuthenticateChallengeError)
    return new OAuthCallbackError(`${name} refused the access token (WWW-Authenticate challenge).`);
  if (error instanceof o.OperationProcessingError) {
    const claim = (error.cause as { claim?: unknown } | undefined)?.claim;
    if (error.code === o.JWT_CLAIM_COMPARISON && claim === 'nonce')
      return new InvalidCheck('The ID token nonce does not match the nonce cookie.');
    return new OAuthCallbackError(`${name}'s response was rejected: ${error.message}.`);
  }
  if (error instanceof o.UnsupportedOperationError)
    return new OAuthCallbackError(`${name}'s response was rejected: ${error.message}.`);
  return unexpected(error, name);
}

function unexpected(error: unknown, name: string): AuthError {
  return new OAuthCallbackError(`Could not complete sign-in with ${name}: ${describe(error)}`, { cause: error });
}
