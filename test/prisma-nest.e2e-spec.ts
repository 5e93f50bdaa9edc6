import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { expect } from '@jest/globals';
import { PrismaAdapter } from '../lib/prisma.js';
import { describeAdapterInNestApp } from './setup/adapter-in-nest.js';
import { openPrisma } from './setup/prisma-db.js';

// PrismaAdapter wired as an app does it: the app's own module provides its PrismaService (a class
// extending the generated PrismaClient, as Nest's Prisma recipe makes it), and
// AuthModule.forRootAsync builds the adapter from it (`inject: [PrismaService]`). The suite
// (credentials, an OpenID Provider, the device list; database and JWT sessions; SQLite and
// PostgreSQL) is the one every first-party ORM adapter runs: test/setup/adapter-in-nest.ts.

let PrismaServiceOf: (new () => unknown) | undefined;

await describeAdapterInNestApp({
  adapterClass: PrismaAdapter,
  prefix: 'prisma',
  async open(test) {
    const prisma = await openPrisma(test);
    const { PrismaClient, driverAdapter } = prisma;

    /** The app's PrismaService (Prisma 7: with a driver adapter). */
    @Injectable()
    class PrismaService extends PrismaClient implements OnModuleDestroy {
      constructor() {
        super({ adapter: driverAdapter() });
      }
      async onModuleDestroy(): Promise<void> {
        await this.$disconnect();
      }
    }
    PrismaServiceOf = PrismaService;

    return {
      providers: [PrismaService],
      adapter: { inject: [PrismaService], useFactory: (client: PrismaService) => new PrismaAdapter(client) },
      direct: () => new PrismaAdapter(prisma.prisma),
      close: () => prisma.close(),
    };
  },
  checkApp(app) {
    // The adapter got the app's own service: a PrismaService with the generated client's models.
    const service = app.get(PrismaServiceOf!, { strict: false }) as { user?: { findFirst?: unknown } };
    expect(service.constructor.name).toBe('PrismaService');
    expect(typeof service.user?.findFirst).toBe('function');
  },
});
