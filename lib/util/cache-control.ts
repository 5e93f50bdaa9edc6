/**
 * The `Cache-Control` of every answer that may carry a session, a CSRF token or a one-time link:
 * kept by no cache, shared or private.
 */
export const NO_STORE = 'private, no-cache, no-store';
