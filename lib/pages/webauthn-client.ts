import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ENGLISH_MESSAGES, type PageMessages } from '../config/messages/page-messages.js';
import { signInErrorMessage, signInErrorTypes } from './signin.page.js';

/**
 * The browser half of passkeys, served at `GET {basePath}/webauthn-client.js`: SimpleWebAuthn's
 * browser bundle, read from the installed `@simplewebauthn/browser` (no CDN, works offline),
 * followed by {@link WEBAUTHN_CLIENT_SCRIPT}, which wires the sign-in page's passkey forms and
 * buttons by data attributes.
 */
export function webAuthnClientScript(messages: PageMessages = ENGLISH_MESSAGES): { contentType: string; body: string } {
  // The sign-in page's sentences, so a passkey failure reads like any other (never a raw type).
  let body = cached.get(messages);
  if (body === undefined) {
    const sentences = Object.fromEntries(signInErrorTypes().map((t) => [t, signInErrorMessage(t, messages)]));
    // `<` escaped: the sentences are the app's, and the script must not be able to close itself.
    const literal = JSON.stringify(sentences).replace(/</g, '\\u003c');
    body = `${readBrowserBundle()}\n${WEBAUTHN_CLIENT_SCRIPT.replace(MESSAGES_SLOT, () => literal)}`;
    cached.set(messages, body);
  }
  return { contentType: 'text/javascript; charset=utf-8', body };
}

/** The script per set of messages (one per configuration: the resolved object is reused). */
const cached = new WeakMap<PageMessages, string>();
/** Where {@link webAuthnClientScript} puts the messages of the error types. */
const MESSAGES_SLOT = '/*MESSAGES*/{}';

/** SimpleWebAuthn's UMD bundle (defines `window.SimpleWebAuthnBrowser`). */
function readBrowserBundle(): string {
  // The package exports only its entry point; the bundle sits next to it in the package.
  const entry = createRequire(import.meta.url).resolve('@simplewebauthn/browser');
  return readFileSync(join(dirname(entry), '..', 'dist', 'bundle', 'index.umd.min.js'), 'utf8');
}

/**
 * Wires passkey forms and buttons (no framework, no build step):
 *
 * - `data-webauthn-provider="<id>"` on a `<form>` (runs on submit) or any other element (runs on
 *   click): starts a ceremony with that provider.
 * - `data-webauthn-action="register|authenticate"` (optional, on the element or its form): forces
 *   the ceremony; without it the ceremony is a sign-in (a discoverable passkey), or, for a signed-in
 *   user, the server refuses: ask for `register` to add a passkey.
 * - The form's `email` input gives the address to register; its `callbackUrl` input (or
 *   `data-callback-url`) where to go afterwards.
 * - `data-webauthn-conditional-ui` on a form: offers passkeys in the autofill of its input whose
 *   `autocomplete` contains `webauthn`, as soon as the page loads.
 * - `data-webauthn-autofill="<id>"` on any other form (the identifier-first email step): the same
 *   autofill offer with that provider, without taking over the form's submit; the CSRF token comes
 *   from its `data-csrf-token` attribute.
 * - `data-webauthn-error` on an element of the form (or the page): receives the error message;
 *   `data-webauthn-base-url` overrides where the auth routes are (default: where this script is).
 * - `data-webauthn-two-factor="<{basePath}/two-factor URL>"` (with `data-csrf-token`) on a button of
 *   the two-factor page: proves the second factor of the pending sign-in with a passkey.
 * - `window.nestjsAuthWebAuthn.signIn(provider, { action, email, callbackUrl })` for custom pages.
 *
 * Success navigates to the URL the server answers; failure shows the server's error type and message.
 */
