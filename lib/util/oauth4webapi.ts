import { lazyModule } from './lazy-module.js';

/** The OAuth 2.0 / OpenID Connect client library (`oauth4webapi`). */
export type OAuth4WebApi = typeof import('oauth4webapi');

const oauth = lazyModule<OAuth4WebApi>(() => import('oauth4webapi'));

/**
 * `oauth4webapi`, loaded on first use: a discovery document, an authorization redirect, a callback,
 * a token exchange or refresh. It is one large module that costs milliseconds at start-up, and an
 * app starts without signing anyone in. The only place that may load it: util/oauth4webapi.spec.ts
 * fails on any other import of it in lib/. A failed load is not remembered: the next use tries again.
 */
export function loadOAuth4WebApi(): Promise<OAuth4WebApi> {
  return oauth.load();
}

/**
 * The module if a flow has loaded it already, else undefined: for synchronous `instanceof` checks,
 * as an error can only be one of its classes once it is loaded.
 */
export function loadedOAuth4WebApi(): OAuth4WebApi | undefined {
  return oauth.loaded();
}
