import type { Insertable } from 'kysely';
import { refreshRunAggregates } from '../../src/analytics/refresh.ts';
import type { Db } from '../../src/db/connect.ts';
import type { BrandsTable, RunsTable } from '../../src/db/types.ts';

// Tiny hand-built monitoring data for the brand, category and prompt endpoints: rows are inserted
// directly so every expected figure can be worked out by hand from what a test wrote.

export interface Tenant {
  db: Db;
  orgId: number;
}

export interface CategoryIds {
  id: number;
  brandId: number;
}

const CREATED = '2026-01-01T00:00:00.000Z';

/** A full brands row with neutral defaults; `values` override any column. */
export function brandRow(
  orgId: number,
  values: Partial<Insertable<BrandsTable>> = {},
): Insertable<BrandsTable> {
  return {
    org_id: orgId,
    name: 'Brand',
    website: '',
    aliases: '[]',
    status: 'active',
    is_demo: 0,
    executive_summary: '',
    monitoring_interval_hours: 24,
    created_at: CREATED,
    updated_at: CREATED,
    ...values,
  };
}

export async function addBrand(t: Tenant, values: Partial<Insertable<BrandsTable>> = {}): Promise<number> {
  const row = await t.db
    .insertInto('brands')
    .values(brandRow(t.orgId, values))
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function addCategory(
  t: Tenant,
  brandId: number,
  values: { name?: string; description?: string; archived?: boolean; createdAt?: string } = {},
): Promise<CategoryIds> {
  const row = await t.db
    .insertInto('categories')
    .values({
      org_id: t.orgId,
      brand_id: brandId,
      name: values.name ?? 'Category',
      description: values.description ?? '',
      is_archived: values.archived ? 1 : 0,
      created_at: values.createdAt ?? CREATED,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: row.id, brandId };
}

export async function addPrompt(
  t: Tenant,
  category: CategoryIds,
  values: { text?: string; monitored?: boolean; archived?: boolean } = {},
): Promise<number> {
  const row = await t.db
    .insertInto('prompts')
    .values({
      org_id: t.orgId,
      brand_id: category.brandId,
      category_id: category.id,
      text: values.text ?? 'Which tool is best?',
      is_monitored: values.monitored === false ? 0 : 1,
      is_archived: values.archived ? 1 : 0,
      created_at: CREATED,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function addRun(
  t: Tenant,
  category: CategoryIds,
  values: Partial<Omit<Insertable<RunsTable>, 'org_id' | 'brand_id' | 'category_id'>>,
): Promise<number> {
  const row = await t.db
    .insertInto('runs')
    .values({
      org_id: t.orgId,
      brand_id: category.brandId,
      category_id: category.id,
      status: 'completed',
      methodology: 'sample_v1',
      is_legacy: 0,
      completed_prompts: 0,
      total_prompts: 0,
      created_at: values.finished_at ?? CREATED,
      ...values,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** One response row: an answer of one model to one prompt. */
export interface Answer {
  promptId: number;
  mentioned: boolean;
  rank?: number;
  /** sampleCount; 1 by default. */
  weight?: number;
  outcome?: 'ok' | 'error' | 'empty' | 'no_result';
}

/**
 * A completed run of a category with its answers, and its stored prompt scores refreshed. Runs
 * are published at their finish unless `visibility` says otherwise.
 */
export async function addScoredRun(
  t: Tenant,
  category: CategoryIds,
  finishedAt: string,
  answers: readonly Answer[],
  visibility: 'published' | 'legacy' | 'unpublished' = 'published',
): Promise<number> {
  const runId = await addRun(t, category, {
    finished_at: finishedAt,
    started_at: finishedAt,
    published_at: visibility === 'published' ? finishedAt : null,
    is_legacy: visibility === 'legacy' ? 1 : 0,
    methodology: visibility === 'legacy' ? 'legacy' : 'sample_v1',
  });
  await t.db
    .insertInto('responses')
    .values(
      answers.map((a, i) => ({
        org_id: t.orgId,
        brand_id: category.brandId,
        category_id: category.id,
        run_id: runId,
        prompt_id: a.promptId,
        model: `model-${i}`,
        model_label: `Model ${i}`,
        surface: 'api',
        outcome: a.outcome ?? 'ok',
        methodology: visibility === 'legacy' ? 'legacy' : 'sample_v1',
        has_mention_data: 1,
        text_length: 0,
        sample_count: a.weight ?? 1,
        mentioned: a.mentioned ? 1 : 0,
        rank: a.rank ?? null,
        sentiment: a.mentioned ? 'neutral' : null,
        captured_at: finishedAt,
        created_at: finishedAt,
      })),
    )
    .execute();
  await refreshRunAggregates(t.db, t.orgId, runId);
  return runId;
}

export async function addRecommendation(
  t: Tenant,
  brandId: number,
  id: string,
  values: { status?: string; supersededAt?: string; deletedAt?: string } = {},
): Promise<void> {
  await t.db
    .insertInto('recommendations')
    .values({
      id,
      org_id: t.orgId,
      brand_id: brandId,
      rec_type: 'content',
      title: id,
      status: values.status ?? 'open',
      priority: 'medium',
      score: 50,
      why: '',
      suggested_action: '',
      expected_impact: '',
      measurement_plan: '',
      impact: 0,
      effort: 0,
      confidence: 0,
      dismissed_reason: '',
      superseded_at: values.supersededAt ?? null,
      deleted_at: values.deletedAt ?? null,
      created_at: CREATED,
      updated_at: CREATED,
    })
    .execute();
}

export interface ScoredBrand {
  brandId: number;
  /** Live categories c1 and c2; c3 is archived. */
  c1: CategoryIds;
  c2: CategoryIds;
  c3: CategoryIds;
  /** p1, p2 monitored in c1; p3 unmonitored in c1; p4 archived in c1; p5 in c2; p6 in c3. */
  prompts: { p1: number; p2: number; p3: number; p4: number; p5: number; p6: number };
  runs: { run1: number; run2: number; run4: number; run5: number; running: number };
}

/**
 * A brand whose figures are worked out by hand. Observation value v: not mentioned 0; mentioned
 * without rank 0.5; rank r → max(0.25, 1 − 0.15(r − 1)). Prompt score in a run = 100·Σw·v/Σw.
 *
 *   run1 c1 published 2026-03-01: p1 {rank 1, w1 → v1} + {not mentioned, w1 → 0} = 100·1/2 = 50
 *                                 p2 {no rank, w2 → 0.5} + {rank 5, w2 → 0.4} = 100·1.8/4 = 45
 *   run2 c1 published 2026-03-08: p1 {rank 3, w3 → 0.7} + {not mentioned, w1} = 100·2.1/4 = 52.5
 *                                 p2 only an error answer → not scored in run2
 *                                 p3 {rank 1} = 100 (unmonitored: not in brand/category means)
 *   run3 c1 UNPUBLISHED 2026-03-10: p1 {rank 1} = 100 — invisible, ignored everywhere
 *   run4 c2 legacy 2026-03-05:    p5 {rank 2, w1 → 0.85} = 85
 *   run5 c3 published 2026-03-09: p6 {rank 1} = 100 (archived category: not eligible)
 *   running: c1, queued 2026-03-11, started 2026-03-11T01:00Z, 2 of 5 prompts done
 *   queued:  c2, created 2026-03-10 (older in-flight run)
 *
 * Latest / previous per eligible prompt: p1 52.5 / 50; p2 45 / 45; p5 85 / 85.
 * Recommendations: open, implemented, dismissed count (3); superseded by status, by
 * superseded_at, and soft-deleted do not.
 */
export async function seedScoredBrand(
  t: Tenant,
  brand: Partial<Insertable<BrandsTable>>,
): Promise<ScoredBrand> {
  const brandId = await addBrand(t, brand);
  const c1 = await addCategory(t, brandId, { name: 'Analytics tools', description: 'Core' });
  const c2 = await addCategory(t, brandId, { name: 'BI platforms' });
  const c3 = await addCategory(t, brandId, { name: 'Archived', archived: true });
  const p1 = await addPrompt(t, c1, { text: 'Best analytics tool?' });
  const p2 = await addPrompt(t, c1, { text: 'Top dashboards?' });
  const p3 = await addPrompt(t, c1, { text: 'Unmonitored', monitored: false });
  const p4 = await addPrompt(t, c1, { text: 'Archived prompt', archived: true });
  const p5 = await addPrompt(t, c2, { text: 'Best BI platform?' });
  const p6 = await addPrompt(t, c3, { text: 'Old question' });

  const run1 = await addScoredRun(t, c1, '2026-03-01T12:00:00.000Z', [
    { promptId: p1, mentioned: true, rank: 1 },
    { promptId: p1, mentioned: false },
    { promptId: p2, mentioned: true, weight: 2 },
    { promptId: p2, mentioned: true, rank: 5, weight: 2 },
  ]);
  const run2 = await addScoredRun(t, c1, '2026-03-08T12:00:00.000Z', [
    { promptId: p1, mentioned: true, rank: 3, weight: 3 },
    { promptId: p1, mentioned: false },
    { promptId: p2, mentioned: true, rank: 1, outcome: 'error' },
    { promptId: p3, mentioned: true, rank: 1 },
  ]);
  await addScoredRun(
    t,
    c1,
    '2026-03-10T12:00:00.000Z',
    [{ promptId: p1, mentioned: true, rank: 1 }],
    'unpublished',
  );
  const run4 = await addScoredRun(
    t,
    c2,
    '2026-03-05T12:00:00.000Z',
    [{ promptId: p5, mentioned: true, rank: 2 }],
    'legacy',
  );
  const run5 = await addScoredRun(t, c3, '2026-03-09T12:00:00.000Z', [
    { promptId: p6, mentioned: true, rank: 1 },
  ]);
  await addRun(t, c2, { status: 'queued', created_at: '2026-03-10T00:00:00.000Z', total_prompts: 1 });
  const running = await addRun(t, c1, {
    status: 'running',
    created_at: '2026-03-11T00:00:00.000Z',
    started_at: '2026-03-11T01:00:00.000Z',
    completed_prompts: 2,
    total_prompts: 5,
  });

  await addRecommendation(t, brandId, `${brandId}-open`);
  await addRecommendation(t, brandId, `${brandId}-implemented`, { status: 'implemented' });
  await addRecommendation(t, brandId, `${brandId}-dismissed`, { status: 'dismissed' });
  await addRecommendation(t, brandId, `${brandId}-superseded`, { status: 'superseded' });
  await addRecommendation(t, brandId, `${brandId}-superseded-at`, {
    supersededAt: '2026-03-02T00:00:00.000Z',
  });
  await addRecommendation(t, brandId, `${brandId}-deleted`, { deletedAt: '2026-03-02T00:00:00.000Z' });

  return {
    brandId,
    c1,
    c2,
    c3,
    prompts: { p1, p2, p3, p4, p5, p6 },
    runs: { run1, run2, run4, run5, running },
  };
}
