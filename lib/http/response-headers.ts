import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown, Optional } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { NO_STORE } from '../util/cache-control.js';
import { declareRequestSlots } from './request-slots.js';

/**
 * The headers every answer of the module carries, whatever wrote it (a flow, a page, an error, the
 * browser script, the app's body parser refusing a body, Nest's not-found handler):
 * - `X-Content-Type-Options: nosniff`: JSON stays JSON and HTML stays HTML, whatever they look like.
 * - `Referrer-Policy: same-origin`: auth URLs carry codes, states and tokens in their query; never
 *   send them to other sites in Referer. (Not `no-referrer` everywhere: with it Chromium sends
 *   `Origin: null` on the pages' own form POSTs, which the same-origin checks must then refuse.
 *   OAuth callbacks, which no form posts to, get `no-referrer`.)
 * - `Cache-Control: private, no-cache, no-store`: answers carry CSRF tokens, sessions and one-time
 *   URLs; no cache may keep them (`Pragma` and `Expires` for HTTP/1.0 caches). The browser script
 *   overrides these with its own.
 */
export const BASE_RESPONSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'Cache-Control': NO_STORE,
  Pragma: 'no-cache',
  Expires: '0',
});

/** Headers of every HTML page: never inside another site's frame (the pages hold sign-in forms). */
export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "frame-ancestors 'none'",
});

/** Sets {@link BASE_RESPONSE_HEADERS} on a response (before anything else is written). */
export function setBaseHeaders(res: Pick<ServerResponse, 'setHeader' | 'headersSent'>): void {
  if (res.headersSent) return;
  for (const [name, value] of Object.entries(BASE_RESPONSE_HEADERS)) res.setHeader(name, value);
}

/** True when a request target's path is `prefix` or below it (origin-form or absolute-form target). */
export function isUnderPrefix(target: string | undefined, prefix: string): boolean {
  if (!target) return false;
  let path = target;
  if (!target.startsWith('/')) {
    // The path as sent, not as WHATWG URL normalises it (`/auth/%2e%2e/x` stays under `/auth`):
    // the router matches routes on the raw path.
    const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(target);
    if (!origin) return false;
    path = target.slice(origin[0].length);
  }
  if (!path.startsWith(prefix)) return false;
  const next = path.charAt(prefix.length);
  return next === '' || next === '/' || next === '?' || next === '#';
}

/** `/a` + `/b` → `/a/b`, without doubled or trailing slashes. */
export function joinPaths(...parts: string[]): string {
  const joined = parts
    .map((p) => p.replace(/^\/+|\/+$/g, ''))
    .filter(Boolean)
    .join('/');
  return `/${joined}`;
}

/**
 * Puts {@link BASE_RESPONSE_HEADERS} on every answer under the module's routes, including the ones
 * written before any of its code runs: the app's body parser refusing a body (400, 413, 415) and
 * Nest's not-found answer. It listens first on the app's HTTP server's `request` event, so the
 * headers are on the response before the framework sees the request. Apps without an HTTP server
 * (microservices, serverless handlers fed by hand) still get the headers on every answer the module
 * writes itself. On Express, the same listener gives each request its `user` property and session
 * slot ({@link declareRequestSlots}).
 */
@Injectable()
export class ResponseHeadersHook implements OnApplicationBootstrap, OnApplicationShutdown {
  private server?: Server;
  private listener?: (req: IncomingMessage, res: ServerResponse) => void;

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    @Optional() private readonly adapterHost?: HttpAdapterHost,
  ) {}

  onApplicationBootstrap(): void {
    const server = this.adapterHost?.httpAdapter?.getHttpServer?.() as Server | undefined;
    if (!server || typeof server.prependListener !== 'function') return;
    // `basePath` holds the app's global prefix by now (AuthHttpHandler, at module init).
    const prefix = this.config.basePath;
    const express = this.adapterHost?.httpAdapter?.getType?.() === 'express';
    this.listener = (req, res) => {
      if (express) declareRequestSlots(req);
      if (isUnderPrefix(req.url, prefix)) setBaseHeaders(res);
    };
    this.server = server;
    server.prependListener('request', this.listener);
  }

  onApplicationShutdown(): void {
    if (this.server && this.listener) this.server.removeListener('request', this.listener);
    this.server = undefined;
    this.listener = undefined;
  }
}
