// What the passkey method offers the layers above it: managing a user's passkeys (account page, AuthService).
export { deletePasskey, listPasskeys, renamePasskey, type PasskeyInfo } from './passkeys.js';
export { webauthnProviderOf } from './webauthn.configured.js';
