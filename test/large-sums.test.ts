import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { runRows } from '../src/analytics/run-rows.ts';
import { importAnswers } from '../src/ingest/import.ts';
import { createTestContext, type TestContext } from './support/context.ts';
import { seedImportCatalog } from './support/fixtures.ts';

// The aggregate sums are weighted by each answer's sampleCount (up to 10,000, docs/ingest.md), so
// they outgrow 32-bit integers long before the answers do. SQLite's integers are 64-bit; on
// PostgreSQL the sum columns are bigint (migration 0009): with `integer` this import failed there
// with "integer out of range".

const NOW = new Date('2026-03-02T00:00:00.000Z');
const ANSWERS = 720;
const RANK = 300;

// Brand last in a list of 300: rank 300 (the analyzer ranks every name of a list).
const others = Array.from({ length: RANK - 1 }, (_, i) => `${i + 1}. **Tool${i}x** – fine.`);
const text = `Top tools:\n\n${others.join('\n')}\n${RANK}. **Acmeflow** – last.`;

let ctx: TestContext;
before(async () => {
  ctx = await createTestContext();
  await seedImportCatalog(ctx.dbs.primary);
});
after(() => ctx?.close());

it('keeps weighted sums past 2^31 exactly, on both databases', async () => {
  const lines = Array.from({ length: ANSWERS }, (_, i) =>
    JSON.stringify({
      organization: 'acme',
      prompt: 'best-crm',
      run: 'heavy',
      model: 'chatgpt',
      sampleCount: 10_000,
      capturedAt: new Date(Date.parse('2026-03-01T00:00:00Z') + i * 1000).toISOString(),
      answerText: text,
    }),
  );
  const summary = await importAnswers(ctx.dbs.primary, lines, {
    now: NOW,
    publish: true,
    analysisThreads: 0,
  });
  assert.equal(summary.imported, ANSWERS);
  // The run's category total and its prompt's row: one group each (chatgpt, api, ok, with mention
  // data). 720 answers × 10,000 = 7,200,000 weight, every one ranked 300: Σ weight·rank =
  // 2,160,000,000, past 2^31 − 1 = 2,147,483,647.
  const rows = await ctx.dbs.primary
    .selectFrom('agg_run_observations')
    .select(['prompt_id', 'weight', 'ranked_weight', 'rank_weighted'])
    .orderBy('prompt_id')
    .execute();
  assert.equal(rows.length, 2);
  for (const row of rows) {
    assert.deepEqual(
      {
        weight: Number(row.weight),
        ranked: Number(row.ranked_weight),
        rankWeighted: Number(row.rank_weighted),
      },
      { weight: 7_200_000, ranked: 7_200_000, rankWeighted: 2_160_000_000 },
    );
  }
  // And the blocks above the run's day hold the same sums.
  const blocks = await ctx.dbs.primary
    .selectFrom('agg_block_observations')
    .select('rank_weighted')
    .where('prompt_id', '=', 0)
    .execute();
  assert.deepEqual(
    blocks.map((b) => Number(b.rank_weighted)),
    [2_160_000_000, 2_160_000_000, 2_160_000_000, 2_160_000_000],
  );
});

it('adds up a run citing 130,000 distinct pages (more rows of one kind than a spread can pass)', () => {
  // One answer, as the refresh reads it, citing 130,000 pages: 130,000 citation rows for its prompt
  // and as many for the category total. Appended with push(...rows), that overflowed the stack.
  const pages = 130_000;
  const urls = Array.from({ length: pages }, (_, i) => ({
    url: `https://site${i}.example/`,
    domain: `site${i}.example`,
  }));
  const rows = runRows(
    1,
    {
      header: { id: 1, brand_id: 1, category_id: 1, finished_at: '2026-03-01T00:00:00.000Z' },
      responses: [
        {
          id: 1,
          run_id: 1,
          prompt_id: 7,
          model: 'chatgpt',
          model_label: 'ChatGPT',
          surface: 'api',
          outcome: 'ok',
          methodology: 'sample_v1',
          has_mention_data: 1,
          sample_count: 1,
          mentioned: 1,
          rank: 1,
          sentiment: 'neutral',
        },
      ],
    },
    new Map(),
    new Map([[1, urls]]),
  );
  assert.equal(rows.citations.length, 2 * pages);
  assert.equal(rows.citations.filter((r) => r.prompt_id === 7).length, pages);
});
