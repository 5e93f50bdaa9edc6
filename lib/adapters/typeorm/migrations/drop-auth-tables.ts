import type { QueryRunner } from 'typeorm';

/** Children first, so no foreign key stands in the way. */
const TABLES = ['authenticators', 'verification_tokens', 'sessions', 'accounts', 'users'];

/**
 * Tables of later migrations (all but `signing_keys` reference `users`): dropped first when they
 * exist (their own migration's `down` has dropped them already when the migrations are reverted in
 * order).
 */
const LATER_TABLES = ['signing_keys', 'api_keys', 'refresh_token_families', 'two_factors'];

/** The `down` of the schema migrations: drops the nestjs-auth tables, quoted as the dialect quotes. */
export async function dropAuthTables(q: QueryRunner, quote: '"' | '`'): Promise<void> {
  for (const table of LATER_TABLES) await q.query(`DROP TABLE IF EXISTS ${quote}${table}${quote}`);
  for (const table of TABLES) await q.query(`DROP TABLE ${quote}${table}${quote}`);
}
