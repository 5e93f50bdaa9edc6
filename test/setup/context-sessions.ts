import { MemoryAdapter } from '../../lib/adapters/memory.adapter.js';
import { encode } from '../../lib/session/jwt.js';
import { TEST_SECRET } from './app.js';

/** The session cookie's name on http://127.0.0.1. */
export const SESSION_COOKIE = 'authjs.session-token';

/** A session JWT for a user, as the sign-in routes mint it (expired when `maxAge` is negative). */
export const jwtSession = (maxAge?: number) =>
  encode({
    token: { sub: 'jwt-user', email: 'jwt@example.test', name: 'Jay' },
    secret: TEST_SECRET,
    salt: SESSION_COOKIE,
    maxAge,
  });

/** A MemoryAdapter holding one user, and a way to give them database sessions. */
export async function databaseSessions() {
  const adapter = new MemoryAdapter();
  const user = await adapter.createUser({
    id: 'db-user',
    email: 'db@example.test',
    name: 'Dee',
    emailVerified: null,
  });
  let n = 0;
  return {
    adapter,
    user,
    /** A new session token for the user (expired when `ms` is negative). */
    async session(ms = 3_600_000): Promise<string> {
      n += 1;
      const sessionToken = `db-session-${n}-${Date.now()}`;
      await adapter.createSession({ sessionToken, userId: user.id, expires: new Date(Date.now() + ms) });
      return sessionToken;
    },
  };
}
