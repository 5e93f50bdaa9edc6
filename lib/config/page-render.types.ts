import type { PageMessages } from './messages/en.messages.js';

/** The built-in pages a render hook can replace. */
export type RenderablePage = 'signIn' | 'signOut' | 'verifyRequest' | 'error';

/**
 * What a render hook (`pages.render.<page>`) gets. Every value is raw text: escape it with
 * `escape` before putting it in HTML. The hook returns the HTML of the page's content; the module
 * puts it in its document (theme, styles, busy states) under its Content Security Policy.
 */
export interface PageRenderContext {
  page: RenderablePage;
  /** Put in every form that POSTs to the auth routes, as `<input type="hidden" name="csrfToken">`. */
  csrfToken: string;
  /** The validated callback URL: send it back as `callbackUrl`. */
  callbackUrl: string;
  /** `{origin}{basePath}`: forms post to `${authUrl}/signin/<id>`, `${authUrl}/callback/<id>`, `${authUrl}/signout`. */
  authUrl: string;
  /** The error to show: its stable type (`Unknown` for a type the module does not know), its sentence, the provider whose form failed. */
  error?: { type: string; message: string; provider?: string };
  /** Sign-in: the address typed (after a failure, or identifier-first step 2); verify-request: where the link went. */
  email?: string;
  /** Sign-in: the `?step=` of identifier-first (`email` or `methods`), when given. */
  step?: string;
  /** The configured providers as the built-in page shows them. */
  providers: Array<{ id: string; name: string; type: string; signinUrl: string; callbackUrl: string }>;
  /** The sentences (the `messages` option over English). */
  messages: PageMessages;
  /** Allowed by the page's CSP: `<script nonce="…">` and `<style nonce="…">` run; other inline code does not. */
  nonce: string;
  /** The built-in page's content HTML, to wrap or change. */
  html: string;
  /** Escapes text for HTML content and attribute values. */
  escape(value: string): string;
}

/** Render hooks: each replaces the content of one built-in page (see {@link PageRenderContext}). */
export type PageRenderHooks = Partial<Record<RenderablePage, (context: PageRenderContext) => string>>;
