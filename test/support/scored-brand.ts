import type { Insertable } from 'kysely';
import type { Db } from '../../src/db/connect.ts';
import type { BrandsTable } from '../../src/db/types.ts';
import { type Answer, BrandFixture } from './fixtures.ts';

// The hand-scored brand of the brand, category and prompt endpoint suites, built on the fixture
// builder: every expected figure can be worked out by hand from the answers below.

export interface ScoredBrand {
  brandId: number;
  /** Live categories c1 and c2; c3 is archived. */
  c1: number;
  c2: number;
  c3: number;
  /** p1, p2 monitored in c1; p3 unmonitored in c1; p4 archived in c1; p5 in c2; p6 in c3. */
  prompts: { p1: number; p2: number; p3: number; p4: number; p5: number; p6: number };
  runs: { run1: number; run2: number; run4: number; run5: number; running: number };
}

/** Each answer comes from a model of its own, and a mention is neutral. */
function answers(list: readonly Omit<Answer, 'model' | 'modelLabel' | 'sentiment' | 'text'>[]): Answer[] {
  return list.map((a, i) => ({
    model: `model-${i}`,
    modelLabel: `Model ${i}`,
    sentiment: a.mentioned ? 'neutral' : null,
    text: null,
    ...a,
  }));
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
  db: Db,
  orgId: number,
  values: Partial<Insertable<BrandsTable>>,
): Promise<ScoredBrand> {
  const brand = await BrandFixture.insert(db, orgId, values);
  const c1 = await brand.category('Analytics tools', { description: 'Core' });
  const c2 = await brand.category('BI platforms');
  const c3 = await brand.category('Archived', { archived: true });
  const p1 = await brand.prompt(c1, { text: 'Best analytics tool?' });
  const p2 = await brand.prompt(c1, { text: 'Top dashboards?' });
  const p3 = await brand.prompt(c1, { text: 'Unmonitored', monitored: false });
  const p4 = await brand.prompt(c1, { text: 'Archived prompt', archived: true });
  const p5 = await brand.prompt(c2, { text: 'Best BI platform?' });
  const p6 = await brand.prompt(c3, { text: 'Old question' });

  const run1 = await brand.run({
    category: c1,
    finishedAt: '2026-03-01T12:00:00.000Z',
    answers: answers([
      { prompt: p1, mentioned: true, rank: 1 },
      { prompt: p1, mentioned: false },
      { prompt: p2, mentioned: true, weight: 2 },
      { prompt: p2, mentioned: true, rank: 5, weight: 2 },
    ]),
  });
  const run2 = await brand.run({
    category: c1,
    finishedAt: '2026-03-08T12:00:00.000Z',
    answers: answers([
      { prompt: p1, mentioned: true, rank: 3, weight: 3 },
      { prompt: p1, mentioned: false },
      { prompt: p2, mentioned: true, rank: 1, outcome: 'error' },
      { prompt: p3, mentioned: true, rank: 1 },
    ]),
  });
  await brand.run({
    category: c1,
    finishedAt: '2026-03-10T12:00:00.000Z',
    published: false,
    answers: answers([{ prompt: p1, mentioned: true, rank: 1 }]),
  });
  const run4 = await brand.run({
    category: c2,
    finishedAt: '2026-03-05T12:00:00.000Z',
    legacy: true,
    answers: answers([{ prompt: p5, mentioned: true, rank: 2 }]),
  });
  const run5 = await brand.run({
    category: c3,
    finishedAt: '2026-03-09T12:00:00.000Z',
    answers: answers([{ prompt: p6, mentioned: true, rank: 1 }]),
  });
  await brand.run({
    category: c2,
    status: 'queued',
    columns: { created_at: '2026-03-10T00:00:00.000Z', total_prompts: 1 },
  });
  const running = await brand.run({
    category: c1,
    status: 'running',
    columns: {
      created_at: '2026-03-11T00:00:00.000Z',
      started_at: '2026-03-11T01:00:00.000Z',
      completed_prompts: 2,
      total_prompts: 5,
    },
  });

  const id = brand.brandId;
  await brand.recommendation(`${id}-open`);
  await brand.recommendation(`${id}-implemented`, { status: 'implemented' });
  await brand.recommendation(`${id}-dismissed`, { status: 'dismissed' });
  await brand.recommendation(`${id}-superseded`, { status: 'superseded' });
  await brand.recommendation(`${id}-superseded-at`, { superseded_at: '2026-03-02T00:00:00.000Z' });
  await brand.recommendation(`${id}-deleted`, { deleted_at: '2026-03-02T00:00:00.000Z' });

  return {
    brandId: id,
    c1,
    c2,
    c3,
    prompts: { p1, p2, p3, p4, p5, p6 },
    runs: { run1, run2, run4, run5, running },
  };
}
