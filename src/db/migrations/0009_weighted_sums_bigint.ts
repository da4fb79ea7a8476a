import { type Kysely, sql } from 'kysely';
import { isPostgres } from './column-types.ts';

// The sums weighted by an answer's sampleCount (1–10,000) outgrow PostgreSQL's 32-bit `integer`
// long before the answers do: 720 answers of one run, each of weight 10,000 and ranked 300, sum
// Σ weight·rank past 2^31, and the refresh failed with "integer out of range" (SQLite's integers
// are 64-bit, so the same file imported there). Made `bigint`, which node-postgres hands back as
// numbers here (postgres/type-parsers.ts), as every id already is. The plain counts (citations,
// domains) stay as they were: their tables are the largest, and counting to 2^31 takes as many rows.
// Each table is rewritten once, under a lock that holds its reads until the commit: on a large
// database, a migration to run when the service may pause (docs/deploy.md).

const OBSERVATIONS = [
  'answers',
  'weight',
  'mentioned_weight',
  'ranked_weight',
  'rank_weighted',
  'positive_weight',
  'neutral_weight',
  'negative_weight',
] as const;
const MENTIONS = ['mentions', 'ranked_weight', 'rank_weighted'] as const;

const COLUMNS: Record<string, readonly string[]> = {
  agg_run_coverage: ['answers', 'weight'],
  agg_block_coverage: ['answers', 'weight'],
  agg_run_observations: OBSERVATIONS,
  agg_block_observations: OBSERVATIONS,
  agg_run_mentions: MENTIONS,
  agg_block_mentions: MENTIONS,
  run_prompt_scores: ['weight_total'],
  recommendation_outcomes: ['baseline_sample_size', 'current_sample_size'],
};

async function retype(db: Kysely<unknown>, type: 'bigint' | 'integer'): Promise<void> {
  for (const [table, columns] of Object.entries(COLUMNS)) {
    const changes = columns.map((column) => sql`alter column ${sql.ref(column)} type ${sql.raw(type)}`);
    await sql`alter table ${sql.table(table)} ${sql.join(changes)}`.execute(db);
  }
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) await retype(db, 'bigint');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) await retype(db, 'integer');
}
