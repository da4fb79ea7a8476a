import { sql } from 'kysely';
import type { Db } from './connect.ts';

let savepoints = 0;

/**
 * Runs `work` in a transaction of its own, or, when `db` already is one (the demo seed imports,
 * monitors, recommends and reports inside one), in a savepoint of it: a failure still undoes
 * exactly this work, and the caller decides about the rest.
 */
export async function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  if (!db.isTransaction) return db.transaction().execute(work);
  const savepoint = sql.id(`sl_savepoint_${++savepoints}`);
  await sql`savepoint ${savepoint}`.execute(db);
  try {
    const result = await work(db);
    await sql`release savepoint ${savepoint}`.execute(db);
    return result;
  } catch (error) {
    await sql`rollback to savepoint ${savepoint}`.execute(db);
    await sql`release savepoint ${savepoint}`.execute(db);
    throw error;
  }
}
