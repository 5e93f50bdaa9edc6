// The Prisma entry of nestjs-auth (`nestjs-auth/prisma`): the adapter and the models of its schema.
// A separate entry so that importing `nestjs-auth` never loads it (it imports nothing of Prisma's:
// the adapter takes the app's own generated client).

/**
 * Prisma storage: `PrismaAdapter` over the app's own generated `PrismaClient` (Prisma 7 with a driver
 * adapter such as `@prisma/adapter-pg`, `@prisma/adapter-mariadb` or `@prisma/adapter-better-sqlite3`),
 * and the models its schema needs for each database, which are @auth/prisma-adapter's models (an app
 * moves from that adapter to this one and keeps its rows) plus the library's own fields and models.
 * Paste the models into your `schema.prisma`, then run `npx prisma migrate dev` and
 * `npx prisma generate`.
 *
 * @example
 * // src/prisma.service.ts
 * @Injectable()
 * export class PrismaService extends PrismaClient implements OnModuleDestroy {
 *   constructor() { super({ adapter: new PrismaPg({ connectionString: process.env.DATABASE_URL! }) }); }
 *   onModuleDestroy() { return this.$disconnect(); }
 * }
 *
 * // src/app.module.ts
 * AuthModule.forRootAsync({
 *   imports: [PrismaModule],
 *   adapter: { inject: [PrismaService], useFactory: (prisma: PrismaService) => new PrismaAdapter(prisma) },
 *   useFactory: () => ({ secret: process.env.AUTH_SECRET!, providers: [...] }),
 * })
 *
 * @module nestjs-auth/prisma
 */

export {
  PrismaAdapter,
  type PrismaAdapterClient,
  type PrismaAdapterModels,
  type PrismaAdapterOptions,
  type PrismaModelDelegate,
} from './adapters/prisma/prisma.adapter.js';
export type { PrismaAdapterPgPool } from './adapters/prisma/prisma-pg-lookup.js';
export { prismaSchemaMysql, prismaSchemaPostgres, prismaSchemaSqlite } from './adapters/prisma/prisma-schema.js';
