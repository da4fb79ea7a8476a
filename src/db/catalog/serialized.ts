import { sql } from 'kysely';
import type { Db } from '../connect.ts';
import { isPostgres } from '../migrations/column-types.ts';
import { inTransaction } from '../transaction.ts';

// A catalog name is unique by the writers' own check, not by an index (a prompt's text runs to
// 2,000 characters, more than an index entry holds), so two processes adding the same name at
// once must not both pass the check before either writes: one organization's catalog changes run
// one at a time, each check and its write in one transaction. SQLite's write transactions are
// taken in turn already (`begin immediate`); on PostgreSQL a transaction-scoped advisory lock per
// organization does it.
export function inCatalogTransaction<T>(db: Db, orgId: number, work: (trx: Db) => Promise<T>): Promise<T> {
  return inTransaction(db, async (trx) => {
    if (isPostgres(trx))
      await sql`select pg_advisory_xact_lock(hashtextextended(${`sightline:catalog:${orgId}`}, 0))`.execute(
        trx,
      );
    return work(trx);
  });
}
