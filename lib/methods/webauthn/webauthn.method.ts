import { REQUIRED_ADAPTER_METHODS, requireAdapterMethods } from '../../config/adapter-requirements.js';
import type { InternalProviderOf } from '../../providers/internal-provider.js';
import type { SignInMethod } from '../../sign-in/sign-in-method.js';
import { WebAuthnAuthenticationService } from './webauthn-authentication.service.js';
import { WebAuthnChallengeService } from './webauthn-challenge.service.js';
import { WebAuthnOptionsService } from './webauthn-options.service.js';
import { WebAuthnRegistrationService } from './webauthn-registration.service.js';
import { WebAuthnService } from './webauthn.service.js';
import { WebAuthnSecondFactor } from './webauthn-second-factor.js';
import { webauthnWaysIn } from './webauthn.ways-in.js';
import { validateWebAuthnProvider } from './webauthn.validate.js';

/** Passkeys (`Passkey()`, or a config of type webauthn). */
export const WebAuthnMethod: SignInMethod = {
  name: 'webauthn',
  types: ['webauthn'],
  flow: WebAuthnService,
  providers: [
    WebAuthnService,
    WebAuthnOptionsService,
    WebAuthnChallengeService,
    WebAuthnRegistrationService,
    WebAuthnAuthenticationService,
    WebAuthnSecondFactor,
  ],
  secondFactors: [WebAuthnSecondFactor],
  waysIn: webauthnWaysIn,
  validate(provider, problems, { where, adapter, hasAdapter }) {
    requireAdapterMethods(`${where} (passkeys)`, REQUIRED_ADAPTER_METHODS.webauthn, adapter, problems);
    validateWebAuthnProvider(provider as InternalProviderOf<'webauthn'>, problems, { hasAdapter });
  },
};
