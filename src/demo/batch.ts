// Multi-row inserts in bounded batches: one statement per 500 rows keeps the bound-parameter count
// well under both databases' limits while still writing tens of thousands of rows per second.
import type { Insertable } from 'kysely';
import type { Db } from '../db/connect.ts';
import type { Database } from '../db/types.ts';

const BATCH_ROWS = 500;

export async function insertRows<T extends keyof Database & string>(
  db: Db,
  table: T,
  rows: readonly Insertable<Database[T]>[],
): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH_ROWS) {
    await db
      .insertInto(table)
      .values(rows.slice(i, i + BATCH_ROWS))
      .execute();
  }
}
