import { REQUIRED_ADAPTER_METHODS, requireAdapterMethods } from '../../config/adapter-requirements.js';
import type { InternalProviderOf } from '../../providers/internal-provider.js';
import type { SignInMethod } from '../../sign-in/sign-in-method.js';
import { CredentialsService } from './credentials.service.js';
import { validateCredentialsProvider } from './credentials.validate.js';
import { credentialsWaysIn } from './credentials.ways-in.js';

/** A form the app checks itself (`Credentials({ credentials, authorize })`). */
export const CredentialsMethod: SignInMethod = {
  name: 'credentials',
  types: ['credentials'],
  flow: CredentialsService,
  providers: [CredentialsService],
  waysIn: credentialsWaysIn,
  validate(provider, problems, { where, adapter, hasAdapter, strategy }) {
    if (typeof provider.config.authorize !== 'function')
      problems.push(`${where}: \`authorize(credentials, request)\` is required (MissingAuthorize).`);
    if (strategy === 'database')
      requireAdapterMethods(
        `${where} (credentials with database sessions)`,
        REQUIRED_ADAPTER_METHODS.credentials,
        adapter,
        problems,
      );
    validateCredentialsProvider(provider as InternalProviderOf<'credentials'>, problems, { hasAdapter });
  },
};
