/** DI token of the resolved configuration (`ResolvedAuthConfig`), built once at bootstrap. */
export const AUTH_CONFIG = Symbol('nestjs-auth:config');
