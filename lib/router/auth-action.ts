/** The routes under `basePath`, as Auth.js names them. */
export type AuthAction =
  | 'providers'
  | 'csrf'
  | 'session'
  | 'signin'
  | 'link'
  | 'signout'
  | 'callback'
  | 'verify-request'
  | 'error'
  | 'webauthn-options'
  | 'webauthn-client'
  | 'backchannel-logout'
  | 'account'
  | 'two-factor'
  | 'unknown';
