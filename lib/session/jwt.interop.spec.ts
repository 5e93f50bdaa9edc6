// Proves wire compatibility with Auth.js: sessions minted by @auth/core (a dev dependency only)
// are read here, and ours are read by @auth/core, for both cookie names (the HKDF salt).
import { describe, expect, it } from '@jest/globals';
import { decode as authjsDecode, encode as authjsEncode } from '@auth/core/jwt';
import { createJwtCodec, decode, encode } from './jwt.js';

const SECRET = 'interop-secret-that-is-long-enough-000000';
const NEXT = 'interop-next-secret-long-enough-11111111';
const UNRELATED = 'interop-unrelated-secret-long-enough-2222';
const token = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  picture: 'https://example.com/a.png',
  sub: 'user-1',
  role: 'admin',
};

describe.each(['authjs.session-token', '__Secure-authjs.session-token'])('Auth.js interop, salt %s', (salt) => {
  it('decodes a session minted by @auth/core', async () => {
    const theirs = await authjsEncode({ token, secret: SECRET, salt });
    const viaDecode = await decode({ token: theirs, secret: SECRET, salt });
    const viaCodec = await createJwtCodec([SECRET], salt, 3600).decode(theirs);
    const expected = await authjsDecode({ token: theirs, secret: SECRET, salt });
    expect(viaDecode).toEqual(expected);
    expect(viaCodec).toEqual(expected);
    expect(viaDecode).toMatchObject(token);
  });

  it('mints sessions that @auth/core decodes, with the same claims it would set', async () => {
    const ours = await encode({ token, secret: SECRET, salt, maxAge: 3600 });
    const fromCodec = await createJwtCodec([SECRET], salt, 3600).encode(token);
    const theirs = await authjsEncode({ token, secret: SECRET, salt, maxAge: 3600 });
    for (const jwe of [ours, fromCodec]) {
      const decoded = await authjsDecode({ token: jwe, secret: SECRET, salt });
      expect(decoded).toMatchObject(token);
      expect(decoded!.exp! - decoded!.iat!).toBe(3600);
      expect(typeof decoded!.jti).toBe('string');
      // Same protected header as Auth.js (alg, enc and kid).
      expect(jwe.split('.')[0]).toBe(theirs.split('.')[0]);
    }
  });

  it('rotates secrets compatibly in both directions', async () => {
    // Auth.js minted with the old secret; we now run with [next, old].
    const old = await authjsEncode({ token, secret: SECRET, salt });
    expect(await decode({ token: old, secret: [NEXT, SECRET], salt })).toMatchObject(token);
    // We mint with [next, old]: Auth.js with [next] or [unrelated, next] reads it, with [old] it cannot.
    const ours = await encode({ token, secret: [NEXT, SECRET], salt });
    expect(await authjsDecode({ token: ours, secret: NEXT, salt })).toMatchObject(token);
    expect(await authjsDecode({ token: ours, secret: [UNRELATED, NEXT], salt })).toMatchObject(token);
    await expect(authjsDecode({ token: ours, secret: SECRET, salt })).rejects.toThrow();
  });

  it('agrees with @auth/core on refusing the wrong secret, the other salt, tampering and expiry', async () => {
    const theirs = await authjsEncode({ token, secret: SECRET, salt });
    const otherSalt = salt.startsWith('__Secure-') ? 'authjs.session-token' : '__Secure-authjs.session-token';
    expect(await decode({ token: theirs, secret: UNRELATED, salt })).toBeNull();
    expect(await decode({ token: theirs, secret: SECRET, salt: otherSalt })).toBeNull();

    const parts = theirs.split('.');
    parts[3] = (parts[3][0] === 'A' ? 'B' : 'A') + parts[3].slice(1);
    const tampered = parts.join('.');
    expect(await decode({ token: tampered, secret: SECRET, salt })).toBeNull();
    await expect(authjsDecode({ token: tampered, secret: SECRET, salt })).rejects.toThrow();

    const expiredTheirs = await authjsEncode({ token, secret: SECRET, salt, maxAge: -60 });
    expect(await decode({ token: expiredTheirs, secret: SECRET, salt })).toBeNull();
    const expiredOurs = await encode({ token, secret: SECRET, salt, maxAge: -60 });
    await expect(authjsDecode({ token: expiredOurs, secret: SECRET, salt })).rejects.toThrow(/exp/);
  });
});
