// What the account layer and the guard may use of two-factor authentication.
export {
  TwoFactors,
  type SecondFactorMethod,
  type TotpEnrolment,
  type TwoFactorInfo,
  type TwoFactorStatus,
} from './two-factors.service.js';
export { totpCode } from './totp.js';
