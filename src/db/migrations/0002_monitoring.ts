import { type Kysely, sql } from 'kysely';
import { columnTypes } from './column-types.ts';

// Monitoring (docs/monitoring.md): each brand's schedule and engines, each organization's monthly
// ask budget and review setting, and the planned asks of every monitoring run: one row per
// (run, prompt, engine, sample), unique, claimed under a lease, so a run survives its worker and
// no ask is made twice. The planned ask also keeps what asking cost (model, time, tokens, price).
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);

  // Off by default: asking engines costs money, so nothing is asked until an operator says so.
  await db.schema
    .alterTable('brands')
    .addColumn('monitoring_cadence', 'text', (c) => c.notNull().defaultTo('off'))
    .execute();
  await db.schema.alterTable('brands').addColumn('monitoring_time', 'text').execute();
  await db.schema
    .alterTable('brands')
    .addColumn('monitoring_engines', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
  await db.schema
    .alterTable('brands')
    .addColumn('monitoring_samples', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  // No brand has a schedule yet, so none has a next run.
  await sql`update brands set next_monitored_run_at = null`.execute(db);

  // Null: no budget.
  await db.schema.alterTable('organizations').addColumn('monthly_ask_budget', 'integer').execute();
  await db.schema
    .alterTable('organizations')
    .addColumn('review_before_publish', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  // `import` or `monitor`; why a run stopped short (the budget), for the operator.
  await db.schema
    .alterTable('runs')
    .addColumn('source', 'text', (c) => c.notNull().defaultTo('import'))
    .execute();
  await db.schema.alterTable('runs').addColumn('status_reason', 'text').execute();
  // One monitoring run in flight per category: a second planner resumes it instead.
  await db.schema
    .createIndex('runs_one_monitoring_run')
    .on('runs')
    .column('category_id')
    .unique()
    .where(sql.ref('source'), '=', 'monitor')
    .where(sql.ref('status'), '=', 'running')
    .execute();

  await t
    .withId(db.schema.createTable('run_asks'))
    .addColumn('org_id', 'bigint', (c) => c.notNull().references('organizations.id'))
    .addColumn('run_id', 'bigint', (c) => c.notNull().references('runs.id'))
    .addColumn('prompt_id', 'bigint', (c) => c.notNull().references('prompts.id'))
    .addColumn('engine', 'text', (c) => c.notNull())
    .addColumn('sample', 'integer', (c) => c.notNull())
    // pending → asking (claimed, under a lease) → done; an expired lease makes it claimable again.
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', t.timestamp)
    .addColumn('asked_at', t.timestamp)
    .addColumn('finished_at', t.timestamp)
    .addColumn('outcome', 'text')
    .addColumn('response_id', 'bigint', (c) => c.references('responses.id'))
    .addColumn('vendor_model', 'text')
    .addColumn('latency_ms', 'integer')
    .addColumn('input_tokens', 'integer')
    .addColumn('output_tokens', 'integer')
    .addColumn('estimated_cost_usd', t.float)
    .addColumn('error', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('run_asks_once', ['run_id', 'prompt_id', 'engine', 'sample'])
    .execute();
  await db.schema.createIndex('run_asks_state').on('run_asks').columns(['run_id', 'state']).execute();

  // Asks claimed per organization and calendar month (in its time zone): the budget's counter,
  // raised by a conditional update so concurrent workers never pass the budget.
  await db.schema
    .createTable('org_ask_usage')
    .addColumn('org_id', 'bigint', (c) => c.notNull().references('organizations.id'))
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('asks', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('org_ask_usage_pk', ['org_id', 'month'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('The monitoring migration is not reversible; restore from a backup instead.');
}
