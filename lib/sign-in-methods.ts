import type { Adapter } from './adapters/adapter.interface.js';
import type { AuthModuleExtras, AuthModuleOptions } from './config/auth-options.interface.js';
import { resolveConfigWith } from './config/resolve-config.js';
import type { ResolvedAuthConfig } from './config/resolved-config.js';
import { AuthConfigurationError } from './errors/configuration.errors.js';
import { CredentialsMethod } from './methods/credentials/credentials.method.js';
import { EmailMethod } from './methods/email/email.method.js';
import { OAuthMethod } from './methods/oauth/oauth.method.js';
import { WebAuthnMethod } from './methods/webauthn/webauthn.method.js';
import { TwoFactorMethod } from './methods/two-factor/two-factor.method.js';
import type { Provider } from '@nestjs/common';
import {
  SECOND_FACTORS,
  SIGN_IN_METHODS,
  SIGN_IN_STEPS,
  type SecondFactorProvider,
  type SignInMethod,
  type SignInStep,
} from './sign-in/sign-in-method.js';

/**
 * The registry: every built-in sign-in method, one line each. The router, configuration resolution,
 * the sign-in page and the module's wiring learn the methods from here (and from the app's
 * `methods` option), never by importing a method's folder. Adding a method is a folder under
 * `methods/` and a line here (ARCHITECTURE.md, "Adding a sign-in method").
 */
export const BUILT_IN_METHODS: readonly SignInMethod[] = Object.freeze([
  OAuthMethod,
  EmailMethod,
  CredentialsMethod,
  WebAuthnMethod,
  TwoFactorMethod,
]);

/**
 * The methods an app runs with: the built-in ones, then the app's own (`methods` option), each
 * checked for the members the core calls. A type served twice is a configuration error.
 */
export function registeredMethods(extra: unknown): readonly SignInMethod[] {
  if (extra === undefined || extra === null) return BUILT_IN_METHODS;
  if (!Array.isArray(extra))
    throw new AuthConfigurationError(['`methods` must be an array of sign-in methods (each a `SignInMethod` object).']);
  const problems: string[] = [];
  const served = new Map(BUILT_IN_METHODS.flatMap((m) => m.types.map((t) => [t, m.name] as const)));
  extra.forEach((method: Partial<SignInMethod> | null, index) => {
    const where = `methods[${index}]${typeof method?.name === 'string' ? ` (${JSON.stringify(method.name)})` : ''}`;
    if (!method || typeof method !== 'object') return problems.push(`${where} is not a sign-in method object.`);
    if (typeof method.name !== 'string' || !method.name) problems.push(`${where}: a \`name\` is required.`);
    if (!Array.isArray(method.types) || method.types.length === 0 || method.types.some((t) => typeof t !== 'string'))
      problems.push(`${where}: \`types\` must list the provider types it serves, e.g. ['email-code'].`);
    if (typeof method.flow !== 'function')
      problems.push(`${where}: \`flow\` must be the injectable that handles its routes.`);
    if (!Array.isArray(method.providers))
      problems.push(`${where}: \`providers\` must list its injectables (the flow at least).`);
    if (typeof method.validate !== 'function')
      problems.push(`${where}: \`validate(provider, problems, ctx)\` is required.`);
    if (method.waysIn !== undefined && typeof method.waysIn !== 'function')
      problems.push(`${where}: \`waysIn\`, when given, must be a function (query) => Promise<WayIn[]>.`);
    // Nest builds only what `providers` lists: the flow and the steps must be there.
    if (Array.isArray(method.providers)) {
      if (typeof method.flow === 'function' && !method.providers.includes(method.flow))
        problems.push(`${where}: list its flow (${method.flow.name}) in \`providers\`.`);
      for (const step of Array.isArray(method.steps) ? method.steps : [])
        if (!method.providers.includes(step)) problems.push(`${where}: list its step ${step.name} in \`providers\`.`);
    }
    for (const type of Array.isArray(method.types) ? method.types : []) {
      const owner = served.get(type);
      if (owner) problems.push(`${where}: type ${JSON.stringify(type)} is already served by the ${owner} method.`);
      else served.set(type, String(method.name));
    }
    return undefined;
  });
  if (problems.length) throw new AuthConfigurationError(problems);
  return Object.freeze([...BUILT_IN_METHODS, ...(extra as SignInMethod[])]);
}

/**
 * The module options resolved against the registered methods (what `AuthModule` does at bootstrap;
 * the CLI and tests call it too). `extras.methods` adds the app's own methods to the built-in ones.
 */
export function resolveConfig(
  options: AuthModuleOptions,
  extras: AuthModuleExtras,
  adapter: Adapter | null,
  env: NodeJS.ProcessEnv = process.env,
): ResolvedAuthConfig {
  return resolveConfigWith(registeredMethods(extras.methods), options, extras, adapter, env);
}

/**
 * The injectables the methods add to AuthModule: each method's own (once, however many list them),
 * the registry itself (`SIGN_IN_METHODS`), the pipeline's steps (`SIGN_IN_STEPS`, in method order)
 * and the second factors they offer (`SECOND_FACTORS`).
 */
export function methodWiring(methods: readonly SignInMethod[]): { providers: Provider[]; exports: Provider[] } {
  const own = [...new Set(methods.flatMap((m) => m.providers))];
  const steps = methods.flatMap((m) => m.steps ?? []);
  const factors = methods.flatMap((m) => m.secondFactors ?? []);
  return {
    providers: [
      ...own,
      { provide: SIGN_IN_METHODS, useValue: methods },
      { provide: SIGN_IN_STEPS, inject: steps, useFactory: (...instances: SignInStep[]) => instances },
      { provide: SECOND_FACTORS, inject: factors, useFactory: (...instances: SecondFactorProvider[]) => instances },
    ],
    exports: own,
  };
}
