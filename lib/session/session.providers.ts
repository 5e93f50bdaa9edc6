import type { Provider } from '@nestjs/common';
import { AccessTokens } from './access-tokens.js';
import { ApiKeyReader } from './api-keys.js';
import { SigningKeys } from './signing-keys.js';
import { JwtRevocation } from './jwt-revocation.js';
import { RevocationBroadcast } from './revocation-broadcast.js';
import { SessionCache } from './session-cache.js';
import { SessionCodec } from './session-codec.js';
import { SessionDevices } from './session-devices.js';
import { SessionIssuer } from './session-issuer.js';
import { SessionList } from './session-list.js';
import { SessionReader } from './session-reader.js';
import { DatabaseSessionStore } from './session-store.js';

/** The injectables of sessions, each a part its callers inject directly. */
export const SESSION_SERVICES: Provider[] = [
  SessionCodec,
  RevocationBroadcast,
  JwtRevocation,
  SigningKeys,
  AccessTokens,
  ApiKeyReader,
  SessionCache,
  SessionDevices,
  DatabaseSessionStore,
  SessionReader,
  SessionIssuer,
  SessionList,
];
