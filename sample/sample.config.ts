import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';

/** Everything the sample reads from the environment (`.env.example` lists each variable). */
export interface SampleConfig {
  /** The app's port (PORT). 0 picks a free port. @default 3000 */
  port: number;
  /** Port of the demo OpenID Provider (SAMPLE_IDP_PORT). 0 picks a free port. @default 3001 */
  idpPort: number;
  /** Port of the SMTP catcher (SAMPLE_SMTP_PORT). 0 picks a free port. @default 2525 */
  smtpPort: number;
  /** The SQLite file (SAMPLE_DB). @default 'sample/sample.db' */
  database: string;
  /** AUTH_SECRET; a random one per start when absent (sessions then end with the process). */
  secret: string;
  secretGenerated: boolean;
  /** AUTH_SESSION_STRATEGY. @default 'database' */
  sessionStrategy: 'database' | 'jwt';
  /** Client of the demo IdP (SAMPLE_IDP_CLIENT_ID / SAMPLE_IDP_CLIENT_SECRET). */
  idpClientId: string;
  idpClientSecret: string;
  /** Shown when AUTH_GITHUB_ID and AUTH_GITHUB_SECRET are set. */
  github: boolean;
  /** Shown when AUTH_GOOGLE_ID and AUTH_GOOGLE_SECRET are set. */
  google: boolean;
  /** The HTTP platform (SAMPLE_PLATFORM: `express` or `fastify`). @default 'express' */
  platform: 'express' | 'fastify';
}

/** The sample's seeded credentials user (also printed at start and shown on the home page). */
export const DEMO_USER = { email: 'demo@example.com', password: 'demo-password', name: 'Demo User' } as const;

/** Reads the configuration from `env` (default: `process.env`). */
export function sampleConfigFromEnv(env: NodeJS.ProcessEnv = process.env): SampleConfig {
  const secret = env.AUTH_SECRET?.trim();
  return {
    port: port(env.PORT, 3000, 'PORT'),
    idpPort: port(env.SAMPLE_IDP_PORT, 3001, 'SAMPLE_IDP_PORT'),
    smtpPort: port(env.SAMPLE_SMTP_PORT, 2525, 'SAMPLE_SMTP_PORT'),
    database: env.SAMPLE_DB?.trim() || 'sample/sample.db',
    secret: secret || randomBytes(32).toString('base64url'),
    secretGenerated: !secret,
    sessionStrategy: env.AUTH_SESSION_STRATEGY === 'jwt' ? 'jwt' : 'database',
    idpClientId: env.SAMPLE_IDP_CLIENT_ID?.trim() || 'nestjs-auth-sample',
    idpClientSecret: env.SAMPLE_IDP_CLIENT_SECRET?.trim() || 'sample-client-secret-not-for-production',
    github: Boolean(env.AUTH_GITHUB_ID && env.AUTH_GITHUB_SECRET),
    google: Boolean(env.AUTH_GOOGLE_ID && env.AUTH_GOOGLE_SECRET),
    platform: platform(env.SAMPLE_PLATFORM),
  };
}

function platform(value: string | undefined): 'express' | 'fastify' {
  const name = value?.trim() || 'express';
  if (name !== 'express' && name !== 'fastify')
    throw new Error(`SAMPLE_PLATFORM must be express or fastify, got ${JSON.stringify(value)}.`);
  return name;
}

function port(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value.trim() === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new Error(`${name} must be a port number (0-65535), got ${JSON.stringify(value)}.`);
  return n;
}

/**
 * A free port on 127.0.0.1. The app's port must be known before it listens: the demo IdP
 * registers the sample's callback URL, which contains it.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
