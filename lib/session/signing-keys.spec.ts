import { describe, expect, it } from '@jest/globals';
import { createHash, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { AdapterSigningKey } from '../adapters/adapter-extensions.js';
import { MemoryAdapter } from '../adapters/memory.adapter.js';
import { SigningKeys } from './signing-keys.js';

const SECRET = 'first-secret-that-is-long-enough-000000';
const MAX_AGE = 600;
const PUBLISH_AHEAD = 3600;
const GRACE = 300;

/** Stored signing keys on `adapter`, as an instance configured with `algorithm` holds them. */
function storedKeys(adapter: MemoryAdapter, algorithm?: 'EdDSA' | 'RS256') {
  const warnings: string[] = [];
  const config = {
    secrets: [SECRET],
    accessToken: {
      enabled: true,
      keys: 'stored',
      algorithm,
      maxAge: MAX_AGE,
      rotation: { every: 0, publishAhead: PUBLISH_AHEAD, grace: GRACE },
    },
    logger: { debug: () => undefined, error: () => undefined, warn: (code: string) => warnings.push(code) },
  };
  return { keys: new SigningKeys(config as never, { raw: adapter } as never), warnings };
}

/** The RFC 7638 thumbprint of a public key (what the module names it by). */
function thumbprint(publicKey: KeyObject): string {
  const j = publicKey.export({ format: 'jwk' });
  const members = j.kty === 'RSA' ? { e: j.e, kty: j.kty, n: j.n } : { crv: j.crv, kty: j.kty, x: j.x };
  return createHash('sha256').update(JSON.stringify(members)).digest('base64url');
}

describe('SigningKeys, stored', () => {
  it("makes RSA 2048-bit keys (exponent 65537) with algorithm 'RS256', sealed and stored as Ed25519 ones are", async () => {
    const adapter = new MemoryAdapter();
    const { keys } = storedKeys(adapter, 'RS256');
    await keys.refresh();
    const [row] = await adapter.listSigningKeys();
    expect(row).toMatchObject({
      alg: 'RS256',
      slot: 0,
      removesAt: null,
      privateKey: expect.stringMatching(/^enc\.v1\./),
    });
    const publicJwk = JSON.parse(row!.publicJwk) as { kty: string; n: string; e: string };
    expect(Object.keys(publicJwk)).toEqual(['kty', 'n', 'e']);
    const publicKey = createPublicKey({ key: publicJwk, format: 'jwk' });
    expect(publicKey.asymmetricKeyDetails).toEqual({ modulusLength: 2048, publicExponent: 65537n });
    expect(row!.id).toBe(thumbprint(publicKey));
    const signing = keys.signingKey();
    expect(signing).toMatchObject({ kid: row!.id, alg: 'RS256' });
    expect(signing.privateKey?.asymmetricKeyType).toBe('rsa');
    // Another instance (same secret) opens the sealed private half and signs with the same key.
    const other = storedKeys(adapter, 'RS256').keys;
    await other.refresh();
    expect(other.signingKey().kid).toBe(row!.id);
    expect((await adapter.listSigningKeys()).length).toBe(1);
  });

  it('makes Ed25519 keys by default', async () => {
    const adapter = new MemoryAdapter();
    await storedKeys(adapter).keys.refresh();
    expect(await adapter.listSigningKeys()).toEqual([expect.objectContaining({ alg: 'EdDSA' })]);
  });

  it('switches EdDSA to RS256 safely: the next key is RSA, published ahead; the Ed25519 one signs until then and verifies until rotation removes it', async () => {
    const adapter = new MemoryAdapter();
    const t0 = Date.now();
    const ed = storedKeys(adapter, 'EdDSA').keys;
    await ed.refresh(t0);
    const edKid = ed.signingKey(t0).kid;

    // The app restarts with algorithm 'RS256'.
    const { keys: rs, warnings } = storedKeys(adapter, 'RS256');
    const t1 = t0 + 1000;
    await rs.refresh(t1);
    expect(warnings).toEqual(['signing_key_algorithm_changed']);
    const rows = await adapter.listSigningKeys();
    expect(rows.map((r) => [r.alg, r.slot])).toEqual([
      ['EdDSA', 0],
      ['RS256', 1],
    ]);
    const rsaKid = rows[1]!.id;
    const activatesAt = t1 + PUBLISH_AHEAD * 1000;
    expect(rows[1]!.activatesAt.getTime()).toBe(activatesAt);
    // Both published; the Ed25519 key signs until the RSA key's time comes.
    expect(rs.jwks(t1).keys.map((k) => [k.kid, k.alg])).toEqual([
      [edKid, 'EdDSA'],
      [rsaKid, 'RS256'],
    ]);
    expect(rs.signingKey(t1).kid).toBe(edKid);
    expect(rs.signingKey(activatesAt - 1).kid).toBe(edKid);
    expect(rs.signingKey(activatesAt)).toMatchObject({ kid: rsaKid, alg: 'RS256' });
    // Read again, by this instance or one still saying EdDSA (a rolling deploy): no other key.
    await rs.refresh(t1 + 5000);
    await ed.refresh(t1 + 5000);
    expect(await adapter.listSigningKeys()).toHaveLength(2);
    expect(warnings).toHaveLength(1);
    // Once the RSA key signs, the Ed25519 one verifies what it signed (maxAge), plus grace, then goes.
    const removesAt = activatesAt + (MAX_AGE + GRACE) * 1000;
    await rs.refresh(activatesAt + 1000);
    expect(rs.byKid(edKid, removesAt - 1)).toMatchObject({ alg: 'EdDSA' });
    expect(rs.byKid(edKid, removesAt)).toBeUndefined();
    await rs.refresh(removesAt);
    expect((await adapter.listSigningKeys()).map((r) => r.alg)).toEqual(['RS256']);
    expect(rs.jwks(removesAt).keys.map((k) => k.kid)).toEqual([rsaKid]);
    expect(warnings).toHaveLength(1);
  });

  it('rotates RS256 keys as Ed25519 ones: the new key RSA, the old one still verifying', async () => {
    const adapter = new MemoryAdapter();
    const { keys } = storedKeys(adapter, 'RS256');
    await keys.refresh();
    const old = keys.signingKey().kid;
    const kid = await keys.rotate({ immediately: true });
    expect(keys.signingKey()).toMatchObject({ kid, alg: 'RS256' });
    expect(keys.byKid(old)).toMatchObject({ alg: 'RS256' });
    expect((await adapter.listSigningKeys()).map((r) => r.alg)).toEqual(['RS256', 'RS256']);
  });

  it('leaves out a stored key whose alg is not its key type, or an RSA key under 2048 bits', async () => {
    const adapter = new MemoryAdapter();
    const row = (alg: string, publicKey: KeyObject, slot: number): AdapterSigningKey => {
      const j = publicKey.export({ format: 'jwk' });
      return {
        id: thumbprint(publicKey),
        alg,
        publicJwk: JSON.stringify(
          j.kty === 'RSA' ? { kty: j.kty, n: j.n, e: j.e } : { kty: j.kty, crv: j.crv, x: j.x },
        ),
        privateKey: 'enc.v1.x.y.z',
        slot,
        createdAt: new Date(0),
        activatesAt: new Date(0),
        removesAt: null,
      };
    };
    const bad = [
      row('RS256', generateKeyPairSync('ed25519').publicKey, 100),
      row('EdDSA', generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey, 101),
      row('RS256', generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey, 102),
      row('ES256', generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey, 103),
    ];
    for (const r of bad) await adapter.createSigningKey(r);
    const { keys } = storedKeys(adapter, 'RS256');
    await keys.refresh();
    const published = keys.jwks().keys.map((k) => k.kid);
    expect(published).toHaveLength(1);
    for (const r of bad) expect(published).not.toContain(r.id);
    expect(keys.signingKey().alg).toBe('RS256');
  });
});
