import type { Provider } from '@nestjs/common';
import { JwtRevocation } from './jwt-revocation.js';
import { SessionCache } from './session-cache.js';
import { SessionCodec } from './session-codec.js';
import { SessionDevices } from './session-devices.js';
import { SessionIssuer } from './session-issuer.js';
import { SessionList } from './session-list.js';
import { SessionReader } from './session-reader.js';
import { DatabaseSessionStore } from './session-store.js';
import { SessionService } from './session.service.js';

/** The injectables of sessions: the `SessionService` facade and its parts. */
export const SESSION_SERVICES: Provider[] = [
  SessionCodec,
  JwtRevocation,
  SessionCache,
  SessionDevices,
  DatabaseSessionStore,
  SessionReader,
  SessionIssuer,
  SessionList,
  SessionService,
];
