import { describe, expect, it } from '@jest/globals';
import { MemoryAdapter } from '../adapters/memory.adapter.js';
import { recentSignInNotice } from './adapter-requirements.js';

describe('recentSignInNotice (the bootstrap warning for sessions that cannot tell when they signed in)', () => {
  it('warns for database sessions through an adapter that does not list sessions, naming what breaks', () => {
    // An Auth.js adapter object has the contract's session methods and no session listing.
    const authjs = { createSession: () => null, getSessionAndUser: () => null, deleteSession: () => null };
    const notice = recentSignInNotice('database', authjs);
    expect(notice).toMatch(/no listSessionsByUserId \(SessionListingAdapter\)/);
    expect(notice).toMatch(/ReauthenticationRequired/);
    expect(notice).toMatch(/session\.strategy: 'jwt'/);
  });

  it('says nothing for JWT sessions, no adapter, or an adapter that lists sessions', () => {
    expect(recentSignInNotice('jwt', {})).toBeNull();
    expect(recentSignInNotice('database', null)).toBeNull();
    expect(recentSignInNotice('database', new MemoryAdapter())).toBeNull();
  });
});
