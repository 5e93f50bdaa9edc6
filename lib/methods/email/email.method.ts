import { REQUIRED_ADAPTER_METHODS, requireAdapterMethods } from '../../config/adapter-requirements.js';
import type { InternalProviderOf } from '../../providers/internal-provider.js';
import type { SignInMethod } from '../../sign-in/sign-in-method.js';
import { EmailService } from './email.service.js';
import { EmailSecondFactor } from './email-second-factor.js';
import { validateEmailProvider } from './email.validate.js';
import { emailWaysIn } from './email.ways-in.js';

/** Magic links by email (`Email()`, `Nodemailer()`, `Resend()` and the other senders of type email). */
export const EmailMethod: SignInMethod = {
  name: 'email',
  types: ['email'],
  flow: EmailService,
  providers: [EmailService, EmailSecondFactor],
  secondFactors: [EmailSecondFactor],
  waysIn: emailWaysIn,
  applyEnv(config, env, envId) {
    config.apiKey ??= env[`AUTH_${envId}_KEY`];
    if (config.apiKey === undefined) delete config.apiKey;
  },
  validate(provider, problems, { where, adapter, hasAdapter }) {
    requireAdapterMethods(`${where} (email sign-in)`, REQUIRED_ADAPTER_METHODS.email, adapter, problems);
    validateEmailProvider(provider as InternalProviderOf<'email'>, problems, { hasAdapter });
  },
};
