// The `messages` option: every sentence of the built-in pages, English by default, any subset
// replaced (a missing key falls back to English, an unknown key is refused at bootstrap).
import { escapeHtml } from '../../util/html-escape.js';
import { ENGLISH_MESSAGES, type PageMessages } from './en.messages.js';

export { ENGLISH_MESSAGES, type PageMessages } from './en.messages.js';
export { GERMAN_MESSAGES } from './de.messages.js';

/** The keys a `messages` object may have. */
export const MESSAGE_KEYS = Object.keys(ENGLISH_MESSAGES) as Array<keyof PageMessages>;

/** Problems with a `messages` option: not an object, an unknown key, or a value that is not a non-empty string. */
export function messageProblems(messages: unknown): string[] {
  if (messages === undefined) return [];
  if (typeof messages !== 'object' || messages === null || Array.isArray(messages))
    return ['messages must be an object of sentences by key (e.g. { "signIn.title": "Anmelden" }).'];
  const problems: string[] = [];
  for (const [key, value] of Object.entries(messages)) {
    if (!Object.hasOwn(ENGLISH_MESSAGES, key)) problems.push(`unknown key messages[${JSON.stringify(key)}].`);
    else if (typeof value !== 'string' || !value.trim())
      problems.push(`messages[${JSON.stringify(key)}] must be a non-empty string.`);
  }
  if (
    typeof (messages as { lang?: unknown }).lang === 'string' &&
    !/^[a-zA-Z]{2,8}(-[a-zA-Z0-9]{1,8})*$/.test((messages as { lang: string }).lang)
  )
    problems.push('messages.lang must be a language tag such as "de" or "pt-BR".');
  return problems;
}

/** The full set: `messages` over English, key by key. */
export function resolveMessages(messages?: Partial<PageMessages>): PageMessages {
  return messages ? { ...ENGLISH_MESSAGES, ...messages } : ENGLISH_MESSAGES;
}

/** A sentence as text, its `{name}` placeholders filled with `values` (as given). */
export function text(m: PageMessages, key: keyof PageMessages, values: Record<string, string | number> = {}): string {
  return m[key].replace(/\{(\w+)\}/g, (all, name: string) =>
    Object.hasOwn(values, name) ? String(values[name]) : all,
  );
}

/**
 * A sentence as HTML: the sentence escaped, its `{name}` placeholders filled with `html` (markup the
 * page built and escaped itself, such as `<strong>address</strong>`).
 */
export function html(m: PageMessages, key: keyof PageMessages, values: Record<string, string> = {}): string {
  return escapeHtml(m[key]).replace(/\{(\w+)\}/g, (all, name: string) =>
    Object.hasOwn(values, name) ? values[name]! : all,
  );
}
