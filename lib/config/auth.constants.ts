/** DI token of the resolved configuration (`ResolvedAuthConfig`), built once at bootstrap. */
export const AUTH_CONFIG = Symbol('nestjs-auth:config');
/** DI token of the module extras (`AuthModuleExtras`). */
export const AUTH_EXTRAS = Symbol('nestjs-auth:extras');
