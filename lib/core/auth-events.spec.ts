import { describe, expect, it } from '@jest/globals';
import type { AuthModuleOptions } from '../config/auth-options.interface.js';
import { resolveConfig } from '../sign-in-methods.js';
import { AuthEvents } from './auth-events.js';

const SECRET = 'auth-events-spec-secret-long-enough-000000';
const USER = { id: 'u1', email: 'a@b.test', name: 'A', image: null };
const flush = () => new Promise((r) => setImmediate(r));

/** AuthEvents over `events`, with a logger that records error lines as `Name: message`. */
function authEvents(events: AuthModuleOptions['events']) {
  const errors: string[] = [];
  const logger = { error: (e: Error) => void errors.push(`${e.name}: ${e.message}`), warn() {}, debug() {} };
  const config = resolveConfig({ secret: SECRET, providers: [], logger, events }, {}, null, {});
  return { events: new AuthEvents(config), errors };
}

describe('AuthEvents.emit', () => {
  it('calls the handler with the message after the current turn, and nothing without one', async () => {
    const seen: unknown[] = [];
    const { events, errors } = authEvents({ signIn: (m) => void seen.push(m) });
    events.emit('signIn', { user: USER, account: null });
    events.emit('signOut', { session: null });
    expect(seen).toEqual([]);
    await flush();
    expect(seen).toEqual([{ user: USER, account: null }]);
    expect(errors).toEqual([]);
  });

  it('logs a handler that throws or rejects as EventError and never throws itself', async () => {
    const { events, errors } = authEvents({
      signIn: () => {
        throw new Error('handler bug');
      },
      accountChange: () => Promise.reject(new Error('async bug')),
    });
    expect(() => events.emit('signIn', { user: USER, account: null })).not.toThrow();
    expect(() => events.emit('accountChange', { action: 'password.set', userId: 'u1' })).not.toThrow();
    await flush();
    expect(errors).toEqual([
      'EventError: The signIn event handler threw: handler bug',
      'EventError: The accountChange event handler threw: async bug',
    ]);
  });
});
