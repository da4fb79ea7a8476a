// PostgreSQL plans a query from its table statistics, which autovacuum gathers only after a write
// has committed and enough rows changed. A transaction that reads what it has just written in
// bulk (the demo seed generates recommendations and reports from the history it imported) would
// otherwise be planned as if the tables were empty: nested loops over thousands of rows, ten times
// slower. ANALYZE inside the transaction counts the transaction's own new rows. SQLite plans from
// its indexes without statistics, and the read-plans test holds it to those plans.
import { sql } from 'kysely';
import type { Db } from './connect.ts';
import { isPostgres } from './migrations/column-types.ts';

export async function refreshPlannerStatistics(db: Db): Promise<void> {
  if (isPostgres(db)) await sql`analyze`.execute(db);
}
