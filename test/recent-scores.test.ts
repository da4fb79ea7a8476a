import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Migrator } from 'kysely/migration';
import { createBrand } from '../src/db/catalog/brands.ts';
import { createCategory } from '../src/db/catalog/categories.ts';
import { addCompetitor } from '../src/db/catalog/competitors.ts';
import { createPrompt } from '../src/db/catalog/prompts.ts';
import type { Db } from '../src/db/connect.ts';
import { MIGRATIONS, migrateToLatest } from '../src/db/migrate.ts';
import { findRunId } from '../src/db/run-writes.ts';
import { importAnswers } from '../src/ingest/import.ts';
import { setRunPublished } from '../src/ingest/runs.ts';
import { bearer, createTestContext, type TestContext } from './support/context.ts';
import { insertOrg, mintKey } from './support/fixtures.ts';

// The newest and previous score of each prompt are kept at write time (recent_prompt_scores) by
// the refresh that imports, publishing and unpublishing run. After each such write, the kept rows
// must equal a recomputation from every stored run score, and the brand, category and prompt
// scores the API shows must equal the figures worked out by hand below.

const NOW = new Date('2026-03-10T00:00:00.000Z');
let ctx: TestContext;
let db: Db;
let orgId: number;
let key: string;
let brandId: number;
let categoryId: number;

const RANK_1 = '1. **Acmeflow** – the pick.\n2. **Globex** – the other one.';
const RANK_2 = '1. **Globex** – the pick.\n2. **Acmeflow** – the other one.';
const RANK_3 = '1. **Globex** – the pick.\n2. **Initech** – close.\n3. **Acmeflow** – also fine.';
const ABSENT = 'Globex is a fine choice.';

function answer(run: string, prompt: string, at: string, text: string, extra: Record<string, unknown> = {}) {
  return JSON.stringify({
    organization: 'acme',
    run,
    prompt,
    model: 'chatgpt',
    capturedAt: `2026-03-0${run.slice(-1)}T${at}:00Z`,
    answerText: text,
    ...extra,
  });
}

async function importRun(lines: string[], publish: boolean): Promise<void> {
  await importAnswers(db, lines, { now: NOW, publish });
}

async function publish(run: string, on: boolean): Promise<void> {
  const id = (await findRunId(db, orgId, run)) as number;
  await setRunPublished(db, orgId, id, on ? NOW.toISOString() : null);
}

/** From scratch: every stored run score of a visible run, newest two per prompt. */
async function recomputed() {
  const rows = await db
    .selectFrom('run_prompt_scores as s')
    .innerJoin('runs as r', 'r.id', 's.run_id')
    .select(['s.prompt_id', 's.run_id', 's.scored_at', 's.score', 's.methodology', 'r.status'])
    .select(['r.is_legacy', 'r.published_at'])
    .where('s.org_id', '=', orgId)
    .execute();
  const visible = rows.filter(
    (r) => r.status === 'completed' && (r.is_legacy === 1 || r.published_at !== null),
  );
  const out: { prompt: number; recency: number; run: number; score: number }[] = [];
  for (const prompt of [...new Set(visible.map((r) => r.prompt_id))].sort((a, b) => a - b)) {
    const newestFirst = visible
      .filter((r) => r.prompt_id === prompt)
      .sort((a, b) =>
        a.scored_at === b.scored_at ? b.run_id - a.run_id : a.scored_at < b.scored_at ? 1 : -1,
      );
    for (const [i, r] of newestFirst.slice(0, 2).entries()) {
      out.push({ prompt, recency: i + 1, run: r.run_id, score: r.score });
    }
  }
  return out;
}

async function kept() {
  const rows = await db
    .selectFrom('recent_prompt_scores')
    .select(['prompt_id', 'recency', 'run_id', 'score'])
    .where('org_id', '=', orgId)
    .orderBy('prompt_id')
    .orderBy('recency')
    .execute();
  return rows.map((r) => ({ prompt: r.prompt_id, recency: r.recency, run: r.run_id, score: r.score }));
}

