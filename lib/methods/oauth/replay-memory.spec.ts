import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { InvalidCheck } from '../../errors/auth.errors.js';
import { CHECK_MAX_AGE } from './oauth-checks.js';
import { REPLAY_MEMORY_MAX, ReplayMemory } from './replay-memory.js';

describe('ReplayMemory', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  it('refuses the same check values a second time, for the same provider only', () => {
    const memory = new ReplayMemory();
    memory.markUsed('idp', { code_verifier: 'v1', state: 's1' }, 'code-1');
    expect(() => memory.markUsed('idp', { code_verifier: 'v1', state: 's1' }, 'code-2')).toThrow(InvalidCheck);
    expect(() => memory.markUsed('idp', { code_verifier: 'v1' }, 'code-3')).toThrow(
      'This sign-in response was already used.',
    );
    memory.markUsed('other', { code_verifier: 'v1' }, 'code-1');
    memory.markUsed('idp', { code_verifier: 'v2', state: 's1' }, 'code-1');
  });

  it('keys on the verifier, else the state, else the nonce, else the code', () => {
    const memory = new ReplayMemory();
    memory.markUsed('idp', { state: 's', nonce: 'n' }, 'code');
    expect(() => memory.markUsed('idp', { state: 's' }, 'other-code')).toThrow(InvalidCheck);
    memory.markUsed('idp', { nonce: 'n' }, 'code');
    expect(() => memory.markUsed('idp', { nonce: 'n' }, 'x')).toThrow(InvalidCheck);
    memory.markUsed('idp', {}, 'code-only');
    expect(() => memory.markUsed('idp', {}, 'code-only')).toThrow(InvalidCheck);
    memory.markUsed('idp', {}, 'another-code');
  });

  it('forgets values once a check cookie could no longer carry them', () => {
    jest.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z'), doNotFake: ['nextTick', 'setImmediate'] });
    const memory = new ReplayMemory();
    memory.markUsed('idp', { state: 's' }, 'code');
    jest.setSystemTime(Date.now() + CHECK_MAX_AGE * 1000 - 1);
    expect(() => memory.markUsed('idp', { state: 's' }, 'code')).toThrow(InvalidCheck);
    jest.setSystemTime(Date.now() + 1);
    memory.markUsed('idp', { state: 's' }, 'code');
  });

  it('stays bounded: past REPLAY_MEMORY_MAX values, expired ones are swept, then the oldest forgotten', () => {
    jest.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z'), doNotFake: ['nextTick', 'setImmediate'] });
    const memory = new ReplayMemory();
    for (let i = 0; i < REPLAY_MEMORY_MAX; i++) memory.markUsed('idp', {}, `code-${i}`);
    expect(memory.size).toBe(REPLAY_MEMORY_MAX);
    memory.markUsed('idp', {}, 'one-more');
    expect(memory.size).toBe(REPLAY_MEMORY_MAX);
    expect(() => memory.markUsed('idp', {}, 'one-more')).toThrow(InvalidCheck);
    jest.setSystemTime(Date.now() + CHECK_MAX_AGE * 1000);
    for (let i = 0; i < REPLAY_MEMORY_MAX; i++) memory.markUsed('idp', {}, `later-${i}`);
    memory.markUsed('idp', {}, 'after-expiry');
    expect(memory.size).toBeLessThanOrEqual(REPLAY_MEMORY_MAX);
    expect(() => memory.markUsed('idp', {}, `later-${REPLAY_MEMORY_MAX - 1}`)).toThrow(InvalidCheck);
  });
});
