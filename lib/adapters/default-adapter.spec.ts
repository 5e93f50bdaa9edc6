import { describe, expect, it } from '@jest/globals';
import { DEFAULT_ADAPTER, defaultAdapterModule, isMissingPackage } from './default-adapter.js';

/** An error as Node raises it for a package that is not installed. */
function notFound(name: string, code = 'ERR_MODULE_NOT_FOUND'): Error {
  return Object.assign(
    new Error(`Cannot find package '${name}' imported from /app/node_modules/nestjs-auth/dist/x.js`),
    {
      code,
    },
  );
}

describe('the default adapter module', () => {
  it('loads the TypeORM adapter provider when TypeORM is installed', async () => {
    const module = await defaultAdapterModule();
    expect(module.exports).toEqual([DEFAULT_ADAPTER]);
    const [provider] = module.providers as Array<{ provide: unknown; useFactory?: unknown; inject?: unknown[] }>;
    expect(provider!.provide).toBe(DEFAULT_ADAPTER);
    expect(provider!.inject).toHaveLength(2);
  });

  it('is null (JWT sessions only) when typeorm or @nestjs/typeorm is not installed', async () => {
    for (const name of ['typeorm', '@nestjs/typeorm']) {
      const module = await defaultAdapterModule(undefined, () => Promise.reject(notFound(name)));
      const [provider] = module.providers as Array<{ provide: unknown; useFactory: () => unknown }>;
      expect(provider!.provide).toBe(DEFAULT_ADAPTER);
      expect(provider!.useFactory()).toBeNull();
    }
  });

  it('fails on any other error, a missing package TypeORM itself needs included', async () => {
    await expect(defaultAdapterModule(undefined, () => Promise.reject(notFound('reflect-metadata')))).rejects.toThrow(
      "'reflect-metadata'",
    );
    await expect(defaultAdapterModule(undefined, () => Promise.reject(new SyntaxError('bad')))).rejects.toThrow('bad');
  });

  it('tells a missing package by its code and its quoted name', () => {
    expect(isMissingPackage(notFound('typeorm'), ['typeorm'])).toBe(true);
    expect(isMissingPackage(notFound('typeorm', 'MODULE_NOT_FOUND'), ['typeorm'])).toBe(true);
    expect(isMissingPackage(notFound('typeorm-extra'), ['typeorm'])).toBe(false);
    expect(isMissingPackage(new Error("Cannot find package 'typeorm'"), ['typeorm'])).toBe(false);
    expect(isMissingPackage(undefined, ['typeorm'])).toBe(false);
  });
});