async function get(url: string) {
  const res = await ctx.app.inject({ method: 'GET', url, headers: bearer(key) });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

/** The kept rows equal the recomputation, and the API shows the hand-worked scores. */
async function expectScores(
  brand: { average: number; previous: number },
  prompts: Record<string, [latest: number, previous: number] | null>,
): Promise<void> {
  assert.deepEqual(await kept(), await recomputed());
  const detail = await get(`/api/brands/${brandId}/`);
  assert.deepEqual(
    [detail.averageScore, detail.previousScore, detail.hasScoreData],
    [brand.average, brand.previous, true],
  );
  const list = await get('/api/brands/');
  assert.deepEqual(
    [list.results[0].averageScore, list.results[0].previousScore],
    [brand.average, brand.previous],
  );
  const categories = await get(`/api/brands/${brandId}/categories/`);
  assert.deepEqual(
    [categories.results[0].averageScore, categories.results[0].previousScore],
    [brand.average, brand.previous],
  );
  const listed = await get(`/api/categories/${categoryId}/prompts/`);
  const byText = Object.fromEntries(
    listed.results.map(
      (p: { text: string; latestScore: number; previousScore: number; hasScoreData: boolean }) => [
        p.text,
        p.hasScoreData ? [p.latestScore, p.previousScore] : null,
      ],
    ),
  );
  assert.deepEqual(byText, prompts);
}

before(async () => {
  ctx = await createTestContext();
  db = ctx.dbs.primary;
  orgId = await insertOrg(ctx.dbs.primary, 'acme');
  key = await mintKey(ctx.dbs.primary, orgId, { pepper: ctx.config.keyPepper });
  const brand = await createBrand(db, orgId, { name: 'Acmeflow', website: 'https://acmeflow.com' });
  brandId = brand.id;
  const category = await createCategory(db, brand, { name: 'CRM', externalKey: 'crm' });
  categoryId = category.id;
  await createPrompt(db, category, { text: 'best', externalKey: 'best' });
  await createPrompt(db, category, { text: 'cheap', externalKey: 'cheap' });
  // Scored like the others, but not monitored: it never counts towards the brand or category.
  await createPrompt(db, category, { text: 'api', externalKey: 'api', monitored: false });
  await addCompetitor(db, brand, category, { name: 'Globex' });
  await addCompetitor(db, brand, category, { name: 'Initech' });
});
after(() => ctx?.close());

it('keeps each prompt’s newest and previous score through imports, publishing and re-imports', async () => {
  // Run 1, published: best ranks 1st (value 1 → 100), cheap not mentioned (0), api 1st (100).
  await importRun(
    [
      answer('crm/1', 'best', '09:00', RANK_1),
      answer('crm/1', 'cheap', '09:01', ABSENT),
      answer('crm/1', 'api', '09:02', RANK_1),
    ],
    true,
  );
  // Each prompt scored once: previous = latest. Brand = mean of the monitored ones (100 + 0) / 2.
  await expectScores({ average: 50, previous: 50 }, { best: [100, 100], cheap: [0, 0], api: [100, 100] });

  // Run 2, not published: invisible, nothing moves. best 3rd (0.70 → 70), cheap 2nd (0.85 → 85).
  await importRun(
    [answer('crm/2', 'best', '09:00', RANK_3), answer('crm/2', 'cheap', '09:01', RANK_2)],
    false,
  );
  await expectScores({ average: 50, previous: 50 }, { best: [100, 100], cheap: [0, 0], api: [100, 100] });

  // Publishing run 2: latest (70 + 85) / 2 = 77.5, previous (100 + 0) / 2 = 50.
  await publish('crm/2', true);
  await expectScores({ average: 77.5, previous: 50 }, { best: [70, 100], cheap: [85, 0], api: [100, 100] });

  // Run 3, published, best only: 3 samples ranked 1st and 1 sample absent → 100 × 3 / 4 = 75.
  // Latest (75 + 85) / 2 = 80; previous (70 + 0) / 2 = 35.
  await importRun(
    [
      answer('crm/3', 'best', '09:00', RANK_1, { sampleCount: 3 }),
      answer('crm/3', 'best', '09:05', ABSENT, { model: 'gemini' }),
    ],
    true,
  );
  await expectScores({ average: 80, previous: 35 }, { best: [75, 70], cheap: [85, 0], api: [100, 100] });

  // Unpublishing run 2 brings run 1 back as the predecessor: best 75 after 100, cheap 0 alone.
  // Latest (75 + 0) / 2 = 37.5; previous (100 + 0) / 2 = 50.
  await publish('crm/2', false);
  await expectScores({ average: 37.5, previous: 50 }, { best: [75, 100], cheap: [0, 0], api: [100, 100] });

  // Re-importing run 3 with one more answer (captured before its last, so it still finishes at
  // 09:05): cheap now scores 70 in run 3. Latest (75 + 70) / 2 = 72.5; previous (100 + 0) / 2 = 50.
  await importRun(
    [
      answer('crm/3', 'best', '09:00', RANK_1, { sampleCount: 3 }),
      answer('crm/3', 'best', '09:05', ABSENT, { model: 'gemini' }),
      answer('crm/3', 'cheap', '09:01', RANK_3),
    ],
    true,
  );
  await expectScores({ average: 72.5, previous: 50 }, { best: [75, 100], cheap: [70, 0], api: [100, 100] });

  // Publishing run 2 again: best 75 after 70, cheap 70 after 85. Previous (70 + 85) / 2 = 77.5.
  await publish('crm/2', true);
  await expectScores({ average: 72.5, previous: 77.5 }, { best: [75, 70], cheap: [70, 85], api: [100, 100] });
});

it('fills the kept scores from the stored run scores when the migration is applied to existing data', async () => {
  const before = await kept();
  const migrator = new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS } });
  assert.equal((await migrator.migrateTo('0002_monitoring')).error, undefined);
  assert.deepEqual(await migrateToLatest(db), [
    '0003_recent_prompt_scores',
    '0004_recommendation_findings',
    '0005_monitoring_weekday',
    '0006_aggregate_generations',
    '0007_response_composite_keys',
    '0008_sqlite_response_composite_keys',
    '0009_weighted_sums_bigint',
    '0010_artifact_draft_claims',
  ]);
  assert.deepEqual(await kept(), before);
  assert.deepEqual(before, await recomputed());
});
