import { existsSync } from 'node:fs';
import { startSample } from './sample.js';
import { DEMO_USER, sampleConfigFromEnv } from './sample.config.js';

// `.env` next to package.json, if any (see .env.example); real environment variables win.
if (existsSync('.env')) process.loadEnvFile('.env');

const config = sampleConfigFromEnv();
const sample = await startSample(config);
const { app, idpIssuer, smtpPort } = sample.urls;
console.log(`
  nestjs-auth sample is running at ${app}

  Sign in:            ${app}/auth/signin
  Protected page:     ${app}/private
  Development inbox:  ${app}/dev/inbox   (mail caught on smtp://127.0.0.1:${smtpPort})
  Demo IdP:           ${idpIssuer}
  Demo credentials:   ${DEMO_USER.email} / ${DEMO_USER.password}
  Database:           ${config.database} (SQLite)
${config.secretGenerated ? '\n  AUTH_SECRET is not set: using a random secret, so sessions end when the sample stops.\n' : ''}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void sample.close().finally(() => process.exit(0));
  });
}
