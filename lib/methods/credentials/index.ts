// What the credentials method offers the layers above it: hashing and checking passwords (the account's password change).
export { hashPassword, PASSWORD_DEFAULTS, verifyPassword } from './password.js';
export { passwordStoreOf } from './credentials.configured.js';
