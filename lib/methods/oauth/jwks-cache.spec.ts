import { beforeAll, describe, expect, it } from '@jest/globals';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import {
  JWKS_MAX_UNKNOWN_KEY_REFETCHES_PER_MINUTE,
  JWKS_TTL_MS,
  JWKS_UNKNOWN_KID_TTL_MS,
  JwksCache,
  JwksKeySelectionError,
} from './jwks-cache.js';

/** Public RS256 / ES256 JWKs with the given kid. */
async function publicJwk(kid: string | undefined, alg: 'RS256' | 'ES256' = 'RS256'): Promise<JWK> {
  const { publicKey } = await generateKeyPair(alg, { extractable: true });
  return { ...(await exportJWK(publicKey)), ...(kid !== undefined ? { kid } : {}), alg, use: 'sig' };
}

/**
 * The provider's side, as the cache sees it: a key set it can change, a count of fetches, and
 * optionally fetches held open until the test releases them (to make callers overlap).
 */
class KeySetSource {
  keys: JWK[] = [];
  fetches = 0;
  fail = false;
  private held: Array<() => void> | undefined;

  /** The `load` function handed to the cache. */
  readonly load = async (): Promise<unknown> => {
    this.fetches++;
    // What the provider serves is decided when the request is sent, as over HTTP.
    const answer = { keys: this.keys.map((k) => ({ ...k })) };
    const fail = this.fail;
    if (this.held) await new Promise<void>((resolve) => this.held!.push(resolve));
    if (fail) throw new Error('the JWKS endpoint answered 503');
    return answer;
  };

  /** From now on, fetches wait for {@link release}. */
  hold(): void {
    this.held = [];
  }

  /** Lets every held fetch answer, and stops holding. */
  release(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const resolve of held) resolve();
  }
}

