import { describe, expect, it } from '@jest/globals';
import { resolveConfig } from '../../sign-in-methods.js';
import { ENGLISH_MESSAGES, GERMAN_MESSAGES, messageProblems, MESSAGE_KEYS, resolveMessages } from './page-messages.js';

const SECRET = 'a-secret-of-at-least-thirty-two-characters!';

function problems(options: object): string {
  try {
    resolveConfig({ secret: SECRET, providers: [], ...options } as never, {}, null, {});
    return '';
  } catch (e) {
    return (e as Error).message;
  }
}

describe('messages', () => {
  // promise: pages.messages
  it('German covers every key, and differs from English in every sentence but the shared ones', () => {
    expect(Object.keys(GERMAN_MESSAGES).sort()).toEqual([...MESSAGE_KEYS].sort());
    const same = MESSAGE_KEYS.filter((k) => GERMAN_MESSAGES[k] === ENGLISH_MESSAGES[k]);
    expect(same).toEqual([]);
    // Every placeholder of the English sentence is in the German one.
    for (const key of MESSAGE_KEYS) {
      const names = (s: string) => (s.match(/\{\w+\}/g) ?? []).sort();
      expect({ key, names: names(GERMAN_MESSAGES[key]) }).toEqual({ key, names: names(ENGLISH_MESSAGES[key]) });
    }
  });

  it('a partial object falls back to English key by key', () => {
    const m = resolveMessages({ 'signIn.title': 'Connexion', lang: 'fr' });
    expect(m['signIn.title']).toBe('Connexion');
    expect(m.lang).toBe('fr');
    expect(m['signIn.continue']).toBe('Continue');
    expect(resolveMessages()).toBe(ENGLISH_MESSAGES);
  });

  it('refuses unknown keys, empty or non-string sentences and bad language tags at bootstrap', () => {
    expect(messageProblems({ 'signIn.titel': 'x' })).toEqual(['unknown key messages["signIn.titel"].']);
    expect(messageProblems({ 'account.title': 'Mein Konto' })).toEqual([]);
    expect(messageProblems({ 'account.titel': 'x' })).toEqual(['unknown key messages["account.titel"].']);
    expect(messageProblems({ 'signIn.title': '' })).toEqual(['messages["signIn.title"] must be a non-empty string.']);
    expect(messageProblems({ 'signIn.title': 3 })).toHaveLength(1);
    expect(messageProblems({ lang: 'de"><script>' })).toHaveLength(1);
    expect(messageProblems('de')).toHaveLength(1);
    expect(messageProblems(GERMAN_MESSAGES)).toEqual([]);
    expect(problems({ messages: { 'signIn.titel': 'Anmelden' } })).toContain('unknown key messages["signIn.titel"]');
    expect(problems({ messages: GERMAN_MESSAGES })).toBe('');
    expect(problems({ mesages: {} })).toContain('did you mean `messages`?');
  });

  it('resolves into the config: English by default, the given ones over it', () => {
    const config = resolveConfig(
      { secret: SECRET, providers: [], messages: { 'signOut.title': 'Abmelden' } },
      {},
      null,
      {},
    );
    expect(config.messages['signOut.title']).toBe('Abmelden');
    expect(config.messages['signIn.title']).toBe('Sign in');
  });
});
