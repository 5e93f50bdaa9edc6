// The built-in pages, as the rest of the module renders them. Only pages/load-renderers.ts imports
// this file, with `import()`: the pages, their layout, forms, provider marks and the passkey script
// load on the first page served, not at `import 'nestjs-auth'` (pages/renderers.spec.ts holds it).
export { renderAppAuthorizePage, renderAppErrorPage } from './app-authorize.page.js';
export { renderAccountPage, renderEmailChangeConfirmPage, renderNewApiKeyPage } from './account.page.js';
export { renderEmailConfirmPage } from './email-confirm.page.js';
export { errorPageStatus, renderErrorPage } from './error.page.js';
export { renderSignInPage } from './signin.page.js';
export { renderSignOutPage } from './signout.page.js';
export { renderBackupCodesPage, renderTwoFactorChallengePage, renderTwoFactorEnrolPage } from './two-factor.page.js';
export { renderVerifyRequestPage } from './verify-request.page.js';
export { webAuthnClientScript } from './webauthn-client.js';