/** A clock the tests move by hand. */
function clock(start = 1_700_000_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

/** Lets pending promise callbacks run (the cache's work between awaits), without timers. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

async function selectionError(promise: Promise<unknown>): Promise<JwksKeySelectionError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(JwksKeySelectionError);
  return error as JwksKeySelectionError;
}

const ID = 'idp\0https://idp.example/jwks';
let k1: JWK;
let k2: JWK;
let k3: JWK;

beforeAll(async () => {
  [k1, k2, k3] = await Promise.all([publicJwk('k1'), publicJwk('k2'), publicJwk('k3')]);
});

describe('JwksCache', () => {
  it('fetches on first use (once for concurrent callers) and serves known kids from the cache', async () => {
    const source = new KeySetSource();
    source.keys = [k1];
    const cache = new JwksCache({ now: clock().now });
    source.hold();
    const callers = Array.from({ length: 5 }, () => cache.getKey(ID, { alg: 'RS256', kid: 'k1' }, source.load));
    await settle();
    source.release();
    const keys = await Promise.all(callers);
    expect(source.fetches).toBe(1);
    for (const key of keys) expect(key.type).toBe('public');
    await cache.getKey(ID, { alg: 'RS256', kid: 'k1' }, source.load);
    expect(source.fetches).toBe(1);
  });

  it('fetches again once the TTL has passed', async () => {
    const source = new KeySetSource();
    source.keys = [k1];
    const time = clock();
    const cache = new JwksCache({ now: time.now });
    await cache.getKey(ID, { alg: 'RS256', kid: 'k1' }, source.load);
    time.advance(JWKS_TTL_MS - 1);
    await cache.getKey(ID, { alg: 'RS256', kid: 'k1' }, source.load);
    expect(source.fetches).toBe(1);
    time.advance(1);
    await cache.getKey(ID, { alg: 'RS256', kid: 'k1' }, source.load);
    expect(source.fetches).toBe(2);
  });

  it('an unknown kid makes one refetch, shared by 20 concurrent callers (single flight)', async () => {
    const source = new KeySetSource();
    source.keys = [k1];
    const cache = new JwksCache({ now: clock().now });
    await cache.getKey(ID, { alg: 'RS256', kid: 'k1' }, source.load);
    // Rotation: the new key first, the old one kept.
    source.keys = [k2, k1];
    source.hold();
    const callers = Array.from({ length: 20 }, () => cache.getKey(ID, { alg: 'RS256', kid: 'k2' }, source.load));
    await settle();
    source.release();
    const keys = await Promise.all(callers);
    expect(keys).toHaveLength(20);
    expect(source.fetches).toBe(2);
    // Both keys are now known without further fetches.
    await cache.getKey(ID, { alg: 'RS256', kid: 'k1' }, source.load);
    await cache.getKey(ID, { alg: 'RS256', kid: 'k2' }, source.load);
    expect(source.fetches).toBe(2);
  });

  it('a second rotation right after the first is accepted at once (no refetch interval between different kids)', async () => {
    const source = new KeySetSource();
    source.keys = [k1];
    const cache = new JwksCache({ now: clock().now });
    await cache.getKey(ID, { alg: 'RS256', kid: 'k1' }, source.load);
    source.keys = [k2, k1];
    await cache.getKey(ID, { alg: 'RS256', kid: 'k2' }, source.load);
    source.keys = [k3, k2];
    await cache.getKey(ID, { alg: 'RS256', kid: 'k3' }, source.load);
    expect(source.fetches).toBe(3);
  });

  it('a kid still unknown after the refetch is refused, and refused from the negative cache for a minute', async () => {
    const source = new KeySetSource();
    source.keys = [k1];
    const time = clock();
    const cache = new JwksCache({ now: time.now });
    await cache.getKey(ID, { alg: 'RS256', kid: 'k1' }, source.load);

    const first = await selectionError(cache.getKey(ID, { alg: 'RS256', kid: 'bogus' }, source.load));
    expect(first).toMatchObject({ reason: 'unknown_kid', kid: 'bogus', refetched: true });
    expect(source.fetches).toBe(2);

    time.advance(JWKS_UNKNOWN_KID_TTL_MS - 1);
    const again = await selectionError(cache.getKey(ID, { alg: 'RS256', kid: 'bogus' }, source.load));
    expect(again).toMatchObject({ reason: 'unknown_kid', refetched: false });
    expect(source.fetches).toBe(2);

    // A minute on, the kid may be asked about again (once).
    time.advance(1);
    await selectionError(cache.getKey(ID, { alg: 'RS256', kid: 'bogus' }, source.load));
    expect(source.fetches).toBe(3);
  });

  it('concurrent tokens with the same bogus kid cause one fetch, and all are refused', async () => {
    const source = new KeySetSource();
    source.keys = [k1];
    const cache = new JwksCache({ now: clock().now });
    await cache.getKey(ID, { alg: 'RS256', kid: 'k1' }, source.load);
    source.hold();
    const callers = Array.from({ length: 10 }, () =>
      selectionError(cache.getKey(ID, { alg: 'RS256', kid: 'bogus' }, source.load)),
    );
    await settle();
    source.release();
    for (const error of await Promise.all(callers)) expect(error.reason).toBe('unknown_kid');
    expect(source.fetches).toBe(2);
    // Callers arriving while that fetch was under way are covered by it too: no more fetches now.
    await selectionError(cache.getKey(ID, { alg: 'RS256', kid: 'bogus' }, source.load));
    expect(source.fetches).toBe(2);
  });

  it('a caller that saw its kid missing while an older fetch was under way fetches again if that fetch lacks it', async () => {
    const source = new KeySetSource();
    source.keys = [k1];
    const time = clock();
    const cache = new JwksCache({ now: time.now });
    await cache.getKey(ID, { alg: 'RS256', kid: 'k1' }, source.load);
    // The TTL runs out; a sign-in starts a fetch, sent before the provider rotates.
    time.advance(JWKS_TTL_MS);
    source.hold();
    const old = cache.getKey(ID, { alg: 'RS256', kid: 'k1' }, source.load);
    await settle();
    // The provider rotates; a token with the new kid arrives while that fetch is still out.
    source.keys = [k2, k1];
    const rotated = cache.getKey(ID, { alg: 'RS256', kid: 'k2' }, source.load);
    await settle();
    source.release();
    await old;
    await expect(rotated).resolves.toMatchObject({ type: 'public' });
    expect(source.fetches).toBe(3);
  });

  it('caps refetches for ever-new unknown kids per minute', async () => {
    const source = new KeySetSource();
    source.keys = [k1];
    const time = clock();
    const cache = new JwksCache({ now: time.now });
    await cache.getKey(ID, { alg: 'RS256', kid: 'k1' }, source.load);
    for (let i = 0; i < JWKS_MAX_UNKNOWN_KEY_REFETCHES_PER_MINUTE; i++) {
      expect(await selectionError(cache.getKey(ID, { alg: 'RS256', kid: `bogus-${i}` }, source.load))).toMatchObject({
        refetched: true,
      });
    }
    expect(source.fetches).toBe(1 + JWKS_MAX_UNKNOWN_KEY_REFETCHES_PER_MINUTE);
    expect(await selectionError(cache.getKey(ID, { alg: 'RS256', kid: 'one-more' }, source.load))).toMatchObject({
      reason: 'unknown_kid',
      refetched: false,
    });
    expect(source.fetches).toBe(1 + JWKS_MAX_UNKNOWN_KEY_REFETCHES_PER_MINUTE);
    time.advance(60_000);
    // The cap is per minute; and the refused kid was not put in the negative cache by the cap.
    source.keys = [await publicJwk('one-more'), k1];
    await expect(cache.getKey(ID, { alg: 'RS256', kid: 'one-more' }, source.load)).resolves.toMatchObject({
      type: 'public',
    });
  });

  it('a failed fetch is not cached: the error reaches the caller and the next call fetches again', async () => {
    const source = new KeySetSource();
    source.keys = [k1];
    const cache = new JwksCache({ now: clock().now });
    source.fail = true;
    await expect(cache.getKey(ID, { alg: 'RS256', kid: 'k1' }, source.load)).rejects.toThrow('503');
    source.fail = false;
    await expect(cache.getKey(ID, { alg: 'RS256', kid: 'k1' }, source.load)).resolves.toMatchObject({ type: 'public' });
    expect(source.fetches).toBe(2);
  });

  it('a malformed key set is refused', async () => {
    const cache = new JwksCache({ now: clock().now });
    await expect(cache.getKey(ID, { alg: 'RS256', kid: 'k1' }, async () => ({ keys: 'nope' }))).rejects.toThrow();
    await expect(cache.getKey(ID, { alg: 'RS256', kid: 'k1' }, async () => [])).rejects.toThrow();
  });

  it('a known kid that does not fit the alg, several keys without a kid, or a non-string kid: refused without a refetch', async () => {
    const source = new KeySetSource();
    const ec = await publicJwk('ec-1', 'ES256');
    source.keys = [k1, ec, await publicJwk(undefined), await publicJwk(undefined)];
    const cache = new JwksCache({ now: clock().now });
    await cache.getKey(ID, { alg: 'RS256', kid: 'k1' }, source.load);
    expect(await selectionError(cache.getKey(ID, { alg: 'ES256', kid: 'k1' }, source.load))).toMatchObject({
      reason: 'no_usable_key',
    });
    expect(await selectionError(cache.getKey(ID, { alg: 'RS256' }, source.load))).toMatchObject({
      reason: 'ambiguous_key',
    });
    expect(
      await selectionError(cache.getKey(ID, { alg: 'RS256', kid: 42 as unknown as string }, source.load)),
    ).toMatchObject({ reason: 'no_usable_key' });
    expect(source.fetches).toBe(1);
    // Without a kid, the only key of the alg's type is chosen.
    await expect(cache.getKey(ID, { alg: 'ES256' }, source.load)).resolves.toMatchObject({ type: 'public' });
  });

  it('keeps key sets apart (per provider and jwks_uri)', async () => {
    const a = new KeySetSource();
    const b = new KeySetSource();
    a.keys = [k1];
    b.keys = [k2];
    const cache = new JwksCache({ now: clock().now });
    await cache.getKey('a', { alg: 'RS256', kid: 'k1' }, a.load);
    await cache.getKey('b', { alg: 'RS256', kid: 'k2' }, b.load);
    expect((await selectionError(cache.getKey('b', { alg: 'RS256', kid: 'k1' }, b.load))).reason).toBe('unknown_kid');
    expect([a.fetches, b.fetches]).toEqual([1, 2]);
  });
});
