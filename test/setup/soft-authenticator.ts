import { createHash, generateKeyPairSync, randomBytes, randomUUID, sign, type KeyObject } from 'node:crypto';
import type { Adapter } from '../../lib/adapters/adapter.interface.js';

/**
 * A WebAuthn authenticator in software, for HTTP-level tests: a real P-256 key (ES256), real
 * attestation objects ("none" format) and real signatures, so the server's verification runs
 * exactly as with a device. Every field a test wants to tamper with can be overridden.
 */
export class SoftAuthenticator {
  readonly credentialId: Buffer;
  private readonly privateKey: KeyObject;
  private readonly publicJwk: { x: string; y: string };
  /** The next signature counter; `counterStep: 0` keeps it at 0 (as synced passkeys do). */
  counter = 0;
  /** The user handle the server gave at registration (base64url). */
  userHandle?: string;

  /**
   * `discoverable: false` reports the credential as not stored on the authenticator
   * (`credProps.rk: false`), as a browser does for a security key without room for passkeys.
   */
  constructor(
    readonly options: {
      counterStep?: number;
      credentialIdBytes?: number;
      backupEligible?: boolean;
      discoverable?: boolean;
    } = {},
  ) {
    this.credentialId = randomBytes(options.credentialIdBytes ?? 32);
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = privateKey;
    const jwk = publicKey.export({ format: 'jwk' });
    this.publicJwk = { x: jwk.x!, y: jwk.y! };
  }

  /** The credential id as the browser sends it (base64url). */
  get id(): string {
    return this.credentialId.toString('base64url');
  }

  /** Answers `navigator.credentials.create()` for server options. */
  register(
    options: { challenge: string; rp: { id?: string }; user: { id: string } },
    override: { origin: string; rpId?: string; type?: string; crossOrigin?: boolean; uv?: boolean; up?: boolean },
  ): Record<string, unknown> {
    this.userHandle = options.user.id;
    const rpId = override.rpId ?? options.rp.id!;
    const clientDataJSON = this.clientData(
      override.type ?? 'webauthn.create',
      options.challenge,
      override.origin,
      override.crossOrigin,
    );
    const cosePublicKey = cbor(
      new Map<number, unknown>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, Buffer.from(this.publicJwk.x, 'base64url')],
        [-3, Buffer.from(this.publicJwk.y, 'base64url')],
      ]),
    );
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const authData = Buffer.concat([
      this.authDataHead(rpId, 0x40 | this.flags(override.uv, override.up), this.counter),
      Buffer.alloc(16), // AAGUID: none
      idLength,
      this.credentialId,
      cosePublicKey,
    ]);
    const attestationObject = cbor(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: clientDataJSON.toString('base64url'),
        attestationObject: attestationObject.toString('base64url'),
        transports: ['internal'],
      },
      clientExtensionResults:
        this.options.discoverable === undefined ? {} : { credProps: { rk: this.options.discoverable } },
      authenticatorAttachment: 'platform',
    };
  }

  /** Answers `navigator.credentials.get()`; the counter advances by `counterStep` (default 1). */
  authenticate(
    options: { challenge: string; rpId?: string },
    override: {
      origin: string;
      rpId?: string;
      counter?: number;
      userHandle?: string | null;
      tamper?: boolean;
      crossOrigin?: boolean;
      uv?: boolean;
      up?: boolean;
    },
  ): Record<string, unknown> {
    const step = this.options.counterStep ?? 1;
    const counter = override.counter ?? (this.counter += step);
    const rpId = override.rpId ?? options.rpId!;
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, override.origin, override.crossOrigin);
    const authData = this.authDataHead(rpId, this.flags(override.uv, override.up), counter);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), this.privateKey);
    if (override.tamper) signature[signature.length - 1] ^= 0x01;
    const userHandle = override.userHandle === null ? undefined : (override.userHandle ?? this.userHandle);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: clientDataJSON.toString('base64url'),
        authenticatorData: authData.toString('base64url'),
        signature: signature.toString('base64url'),
        ...(userHandle ? { userHandle } : {}),
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** Authenticator data flags: user present and verified unless told otherwise, backup bits if eligible. */
  private flags(uv = true, up = true): number {
    const be = this.options.backupEligible ? 0x08 | 0x10 : 0;
    return (up ? 0x01 : 0) | (uv ? 0x04 : 0) | be;
  }

  private authDataHead(rpId: string, flags: number, counter: number): Buffer {
    const c = Buffer.alloc(4);
    c.writeUInt32BE(counter);
    return Buffer.concat([sha256(Buffer.from(rpId)), Buffer.from([flags]), c]);
  }

  private clientData(type: string, challenge: string, origin: string, crossOrigin = false): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin }));
  }
}

function sha256(data: Buffer): Buffer {
  return createHash('sha256').update(data).digest();
}

/** Just enough CBOR for attestation objects and COSE keys: ints, byte/text strings, maps. */
function cbor(value: unknown): Buffer {
  if (typeof value === 'number') {
    return value >= 0 ? head(0, value) : head(1, -1 - value);
  }
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Map) {
    const parts = [head(5, value.size)];
    for (const [k, v] of value) parts.push(cbor(k), cbor(v));
    return Buffer.concat(parts);
  }
  throw new Error(`cbor: unsupported value ${typeof value}`);
}

function head(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 256) return Buffer.from([(major << 5) | 24, n]);
  if (n < 65536) {
    const b = Buffer.alloc(3);
    b[0] = (major << 5) | 25;
    b.writeUInt16BE(n, 1);
    return b;
  }
  const b = Buffer.alloc(5);
  b[0] = (major << 5) | 26;
  b.writeUInt32BE(n, 1);
  return b;
}

/**
 * A passkey row of a user, as a sign-up with one stores it: an account of provider `passkey` and its
 * authenticator, with a stub public key (for pages that list passkeys; no ceremony can use it).
 */
export async function givePasskey(
  adapter: Required<Pick<Adapter, 'linkAccount' | 'createAuthenticator'>>,
  userId: string,
): Promise<void> {
  const credentialID = `cred-${randomUUID()}`;
  await adapter.linkAccount({ userId, type: 'webauthn', provider: 'passkey', providerAccountId: credentialID });
  await adapter.createAuthenticator({
    userId,
    credentialID,
    providerAccountId: credentialID,
    credentialPublicKey: 'k',
    counter: 0,
    credentialDeviceType: 'multiDevice',
    credentialBackedUp: true,
    transports: null,
  });
}
