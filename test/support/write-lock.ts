import { DatabaseSync } from 'node:sqlite';
import { sql } from 'kysely';
import type { TestContext } from './context.ts';

/**
 * Runs `work` while another connection holds what a long import would: SQLite's write lock, or,
 * on PostgreSQL, the answers' table (an import's own row locks are held as long, on the rows it
 * shares with other writers).
 */
export async function holdingWrites(ctx: TestContext, work: () => Promise<void>): Promise<void> {
  const url = ctx.config.databaseUrl;
  if (url.startsWith('sqlite:')) {
    const writer = new DatabaseSync(url.slice('sqlite:'.length));
    writer.exec('begin immediate');
    try {
      await work();
    } finally {
      writer.exec('rollback');
      writer.close();
    }
    return;
  }
  await ctx.dbs.primary.transaction().execute(async (trx) => {
    await sql`lock table responses, recommendation_artifacts in share row exclusive mode`.execute(trx);
    await work();
  });
}
