import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../../src/db/connect.ts';
import type { Database } from '../../src/db/types.ts';

// Every table the demo seed writes, with the key its rows are read in: for counting them and for
// fingerprinting them (demo.test, demo-determinism.test).

export const DEMO_TABLES: Record<string, string[]> = {
  organizations: ['id'],
  users: ['id'],
  memberships: ['org_id', 'user_id'],
  brands: ['id'],
  categories: ['id'],
  prompts: ['id'],
  competitors: ['id'],
  runs: ['id'],
  run_prompts: ['run_id', 'prompt_id'],
  responses: ['id'],
  response_mentions: ['id'],
  response_citations: ['id'],
  run_prompt_scores: ['run_id', 'prompt_id'],
  run_asks: ['id'],
  report_artifacts: ['id'],
  report_files: ['artifact_id', 'kind'],
  recommendations: ['id'],
  recommendation_artifacts: ['id'],
  recommendation_outcomes: ['id'],
};

/** Row count and a SHA-256 over every row of every demo table, in key order. */
export async function fingerprint(db: Db): Promise<Record<string, { rows: number; sha256: string }>> {
  const out: Record<string, { rows: number; sha256: string }> = {};
  for (const [table, order] of Object.entries(DEMO_TABLES)) {
    let query = db.selectFrom(table as keyof Database).selectAll();
    for (const column of order) query = query.orderBy(sql.ref(column));
    const rows = await query.execute();
    const hash = createHash('sha256');
    for (const row of rows) {
      hash.update(
        JSON.stringify(row, (_, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v)),
      );
    }
    out[table] = { rows: rows.length, sha256: hash.digest('hex') };
  }
  return out;
}
