import { describe, expect, it } from '@jest/globals';
import { Inject, Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { MemoryAdapter } from '../adapters/memory.adapter.js';
import { isProviderSpec, providerFromOption } from './option-provider.js';

const TOKEN = Symbol('part');
const PREFIX = Symbol('prefix');

@Module({ providers: [{ provide: PREFIX, useValue: 'from-module' }], exports: [PREFIX] })
class PrefixModule {}

@Injectable()
class Part {
  constructor(@Inject(PREFIX) readonly prefix: string) {}
}

/** Registers what `providerFromOption` gives in a real Nest module and returns what `TOKEN` resolves to. */
async function resolve(option: unknown, extra: { providers?: never[]; imports?: never[] } = {}): Promise<unknown> {
  const { provider, imports } = providerFromOption(TOKEN, option);
  const moduleRef = await Test.createTestingModule({
    imports: [...imports, ...(extra.imports ?? [])],
    providers: [provider, ...(extra.providers ?? [])],
  }).compile();
  try {
    return moduleRef.get(TOKEN);
  } finally {
    await moduleRef.close();
  }
}

describe('providerFromOption', () => {
  it('builds a class with its injected dependencies, given bare or as useClass with imports', async () => {
    const bare = await resolve(Part, { imports: [PrefixModule as never] });
    expect(bare).toBeInstanceOf(Part);
    expect((bare as Part).prefix).toBe('from-module');
    const withImports = await resolve({ useClass: Part, imports: [PrefixModule] });
    expect((withImports as Part).prefix).toBe('from-module');
  });

  it('calls a factory with what it injects', async () => {
    const built = await resolve({
      useFactory: (prefix: string) => ({ prefix }),
      inject: [PREFIX],
      imports: [PrefixModule],
    });
    expect(built).toEqual({ prefix: 'from-module' });
  });

  it('aliases an existing provider', async () => {
    const existing = new MemoryAdapter();
    const OTHER = Symbol('other');
    expect(
      await resolve({ useExisting: OTHER }, { providers: [{ provide: OTHER, useValue: existing } as never] }),
    ).toBe(existing);
  });

  it('takes anything else as the value itself', async () => {
    const adapter = new MemoryAdapter();
    expect(await resolve(adapter)).toBe(adapter);
    expect(providerFromOption(TOKEN, adapter).imports).toEqual([]);
  });

  it('tells a provider spec from a value', () => {
    expect(
      [MemoryAdapter, { useClass: MemoryAdapter }, { useFactory: () => 1 }, { useExisting: TOKEN }].map(isProviderSpec),
    ).toEqual([true, true, true, true]);
    expect([new MemoryAdapter(), 'redis://x', { useFactory: 1 }].map(isProviderSpec)).toEqual([false, false, false]);
  });
});
