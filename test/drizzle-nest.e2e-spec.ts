import { DrizzleAdapter } from '../lib/drizzle.js';
import { describeAdapterInNestApp } from './setup/adapter-in-nest.js';
import { openDrizzle } from './setup/drizzle-db.js';

// DrizzleAdapter wired as an app does it: the app's own module provides its Drizzle database under
// a token, and AuthModule.forRootAsync builds the adapter from it (`inject: [DRIZZLE]`). The suite
// (credentials, an OpenID Provider, the device list; database and JWT sessions; SQLite and
// PostgreSQL) is the one every first-party ORM adapter runs: test/setup/adapter-in-nest.ts.

const DRIZZLE = Symbol('DRIZZLE');

await describeAdapterInNestApp({
  adapterClass: DrizzleAdapter,
  prefix: 'drizzle',
  async open(test) {
    const drizzle = await openDrizzle(test);
    return {
      providers: [{ provide: DRIZZLE, useValue: drizzle.db }],
      adapter: { inject: [DRIZZLE], useFactory: (db: typeof drizzle.db) => new DrizzleAdapter(db, drizzle.tables) },
      direct: () => new DrizzleAdapter(drizzle.db, drizzle.tables),
      close: () => drizzle.close(),
    };
  },
});
