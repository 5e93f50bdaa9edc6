import { totpCode } from '../../lib/methods/two-factor/totp.js';

const PERIOD_MS = 30_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An authenticator app as a browser test holds it: its secret and the last time step it used. */
export interface TotpFactor {
  secret: string;
  lastStep: number;
}

/**
 * A code of the app's next unused time step that the server accepts now (current step ±1): each
 * step works once per user, so the test keeps the last one used, and waits for the next period when
 * the window has none left. Never within 4 s of a step's end (typing in a busy browser takes time):
 * the step the code was made for is still in the window when the server checks it.
 */
export async function nextCode(f: TotpFactor): Promise<string> {
  for (;;) {
    const left = PERIOD_MS - (Date.now() % PERIOD_MS);
    if (left < 4000) await sleep(left + 50);
    const now = Math.floor(Date.now() / PERIOD_MS);
    const step = Math.max(now - 1, f.lastStep + 1);
    if (step <= now + 1) {
      f.lastStep = step;
      return totpCode(f.secret, { now: step * PERIOD_MS + 1000 });
    }
    await sleep(PERIOD_MS - (Date.now() % PERIOD_MS) + 50);
  }
}
