import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/** The prefix of an encrypted value: `enc.v1.<key id>.<iv>.<ciphertext and tag>` (base64url parts). */
export const ENCRYPTED_PREFIX = 'enc.v1.';

interface CipherKey {
  id: string;
  key: Buffer;
}

/**
 * AES-256-GCM for provider tokens stored on accounts, with a key derived from each secret (HKDF-SHA256).
 * Values are encrypted with the first secret's key; any listed secret's key decrypts (rotation: put the
 * new secret first, keep the old one until the rows are rewritten). Each value names its key by a
 * short id (a hash of the key, not the key).
 */
export class TokenCipher {
  private readonly keys: CipherKey[];

  constructor(secrets: readonly string[]) {
    if (!secrets.length) throw new Error('TokenCipher needs at least one secret.');
    this.keys = secrets.map((secret) => {
      const key = Buffer.from(hkdfSync('sha256', secret, 'nestjs-auth', 'account tokens v1', 32));
      return { id: createHash('sha256').update(key).digest('base64url').slice(0, 8), key };
    });
  }

  /** True when `value` is in the encrypted format (whether or not a key here opens it). */
  static isEncrypted(value: unknown): value is string {
    return typeof value === 'string' && value.startsWith(ENCRYPTED_PREFIX);
  }

  encrypt(plain: string): string {
    const { id, key } = this.keys[0]!;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${ENCRYPTED_PREFIX}${id}.${iv.toString('base64url')}.${sealed.toString('base64url')}`;
  }

  /**
   * The plain value. A value not in the encrypted format is returned as it is (rows written before
   * encryption was turned on); an encrypted one that no key opens (unknown key, tampered, truncated)
   * is `undefined`: fail closed, never the ciphertext.
   */
  decrypt(value: string): string | undefined {
    if (!TokenCipher.isEncrypted(value)) return value;
    const [id, iv, sealed] = value.slice(ENCRYPTED_PREFIX.length).split('.');
    const entry = this.keys.find((k) => k.id === id);
    if (!entry || !iv || !sealed) return undefined;
    try {
      const ivBytes = Buffer.from(iv, 'base64url');
      const data = Buffer.from(sealed, 'base64url');
      if (ivBytes.length !== 12 || data.length < 16) return undefined;
      const decipher = createDecipheriv('aes-256-gcm', entry.key, ivBytes);
      decipher.setAuthTag(data.subarray(data.length - 16));
      return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}
