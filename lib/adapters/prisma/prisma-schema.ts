// The models `PrismaAdapter` reads and writes, as schema.prisma text for each database: the models of
// @auth/prisma-adapter's documentation (same model, field and table names: an app moving from that
// adapter keeps its rows) with the library's columns added, and the library's own models, mapped to
// the tables and columns of the TypeORM and Drizzle adapters (`two_factors`, `refresh_token_families`,
// `api_keys`, `signing_keys`).

/** The databases the schema fragments are written for. */
type PrismaProvider = 'postgresql' | 'mysql' | 'sqlite';

/**
 * The models for one provider. `db(pg, mysql)` is a native type attribute: PostgreSQL's, MySQL's,
 * none on SQLite (which has no native types for these fields).
 */
function authModels(provider: PrismaProvider): string {
  const db = (pg: string, mysql: string = pg): string =>
    provider === 'sqlite' ? '' : ` @db.${provider === 'postgresql' ? pg : mysql}`;
  // MySQL's `String` is VARCHAR(191): the token columns and a public key can be longer.
  const long = provider === 'mysql' ? ' @db.Text' : '';
  return `// nestjs-auth: the models of @auth/prisma-adapter, with the library's columns (marked +).
model User {
  id                   String               @id @default(cuid())
  name                 String?
  email                String               @unique
  emailVerified        DateTime?
  image                String?
  accounts             Account[]
  sessions             Session[]
  Authenticator        Authenticator[]
  twoFactors           TwoFactor[]          // +
  refreshTokenFamilies RefreshTokenFamily[] // +
  apiKeys              ApiKey[]             // +
}

model Account {
  userId            String
  type              String
  provider          String
  providerAccountId String
  refresh_token     String?${long}
  access_token      String?${long}
  expires_at        Int?
  token_type        String?
  scope             String?
  id_token          String?${long}
  session_state     String?
  user              User    @relation(fields: [userId], references: [id], onDelete: Cascade)

  @@id([provider, providerAccountId])
}

model Session {
  sessionToken String    @unique
  userId       String
  expires      DateTime
  createdAt    DateTime? // +
  lastSeenAt   DateTime? // +
  userAgent    String?${db('VarChar(255)')} // +
  ip           String?${db('VarChar(64)')} // +
  providerSid  String?${db('VarChar(255)')} // +
  amr          String?${db('VarChar(255)')} // +
  user         User      @relation(fields: [userId], references: [id], onDelete: Cascade)

  @@index([providerSid]) // +
}

model VerificationToken {
  identifier String
  token      String
  expires    DateTime

  @@id([identifier, token])
}

model Authenticator {
  credentialID         String    @unique
  userId               String
  providerAccountId    String
  credentialPublicKey  String${long}
  counter              Int
  credentialDeviceType String
  credentialBackedUp   Boolean
  transports           String?
  name                 String?${db('VarChar(255)')} // +
  lastUsedAt           DateTime? // +
  user                 User      @relation(fields: [userId], references: [id], onDelete: Cascade)

  @@id([userId, credentialID])
}

// nestjs-auth: the library's own models (two-factor, native apps, API keys, signing keys).
model TwoFactor {
  id           String    @id${db('VarChar(255)')}
  userId       String
  type         String${db('VarChar(32)')}
  name         String?${db('VarChar(255)')}
  secret       String${db('Text')}
  confirmedAt  DateTime?
  createdAt    DateTime
  lastUsedAt   DateTime?
  lastUsedStep BigInt?
  user         User      @relation(fields: [userId], references: [id], onDelete: Cascade)

  @@index([userId])
  @@map("two_factors")
}

model RefreshTokenFamily {
  id        String   @id${db('VarChar(64)')}
  userId    String
  clientId  String${db('VarChar(255)')}
  generation Int
  tokenHash String${db('VarChar(64)')}
  rotatedAt DateTime
  expires   DateTime
  authTime  DateTime
  amr       String?${db('VarChar(255)')}
  user      User     @relation(fields: [userId], references: [id], onDelete: Cascade)

  @@index([userId])
  @@map("refresh_token_families")
}

model ApiKey {
  id         String    @id${db('VarChar(32)')}
  userId     String
  name       String${db('VarChar(100)')}
  keyHash    String${db('VarChar(64)')}
  hint       String${db('VarChar(8)')}
  scopes     String?${db('VarChar(1000)')}
  createdAt  DateTime
  expires    DateTime?
  lastUsedAt DateTime?
  user       User      @relation(fields: [userId], references: [id], onDelete: Cascade)

  @@index([userId])
  @@map("api_keys")
}

model SigningKey {
  id          String    @id${db('VarChar(64)')}
  alg         String${db('VarChar(16)')}
  publicJwk   String${db('Text')}
  privateKey  String${db('Text')}
  slot        BigInt    @unique
  createdAt   DateTime
  activatesAt DateTime
  removesAt   DateTime?

  @@map("signing_keys")
}
`;
}

/**
 * The models `PrismaAdapter` uses, for PostgreSQL: paste them into your `schema.prisma` (next to
 * your `generator` and `datasource` blocks), then `npx prisma migrate dev` and `npx prisma generate`.
 * The first five are @auth/prisma-adapter's models with the library's columns added (marked `+`);
 * the last four are optional (leave one out and the adapter has none of its methods).
 */
export const prismaSchemaPostgres: string = authModels('postgresql');

/**
 * The models `PrismaAdapter` uses, for MySQL 8 and MariaDB (as {@link prismaSchemaPostgres}).
 * Create the database with a binary collation (`utf8mb4_bin`): keys then compare byte for byte, as
 * they do on PostgreSQL and SQLite.
 */
export const prismaSchemaMysql: string = authModels('mysql');

/** The models `PrismaAdapter` uses, for SQLite (as {@link prismaSchemaPostgres}). */
export const prismaSchemaSqlite: string = authModels('sqlite');
