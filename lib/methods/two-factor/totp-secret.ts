import { hkdfSync } from 'node:crypto';
import { TokenCipher } from '../../util/token-cipher.js';

/**
 * Encryption at rest of a user's TOTP secret, the way provider tokens are stored (`TokenCipher`:
 * AES-256-GCM, `enc.v1.<key id>.<iv>.<ciphertext and tag>`, the first secret encrypts, any listed
 * one decrypts). The cipher is given a secret of its own, derived from each configured secret with
 * HKDF-SHA-256 under a distinct info label, so its keys (and key ids) differ from the provider-token
 * ones: a sealed TOTP secret never opens as a provider token, nor a provider token as a TOTP secret.
 */

/** Ciphers by secrets array (the resolved configuration keeps one). */
const ciphers = new WeakMap<readonly string[], TokenCipher>();

function cipherFor(secrets: readonly string[]): TokenCipher {
  let cipher = ciphers.get(secrets);
  if (!cipher) {
    cipher = new TokenCipher(
      secrets.map((secret) =>
        Buffer.from(hkdfSync('sha256', secret, 'nestjs-auth', 'two-factor secret v1', 32)).toString('base64url'),
      ),
    );
    ciphers.set(secrets, cipher);
  }
  return cipher;
}

/**
 * The TOTP secret encrypted for storage, under the first of `secrets` (the configuration's).
 * @throws when `secrets` is empty
 */
export function sealTotpSecret(secret: string, secrets: readonly string[]): string {
  return cipherFor(secrets).encrypt(secret);
}

/**
 * The TOTP secret of a stored value, or `null` when no key of `secrets` opens it (another secret,
 * another purpose, tampered, truncated, not a sealed value at all). Never throws.
 */
export function openTotpSecret(sealed: unknown, secrets: readonly string[]): string | null {
  if (!TokenCipher.isEncrypted(sealed) || !Array.isArray(secrets) || secrets.length === 0) return null;
  try {
    return cipherFor(secrets).decrypt(sealed) ?? null;
  } catch {
    return null;
  }
}
