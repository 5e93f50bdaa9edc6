import type { SignInMethod } from '../../sign-in/sign-in-method.js';
import { TwoFactorChallenge } from './two-factor.challenge.js';
import { PendingSignIns } from './two-factor.pending.js';
import { TwoFactorStep } from './two-factor.step.js';
import { TwoFactors } from './two-factors.service.js';
import { RememberedDevices } from './two-factor.device.js';

/**
 * Two-factor authentication (`twoFactor` option): no provider type of its own; a step every sign-in
 * passes through (`TwoFactorStep`) and the routes that complete the sign-ins it holds
 * (`TwoFactorChallenge`, `{basePath}/two-factor`). Its options are checked with the module's
 * (`config/two-factor.options.ts`); without them the step lets every sign-in through.
 */
export const TwoFactorMethod: SignInMethod = {
  name: 'two-factor',
  types: [],
  providers: [TwoFactors, PendingSignIns, RememberedDevices, TwoFactorStep, TwoFactorChallenge],
  steps: [TwoFactorStep],
  challenge: TwoFactorChallenge,
  validate() {},
};
