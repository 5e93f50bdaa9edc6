import type { QueryRunner } from 'typeorm';

/** Children first, so no foreign key stands in the way. */
const TABLES = ['authenticators', 'verification_tokens', 'sessions', 'accounts', 'users'];

/** The `down` of the schema migrations: drops the nestjs-auth tables, quoted as the dialect quotes. */
export async function dropAuthTables(q: QueryRunner, quote: '"' | '`'): Promise<void> {
  for (const table of TABLES) await q.query(`DROP TABLE ${quote}${table}${quote}`);
}