export const WEBAUTHN_CLIENT_SCRIPT = String.raw`
(function () {
  'use strict';
  var SWA = window.SimpleWebAuthnBrowser;
  var MESSAGES = /*MESSAGES*/{};
  var current = document.currentScript;
  var scriptBase = current && current.src ? current.src.replace(/\/webauthn-client\.js(\?.*)?$/, '') : '';

  function closestAttr(el, name) {
    var found = el.closest('[' + name + ']');
    return found ? found.getAttribute(name) : null;
  }
  function formOf(el) { return el.tagName === 'FORM' ? el : el.closest('form'); }
  function field(form, name) {
    var input = form && form.querySelector('[name="' + name + '"]');
    return input && input.value ? input.value : undefined;
  }
  function showError(el, message, type) {
    var form = el && formOf(el);
    var target = (form && form.querySelector('[data-webauthn-error]')) || document.querySelector('[data-webauthn-error]');
    if (target) {
      target.textContent = message;
      target.hidden = false;
      if (type) target.setAttribute('data-error', type);
      var email = form && form.querySelector('[name="email"]');
      if (email && target.id) { email.setAttribute('aria-invalid', 'true'); email.setAttribute('aria-describedby', target.id); }
    }
    else if (window.console) console.error('[nestjs-auth] ' + message);
  }
  function failure(body, fallback) {
    var type = (body && body.error) || 'WebAuthnVerificationError';
    var error = new Error((Object.prototype.hasOwnProperty.call(MESSAGES, type) && MESSAGES[type]) || (body && body.message) || fallback);
    error.type = type;
    return error;
  }
  async function json(res) { try { return await res.json(); } catch (e) { return null; } }

  async function signIn(provider, opts) {
    opts = opts || {};
    if (!SWA || !SWA.browserSupportsWebAuthn()) throw failure(null, 'This browser does not support passkeys.');
    var base = opts.baseUrl || scriptBase;
    var url = new URL(base + '/webauthn-options/' + encodeURIComponent(provider), location.href);
    if (opts.action) url.searchParams.set('action', opts.action);
    // Only a registration uses the address. Sent with a sign-in it would count against the
    // address's rate limit, which someone else could then use up to block its owner.
    if (opts.email && opts.action === 'register') url.searchParams.set('email', opts.email);
    var res = await fetch(url, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
    var body = await json(res);
    if (!res.ok || !body || !body.options) throw failure(body, 'Could not start the passkey ceremony.');
    var data = body.action === 'register'
      ? await SWA.startRegistration({ optionsJSON: body.options })
      : await SWA.startAuthentication({ optionsJSON: body.options, useBrowserAutofill: Boolean(opts.autofill) });
    var payload = { action: body.action, data: data };
    if (opts.callbackUrl) payload.callbackUrl = opts.callbackUrl;
    if (opts.csrfToken) payload.csrfToken = opts.csrfToken;
    var done = await fetch(base + '/callback/' + encodeURIComponent(provider), {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'X-Auth-Return-Redirect': '1' },
      body: JSON.stringify(payload),
    });
    var result = await json(done);
    if (!result || !result.url) throw failure(result, 'The passkey could not be verified.');
    var next = new URL(result.url, location.href);
    var error = next.searchParams.get('error');
    if (error && /\/(error|signin)$/.test(next.pathname)) throw failure({ error: error }, 'Passkey sign-in failed. Try again, or sign in another way.');
    location.assign(next.href);
    return next.href;
  }

  function optionsFor(el) {
    var form = formOf(el);
    return {
      action: el.getAttribute('data-webauthn-action') || closestAttr(el, 'data-webauthn-action') || undefined,
      email: field(form, 'email'),
      callbackUrl: field(form, 'callbackUrl') || closestAttr(el, 'data-callback-url') || undefined,
      csrfToken: field(form, 'csrfToken') || closestAttr(el, 'data-csrf-token') || undefined,
      baseUrl: closestAttr(el, 'data-webauthn-base-url') || undefined,
    };
  }

  // A passkey as the second factor of a pending sign-in: the two-factor page's button.
  async function secondFactor(action, csrfToken) {
    if (!SWA || !SWA.browserSupportsWebAuthn()) throw failure(null, 'This browser does not support passkeys.');
    var url = new URL(action, location.href);
    url.searchParams.set('options', 'passkey');
    var res = await fetch(url, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
    var body = await json(res);
    if (!res.ok || !body || !body.options) throw failure(body, 'Could not start the passkey ceremony.');
    var data = await SWA.startAuthentication({ optionsJSON: body.options });
    var remember = document.querySelector('input[name="remember"]');
    var done = await fetch(action, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'X-Auth-Return-Redirect': '1' },
      // The page's "Don't ask again on this device" box counts for the passkey too.
      body: JSON.stringify({ csrfToken: csrfToken, method: 'passkey', action: 'authenticate', data: data, remember: Boolean(remember && remember.checked) }),
    });
    var result = await json(done);
    if (!done.ok || !result || !result.url) throw failure(result, 'The passkey could not be verified.');
    location.assign(new URL(result.url, location.href).href);
  }

  async function run(el, provider, opts) {
    if (el.getAttribute('aria-busy') === 'true') return;
    el.setAttribute('aria-busy', 'true');
    try {
      if (el.hasAttribute('data-webauthn-two-factor'))
        await secondFactor(el.getAttribute('data-webauthn-two-factor'), el.getAttribute('data-csrf-token') || undefined);
      else await signIn(provider, opts);
    } catch (e) {
      var cancelled = e && (e.name === 'NotAllowedError' || e.name === 'AbortError' || e.code === 'ERROR_CEREMONY_ABORTED');
      if (!cancelled) showError(el, (e && e.message) || 'Passkey sign-in failed.', e && e.type);
    } finally {
      el.removeAttribute('aria-busy');
    }
  }

  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute('data-webauthn-provider')) return;
    event.preventDefault();
    var submitter = event.submitter && event.submitter.hasAttribute('data-webauthn-action') ? event.submitter : form;
    var opts = optionsFor(form);
    if (submitter !== form) opts.action = submitter.getAttribute('data-webauthn-action');
    run(form, form.getAttribute('data-webauthn-provider'), opts);
  });

  document.addEventListener('click', function (event) {
    var el = event.target instanceof Element ? event.target.closest('[data-webauthn-provider], [data-webauthn-two-factor]') : null;
    if (!el || el.tagName === 'FORM') return;
    event.preventDefault();
    run(el, el.getAttribute('data-webauthn-provider'), optionsFor(el));
  });

  async function startConditionalUI() {
    var form = document.querySelector('form[data-webauthn-conditional-ui][data-webauthn-provider], form[data-webauthn-autofill]');
    if (!form || !SWA || !(await SWA.browserSupportsWebAuthnAutofill())) return;
    var opts = optionsFor(form);
    opts.action = 'authenticate';
    opts.email = undefined;
    opts.autofill = true;
    try {
      await signIn(form.getAttribute('data-webauthn-provider') || form.getAttribute('data-webauthn-autofill'), opts);
    } catch (e) {
      var cancelled = e && (e.name === 'NotAllowedError' || e.name === 'AbortError' || e.code === 'ERROR_CEREMONY_ABORTED');
      if (!cancelled) showError(form, (e && e.message) || 'Passkey sign-in failed.', e && e.type);
    }
  }

  window.nestjsAuthWebAuthn = { signIn: signIn };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', startConditionalUI);
  else startConditionalUI();
})();
`;
