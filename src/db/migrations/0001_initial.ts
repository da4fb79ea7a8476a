import type { CreateTableBuilder, Kysely } from 'kysely';
import { columnTypes } from './column-types.ts';

// Every table carries org_id, and every index used by the API leads with it: queries are scoped by
// organization, and the schema can be distributed by organization later without reshaping it.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);

  await t
    .withId(db.schema.createTable('organizations'))
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('api_access', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('timezone', 'text', (c) => c.notNull().defaultTo('UTC'))
    .addColumn('free_report_used', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();

  await t
    .withId(db.schema.createTable('users'))
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('memberships')
    .addColumn('org_id', 'bigint', (c) => c.notNull().references('organizations.id'))
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('memberships_pk', ['org_id', 'user_id'])
    .execute();

  await t
    .withId(db.schema.createTable('api_keys'))
    .addColumn('org_id', 'bigint', (c) => c.notNull().references('organizations.id'))
    .addColumn('key_id', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_by_user_id', 'bigint', (c) => c.references('users.id'))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('last_used_at', t.timestamp)
    .addColumn('expires_at', t.timestamp)
    .addColumn('revoked_at', t.timestamp)
    .execute();
  await db.schema.createIndex('api_keys_org').on('api_keys').columns(['org_id']).execute();

  await t
    .withId(db.schema.createTable('brands'))
    .addColumn('org_id', 'bigint', (c) => c.notNull().references('organizations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('website', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('aliases', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('is_demo', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('merged_into_brand_id', 'bigint', (c) => c.references('brands.id'))
    .addColumn('merged_at', t.timestamp)
    .addColumn('executive_summary', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('executive_summary_updated_at', t.timestamp)
    .addColumn('monitoring_interval_hours', 'integer', (c) => c.notNull().defaultTo(24))
    .addColumn('next_monitored_run_at', t.timestamp)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addColumn('external_key', 'text')
    .execute();
  await db.schema.createIndex('brands_org').on('brands').columns(['org_id', 'status']).execute();
  await db.schema
    .createIndex('brands_external_key')
    .on('brands')
    .columns(['org_id', 'external_key'])
    .unique()
    .execute();

  await t
    .withId(db.schema.createTable('categories'))
    .addColumn('org_id', 'bigint', (c) => c.notNull().references('organizations.id'))
    .addColumn('brand_id', 'bigint', (c) => c.notNull().references('brands.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('is_archived', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('external_key', 'text')
    .execute();
  await db.schema.createIndex('categories_brand').on('categories').columns(['org_id', 'brand_id']).execute();
  await db.schema
    .createIndex('categories_external_key')
    .on('categories')
    .columns(['org_id', 'external_key'])
    .unique()
    .execute();

  await t
    .withId(db.schema.createTable('prompts'))
    .addColumn('org_id', 'bigint', (c) => c.notNull().references('organizations.id'))
    .addColumn('brand_id', 'bigint', (c) => c.notNull().references('brands.id'))
    .addColumn('category_id', 'bigint', (c) => c.notNull().references('categories.id'))
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('external_key', 'text')
    .addColumn('is_monitored', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('is_archived', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('prompts_category').on('prompts').columns(['org_id', 'category_id']).execute();
  await db.schema.createIndex('prompts_brand').on('prompts').columns(['org_id', 'brand_id']).execute();
  await db.schema
    .createIndex('prompts_external_key')
    .on('prompts')
    .columns(['org_id', 'external_key'])
    .unique()
    .execute();

  await t
    .withId(db.schema.createTable('competitors'))
    .addColumn('org_id', 'bigint', (c) => c.notNull().references('organizations.id'))
    .addColumn('brand_id', 'bigint', (c) => c.notNull().references('brands.id'))
    .addColumn('category_id', 'bigint', (c) => c.notNull().references('categories.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('canonical_key', 'text', (c) => c.notNull())
    .addColumn('canonical_name', 'text', (c) => c.notNull())
    .addColumn('aliases', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('competitors_category_key', ['category_id', 'canonical_key'])
    .execute();
  await db.schema
    .createIndex('competitors_org')
    .on('competitors')
    .columns(['org_id', 'category_id'])
    .execute();

  // Names the analyzer found ranked in answers that are not tracked competitors yet: suggestions
  // for `sightline competitors add`, counted per category over imported answers.
  await db.schema
    .createTable('competitor_candidates')
    .addColumn('org_id', 'bigint', (c) => c.notNull().references('organizations.id'))
    .addColumn('brand_id', 'bigint', (c) => c.notNull().references('brands.id'))
    .addColumn('category_id', 'bigint', (c) => c.notNull().references('categories.id'))
    .addColumn('canonical_key', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('answers', 'integer', (c) => c.notNull())
    .addColumn('first_seen_at', t.timestamp, (c) => c.notNull())
    .addColumn('last_seen_at', t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('competitor_candidates_pk', ['category_id', 'canonical_key'])
    .execute();
  await db.schema
    .createIndex('competitor_candidates_org')
    .on('competitor_candidates')
    .columns(['org_id', 'category_id'])
    .execute();

  await t
    .withId(db.schema.createTable('runs'))
    .addColumn('org_id', 'bigint', (c) => c.notNull().references('organizations.id'))
    .addColumn('brand_id', 'bigint', (c) => c.notNull().references('brands.id'))
    .addColumn('category_id', 'bigint', (c) => c.notNull().references('categories.id'))
    .addColumn('external_id', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('methodology', 'text', (c) => c.notNull().defaultTo('sample_v1'))
    .addColumn('is_legacy', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('published_at', t.timestamp)
    .addColumn('started_at', t.timestamp)
    .addColumn('finished_at', t.timestamp)
    .addColumn('completed_prompts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('total_prompts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('runs_brand')
    .on('runs')
    .columns(['org_id', 'brand_id', 'finished_at'])
    .execute();
  await db.schema
    .createIndex('runs_category')
    .on('runs')
    .columns(['org_id', 'category_id', 'finished_at'])
    .execute();
  await db.schema
    .createIndex('runs_external_id')
    .on('runs')
    .columns(['org_id', 'external_id'])
    .unique()
    .execute();

  await db.schema
    .createTable('run_prompts')
    .addColumn('org_id', 'bigint', (c) => c.notNull().references('organizations.id'))
    .addColumn('run_id', 'bigint', (c) => c.notNull().references('runs.id'))
    .addColumn('prompt_id', 'bigint', (c) => c.notNull().references('prompts.id'))
    .addPrimaryKeyConstraint('run_prompts_pk', ['run_id', 'prompt_id'])
    .execute();

  await t
    .withId(db.schema.createTable('responses'))
    .addColumn('org_id', 'bigint', (c) => c.notNull().references('organizations.id'))
    .addColumn('brand_id', 'bigint', (c) => c.notNull().references('brands.id'))
    .addColumn('category_id', 'bigint', (c) => c.notNull().references('categories.id'))
    .addColumn('run_id', 'bigint', (c) => c.notNull().references('runs.id'))
    .addColumn('prompt_id', 'bigint', (c) => c.notNull().references('prompts.id'))
    .addColumn('external_key', 'text')
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('model_label', 'text', (c) => c.notNull())
    .addColumn('surface', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('methodology', 'text', (c) => c.notNull())
    .addColumn('has_mention_data', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('sample_count', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('mentioned', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('rank', 'integer')
    .addColumn('sentiment', 'text')
    .addColumn('answer_text', 'text')
    .addColumn('answer_html', 'text')
    .addColumn('text_length', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('captured_at', t.timestamp, (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('responses_run').on('responses').columns(['org_id', 'run_id', 'id']).execute();
  await db.schema
    .createIndex('responses_prompt')
    .on('responses')
    .columns(['org_id', 'prompt_id', 'captured_at'])
    .execute();
  await db.schema
    .createIndex('responses_external_key')
    .on('responses')
    .columns(['org_id', 'external_key'])
    .unique()
    .execute();

  await t
    .withId(db.schema.createTable('response_mentions'))
    .addColumn('org_id', 'bigint', (c) => c.notNull().references('organizations.id'))
    .addColumn('run_id', 'bigint', (c) => c.notNull().references('runs.id'))
    .addColumn('response_id', 'bigint', (c) => c.notNull().references('responses.id'))
    .addColumn('competitor_id', 'bigint', (c) => c.references('competitors.id'))
    .addColumn('is_brand', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('rank', 'integer')
    .execute();
  await db.schema
    .createIndex('response_mentions_run')
    .on('response_mentions')
    .columns(['org_id', 'run_id'])
    .execute();
  await db.schema
    .createIndex('response_mentions_response')
    .on('response_mentions')
    .columns(['response_id'])
    .execute();

  await t
    .withId(db.schema.createTable('response_citations'))
    .addColumn('org_id', 'bigint', (c) => c.notNull().references('organizations.id'))
    .addColumn('run_id', 'bigint', (c) => c.notNull().references('runs.id'))
    .addColumn('response_id', 'bigint', (c) => c.notNull().references('responses.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('response_citations_run')
    .on('response_citations')
    .columns(['org_id', 'run_id'])
    .execute();
  await db.schema
    .createIndex('response_citations_response')
    .on('response_citations')
    .columns(['response_id', 'position'])
    .execute();

  await db.schema
    .createTable('run_prompt_scores')
    .addColumn('org_id', 'bigint', (c) => c.notNull().references('organizations.id'))
    .addColumn('brand_id', 'bigint', (c) => c.notNull().references('brands.id'))
    .addColumn('category_id', 'bigint', (c) => c.notNull().references('categories.id'))
    .addColumn('run_id', 'bigint', (c) => c.notNull().references('runs.id'))
    .addColumn('prompt_id', 'bigint', (c) => c.notNull().references('prompts.id'))
    .addColumn('methodology', 'text', (c) => c.notNull())
    .addColumn('scored_at', t.timestamp, (c) => c.notNull())
    .addColumn('score', t.float, (c) => c.notNull())
    .addColumn('weight_total', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('run_prompt_scores_pk', ['run_id', 'prompt_id'])
    .execute();
  await db.schema
    .createIndex('run_prompt_scores_brand')
    .on('run_prompt_scores')
    .columns(['org_id', 'brand_id', 'prompt_id', 'scored_at', 'run_id'])
    .execute();

  await t
    .withId(db.schema.createTable('report_artifacts'))
    .addColumn('org_id', 'bigint', (c) => c.notNull().references('organizations.id'))
    .addColumn('brand_id', 'bigint', (c) => c.notNull().references('brands.id'))
    .addColumn('category_id', 'bigint', (c) => c.references('categories.id'))
    .addColumn('report_type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('completed_at', t.timestamp)
    .addColumn('error_message', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('agent_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('agent_version', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('cost_usd', 'text', (c) => c.notNull().defaultTo('0.00'))
    .addColumn('kg_generation_job', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('evidence_refs_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_branded', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('aborted_reason', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('generated_by_user_id', 'bigint', (c) => c.references('users.id'))
    .execute();
  await db.schema
    .createIndex('report_artifacts_brand')
    .on('report_artifacts')
    .columns(['org_id', 'brand_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('report_files')
    .addColumn('org_id', 'bigint', (c) => c.notNull().references('organizations.id'))
    .addColumn('artifact_id', 'bigint', (c) => c.notNull().references('report_artifacts.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('byte_length', 'integer', (c) => c.notNull())
    .addColumn('content', t.blob, (c) => c.notNull())
    .addPrimaryKeyConstraint('report_files_pk', ['artifact_id', 'kind'])
    .execute();

  await db.schema
    .createTable('recommendations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'bigint', (c) => c.notNull().references('organizations.id'))
    .addColumn('brand_id', 'bigint', (c) => c.notNull().references('brands.id'))
    .addColumn('category_id', 'bigint', (c) => c.references('categories.id'))
    .addColumn('rec_type', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('priority', 'text', (c) => c.notNull())
    .addColumn('score', t.float, (c) => c.notNull())
    .addColumn('why', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('suggested_action', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('expected_impact', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('measurement_plan', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('impact', t.float, (c) => c.notNull().defaultTo(0))
    .addColumn('effort', t.float, (c) => c.notNull().defaultTo(0))
    .addColumn('confidence', t.float, (c) => c.notNull().defaultTo(0))
    .addColumn('started_at', t.timestamp)
    .addColumn('implemented_at', t.timestamp)
    .addColumn('dismissed_at', t.timestamp)
    .addColumn('superseded_at', t.timestamp)
    .addColumn('dismissed_reason', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('deleted_at', t.timestamp)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('recommendations_brand')
    .on('recommendations')
    .columns(['org_id', 'brand_id'])
    .execute();

  await db.schema
    .createTable('recommendation_artifacts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'bigint', (c) => c.notNull().references('organizations.id'))
    .addColumn('recommendation_id', 'text', (c) => c.notNull().references('recommendations.id'))
    .addColumn('artifact_type', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('target_url', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('generated_by_model', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('generation_prompt_version', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('published_at', t.timestamp)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('recommendation_artifacts_rec')
    .on('recommendation_artifacts')
    .columns(['org_id', 'recommendation_id'])
    .execute();

  await db.schema
    .createTable('recommendation_outcomes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'bigint', (c) => c.notNull().references('organizations.id'))
    .addColumn('recommendation_id', 'text', (c) => c.notNull().references('recommendations.id'))
    .addColumn('metric_name', 'text', (c) => c.notNull())
    .addColumn('metric_subject', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('baseline_value', t.float, (c) => c.notNull())
    .addColumn('current_value', t.float, (c) => c.notNull())
    .addColumn('baseline_at', t.timestamp, (c) => c.notNull())
    .addColumn('measured_at', t.timestamp, (c) => c.notNull())
    .addColumn('measurement_window_days', 'integer', (c) => c.notNull())
    .addColumn('attribution_confidence', 'text', (c) => c.notNull())
    .addColumn('is_measured', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('notes', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema
    .createIndex('recommendation_outcomes_rec')
    .on('recommendation_outcomes')
    .columns(['org_id', 'recommendation_id'])
    .execute();

  await createAnalyticsAggregates(db);
}

/**
 * Analytics aggregates (docs/performance.md), derived from responses and rebuilt from them by
 * refreshRunAggregates, so they carry no foreign keys. Each kind exists at two grains: per visible
 * run (`agg_run_*`, dated by the run's finish) and per aligned block of UTC days (`agg_block_*`,
 * the sum of the runs finishing in it). Rows are keyed by prompt and methodology, so prompt
 * eligibility and the legacy rule still apply at read time; prompt_id 0 rows hold category totals.
 */
async function createAnalyticsAggregates(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  type Table = CreateTableBuilder<string, never>;
  const kinds: Record<string, (table: Table) => Table> = {
    coverage: (table) =>
      table
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('has_mention_data', 'integer', (c) => c.notNull())
        .addColumn('answers', 'integer', (c) => c.notNull())
        .addColumn('weight', 'integer', (c) => c.notNull()),
    observations: (table) =>
      table
        .addColumn('model', 'text', (c) => c.notNull())
        .addColumn('model_label', 'text', (c) => c.notNull())
        .addColumn('surface', 'text', (c) => c.notNull())
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('has_mention_data', 'integer', (c) => c.notNull())
        .addColumn('answers', 'integer', (c) => c.notNull())
        .addColumn('weight', 'integer', (c) => c.notNull())
        .addColumn('mentioned_weight', 'integer', (c) => c.notNull())
        .addColumn('ranked_weight', 'integer', (c) => c.notNull())
        .addColumn('rank_weighted', 'integer', (c) => c.notNull())
        .addColumn('value_weighted', t.float, (c) => c.notNull())
        .addColumn('positive_weight', 'integer', (c) => c.notNull())
        .addColumn('neutral_weight', 'integer', (c) => c.notNull())
        .addColumn('negative_weight', 'integer', (c) => c.notNull()),
    mentions: (table) =>
      table
        .addColumn('competitor_id', 'bigint', (c) => c.notNull())
        .addColumn('mentions', 'integer', (c) => c.notNull())
        .addColumn('ranked_weight', 'integer', (c) => c.notNull())
        .addColumn('rank_weighted', 'integer', (c) => c.notNull())
        .addColumn('value_weighted', t.float, (c) => c.notNull()),
    mention_domains: (table) =>
      table
        .addColumn('competitor_id', 'bigint')
        .addColumn('domain', 'text', (c) => c.notNull())
        .addColumn('citations', 'integer', (c) => c.notNull()),
    citations: (table) =>
      table
        .addColumn('domain', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('citations', 'integer', (c) => c.notNull()),
  };
  for (const [kind, measures] of Object.entries(kinds)) {
    for (const grain of ['run', 'block'] as const) {
      const name = `agg_${grain}_${kind}`;
      const keyed = db.schema
        .createTable(name)
        .addColumn('org_id', 'bigint', (c) => c.notNull())
        .addColumn('brand_id', 'bigint', (c) => c.notNull())
        .addColumn('category_id', 'bigint', (c) => c.notNull())
        .addColumn('prompt_id', 'bigint', (c) => c.notNull())
        .addColumn('methodology', 'text', (c) => c.notNull());
      const dated =
        grain === 'run'
          ? keyed
              .addColumn('run_id', 'bigint', (c) => c.notNull())
              .addColumn('finished_at', t.timestamp, (c) => c.notNull())
              .addColumn('day', 'integer', (c) => c.notNull())
          : keyed.addColumn('block', 'bigint', (c) => c.notNull());
      await measures(dated).execute();
      // Prompt before time: readers seek to the category totals (prompt 0) or to a few prompts.
      if (grain === 'run') {
        await db.schema.createIndex(`${name}_run`).on(name).columns(['org_id', 'run_id']).execute();
        await db.schema
          .createIndex(`${name}_time`)
          .on(name)
          .columns(['org_id', 'category_id', 'prompt_id', 'finished_at'])
          .execute();
      } else {
        await db.schema
          .createIndex(`${name}_block`)
          .on(name)
          .columns(['org_id', 'category_id', 'prompt_id', 'block'])
          .execute();
      }
    }
  }
  // The first observation of each prompt per methodology: one index seek per prompt.
  await db.schema
    .createIndex('agg_run_coverage_first')
    .on('agg_run_coverage')
    .columns(['org_id', 'prompt_id', 'methodology', 'finished_at'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('The initial migration is not reversible; restore from a backup instead.');
}
