// What the email method offers the layers above it (the account's address change reuses its
// tokens and its sender). The core below the router reaches the method only through the registry.
export { generateToken, normalize } from './email-input.js';
export { isPlausibleToken } from './email-token.js';
export { EMAIL_DEFAULTS, resolveEmailRateLimit, sendVerificationRequestWithNodemailer } from './email.provider.js';
export { emailProviderOf } from './email.configured.js';
