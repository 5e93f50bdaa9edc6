import { describe, expect, it } from '@jest/globals';
import { KeyedQueue } from './keyed-queue.js';

/** A promise the test settles by hand. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('KeyedQueue', () => {
  it('runs sign-ins of one account one after the other, in arrival order', async () => {
    const queue = new KeyedQueue();
    const events: string[] = [];
    const first = deferred();
    const a = queue.run('idp\0u1', async () => {
      events.push('a start');
      await first.promise;
      events.push('a end');
      return 'a';
    });
    const b = queue.run('idp\0u1', async () => {
      events.push('b start');
      return 'b';
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual(['a start']);
    first.resolve();
    expect(await Promise.all([a, b])).toEqual(['a', 'b']);
    expect(events).toEqual(['a start', 'a end', 'b start']);
  });

  it('runs different accounts side by side', async () => {
    const queue = new KeyedQueue();
    const held = deferred();
    const events: string[] = [];
    const a = queue.run('idp\0u1', async () => {
      await held.promise;
      events.push('u1');
    });
    await queue.run('idp\0u2', async () => {
      events.push('u2');
    });
    expect(events).toEqual(['u2']);
    held.resolve();
    await a;
    expect(events).toEqual(['u2', 'u1']);
  });

  it('a failed sign-in fails alone: the next one of the account still runs', async () => {
    const queue = new KeyedQueue();
    const failing = queue.run('idp\0u1', async () => {
      throw new Error('storage down');
    });
    const next = queue.run('idp\0u1', async () => 'signed in');
    await expect(failing).rejects.toThrow('storage down');
    await expect(next).resolves.toBe('signed in');
  });

  it('keeps nothing once the queue of an account is empty', async () => {
    const queue = new KeyedQueue();
    await Promise.all([queue.run('k1', async () => 1), queue.run('k1', async () => 2), queue.run('k2', async () => 3)]);
    await queue
      .run('k3', async () => {
        throw new Error('x');
      })
      .catch(() => undefined);
    expect(queue.pending).toBe(0);
  });
});
