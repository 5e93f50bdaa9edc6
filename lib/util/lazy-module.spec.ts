import { describe, expect, it } from '@jest/globals';
import { lazyModule } from './lazy-module.js';

describe('lazyModule', () => {
  it('imports once on first load, shares the promise, and tells what is loaded', async () => {
    let imports = 0;
    const lazy = lazyModule(async () => ({ n: ++imports }));
    expect(imports).toBe(0);
    expect(lazy.loaded()).toBeUndefined();
    const [a, b] = await Promise.all([lazy.load(), lazy.load()]);
    expect(a).toBe(b);
    expect(await lazy.load()).toBe(a);
    expect(imports).toBe(1);
    expect(lazy.loaded()).toBe(a);
  });

  it('forgets a failed import: the caller sees the error, the next load tries again', async () => {
    let attempt = 0;
    const lazy = lazyModule(async () => {
      if (++attempt === 1) throw new Error('Cannot find module');
      return { ok: true };
    });
    await expect(lazy.load()).rejects.toThrow('Cannot find module');
    expect(lazy.loaded()).toBeUndefined();
    await expect(lazy.load()).resolves.toEqual({ ok: true });
    expect(attempt).toBe(2);
  });
});
