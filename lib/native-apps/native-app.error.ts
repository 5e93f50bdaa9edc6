/** The error codes of RFC 6749 (sections 4.1.2.1 and 5.2) and RFC 7009 this module answers with. */
export type NativeAppErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'unsupported_token_type'
  | 'access_denied';

/**
 * A refused native app request, answered in OAuth's shape: `{ error, error_description }` from the
 * token and revocation routes (`401` for `invalid_client`, else `400`), or `?error=…` on the app's
 * redirect URI from the authorization route. The description says what to do; it never holds a
 * token or a code.
 */
export class NativeAppError extends Error {
  readonly status: 400 | 401;

  constructor(
    readonly code: NativeAppErrorCode,
    readonly description: string,
  ) {
    super(`${code}: ${description}`);
    this.name = 'NativeAppError';
    this.status = code === 'invalid_client' ? 401 : 400;
  }
}
