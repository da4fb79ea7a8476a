import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { refreshRunAggregates } from '../src/analytics/refresh.ts';
import {
  analyticsStamps,
  type Scope,
  windowCoverage,
  windowMentionDomains,
  windowMentions,
  windowObservations,
  windowPartSums,
  windowPromptCitations,
  windowPromptMentions,
  windowPromptObservations,
  windowUrlCitations,
} from '../src/db/analytics.ts';
import { type Cover, cover, DAY_MS } from '../src/domain/blocks.ts';
import { ACME } from './support/analytics.ts';
import { createTestContext, type TestContext } from './support/context.ts';
import { type Answer, BrandFixture, insertOrg } from './support/fixtures.ts';

// The aggregates are an optimisation, never a second definition: a window read through the day
// blocks must equal the same window read run by run, and the aggregates must follow a run's
// responses when it is re-imported.

function sorted<T>(rows: T[]): string[] {
  return rows
    .map((row) =>
      JSON.stringify(row, (_key, value) =>
        typeof value === 'number' ? Math.round(value * 1e9) / 1e9 : value,
      ),
    )
    .sort();
}

describe('analytics aggregates', () => {
  let ctx: TestContext;
  let f: BrandFixture;
  let scope: Scope;
  const runIds: number[] = [];
  let prompt: number;

  before(async () => {
    ctx = await createTestContext();
    const orgId = await insertOrg(ctx.dbs.primary, 'acme');
    f = await BrandFixture.insert(ctx.dbs.primary, orgId, ACME);
    const [first, second] = [await f.category('First'), await f.category('Second')];
    const prompts = [await f.prompt(first), await f.prompt(first), await f.prompt(second)];
    prompt = prompts[0] as number;
    const competitors = [await f.competitor(first, 'Globex'), await f.competitor(second, 'Initech')];
    scope = { orgId, brandId: f.brandId };

    // 120 runs over 400 days at pseudo-random times, with every kind of answer.
    let seed = 42;
    const random = () => {
      seed = (seed * 48271) % 2147483647;
      return seed / 2147483647;
    };
    const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)] as T;
    const origin = Date.parse('2025-01-01T00:00:00Z');
    for (let i = 0; i < 120; i++) {
      const category = pick([first, second]);
      const answers: Answer[] = [];
      for (let j = 0; j < 4; j++) {
        const mentioned = random() < 0.6;
        const answer: Answer = {
          prompt: category === first ? pick(prompts.slice(0, 2)) : (prompts[2] as number),
          model: pick(['chatgpt', 'gemini', 'claude']),
          surface: pick(['api', 'ui_scrape']),
          outcome: pick(['ok', 'ok', 'ok', 'error', 'empty', 'no_result'] as const),
          methodology: i < 30 ? 'legacy' : 'sample_v1',
          hasMentionData: random() < 0.9,
          weight: 1 + Math.floor(random() * 3),
          mentioned,
          rank: mentioned && random() < 0.7 ? 1 + Math.floor(random() * 8) : null,
          sentiment: pick(['positive', 'neutral', 'negative'] as const),
          mentions:
            random() < 0.5 ? [{ competitor: pick(competitors), rank: random() < 0.5 ? 2 : null }] : [],
          citations: [
            pick(['https://www.a.com/1', 'https://b.org/2', 'https://x.c.net/3', 'https://a.com/1']),
          ],
        };
        // A sentiment is drawn for every answer (the draws stay in step) but stored, as the
        // importer does, only for one that mentions the brand.
        answers.push(mentioned ? answer : { ...answer, sentiment: null });
      }
      const finishedAt = new Date(origin + Math.floor(random() * 400 * DAY_MS)).toISOString();
      runIds.push(await f.run({ category, finishedAt, legacy: i < 30, published: random() < 0.9, answers }));
    }
  });
  after(() => ctx.close());

  const runByRun = (from: number, to: number): Cover => ({
    blocks: [],
    edges: [{ start: new Date(from).toISOString(), end: new Date(to).toISOString() }],
  });

  it('reads the same sums through the blocks as run by run', async () => {
    const db = ctx.dbs.read;
    const legacy = [prompt];
    const windows = [
      ['2025-01-01T00:00:00Z', '2026-02-05T00:00:00Z'],
      ['2025-02-03T07:30:00Z', '2025-05-04T19:00:00Z'],
      ['2025-06-10T00:00:00Z', '2025-12-31T23:59:59Z'],
      ['2025-03-01T00:00:00Z', '2025-03-08T00:00:00Z'],
    ];
    for (const [from, to] of windows) {
      const [start, end] = [Date.parse(from as string), Date.parse(to as string)];
      const blocks = cover(start, end);
      assert.ok(blocks.blocks.length > 0 || end - start < 8 * DAY_MS);
      for (const read of [
        (c: Cover): Promise<unknown[]> => windowCoverage(db, scope, c),
        (c: Cover): Promise<unknown[]> => windowObservations(db, { scope, cover: c, legacyPrompts: legacy }),
        (c: Cover): Promise<unknown[]> => windowMentions(db, { scope, cover: c, legacyPrompts: legacy }),
        (c: Cover): Promise<unknown[]> =>
          windowMentionDomains(db, { scope, cover: c, legacyPrompts: legacy }),
        (c: Cover): Promise<unknown[]> => windowUrlCitations(db, { scope, cover: c, legacyPrompts: legacy }),
      ]) {
        assert.deepEqual(
          sorted(await read(blocks)),
          sorted(await read(runByRun(start, end))),
          `${from} → ${to}`,
        );
      }
    }
  });

  // On PostgreSQL a part that reads runs only comes back from one statement, its sums as JSON: the
  // same rows, in the same order, with the same values as from the sums' own statements.
  it("reads a part's sums together as each on its own", async () => {
    const db = ctx.dbs.read;
    const windows = [
      ['2025-01-01T00:00:00Z', '2026-02-05T00:00:00Z'],
      ['2025-03-01T00:00:00Z', '2025-03-08T00:00:00Z'],
      // Before the first run: every sum empty (on PostgreSQL, columns of no rows).
      ['2020-01-01T00:00:00Z', '2020-01-08T00:00:00Z'],
    ];
    let rows = 0;
    for (const [from, to] of windows) {
      const [start, end] = [Date.parse(from as string), Date.parse(to as string)];
      for (const part of [cover(start, end), runByRun(start, end)]) {
        for (const legacyPrompts of [[], [prompt]]) {
          const usable = { scope, cover: part, legacyPrompts };
          const one = (withDomains: boolean) => windowPartSums(db, usable, withDomains);
          const [withDomains, without] = [await one(true), await one(false)];
          const each = {
            observations: await windowObservations(db, usable),
            mentions: await windowMentions(db, usable),
            urls: await windowUrlCitations(db, usable),
            domains: await windowMentionDomains(db, usable),
            perPrompt: {
              observations: await windowPromptObservations(db, usable),
              mentions: await windowPromptMentions(db, usable),
              citations: await windowPromptCitations(db, usable),
            },
          };
          const where = `${from} → ${to}, ${part.blocks.length} blocks, legacy [${legacyPrompts}]`;
          assert.deepEqual(withDomains, each, where);
          assert.deepEqual(without, { ...each, domains: [] }, where);
          rows += each.observations.length + each.domains.length + each.perPrompt.citations.length;
        }
      }
    }
    // Lists of rows were compared, not only empty ones.
    assert.ok(rows > 100, `${rows} rows`);
  });

  it('follows a run re-imported with other answers', async () => {
    const all = runByRun(0, Date.parse('2030-01-01T00:00:00Z'));
    const run = await ctx.dbs.primary
      .selectFrom('runs')
      .selectAll()
      .where('id', 'in', runIds.slice(60))
      .where('published_at', 'is not', null)
      .orderBy('id')
      .executeTakeFirstOrThrow();
    const runId = run.id;
    const before = await windowCoverage(ctx.dbs.read, scope, cover(0, Date.parse('2030-01-01T00:00:00Z')));
    const total = (rows: typeof before) => rows.reduce((sum, r) => sum + r.answers, 0);

    // Re-import: the run's answers are replaced by a single one, and the run moves a day later.
    const responses = ctx.dbs.primary.selectFrom('responses').select('id').where('run_id', '=', runId);
    await ctx.dbs.primary.deleteFrom('response_mentions').where('response_id', 'in', responses).execute();
    await ctx.dbs.primary.deleteFrom('response_citations').where('response_id', 'in', responses).execute();
    const removed = (
      await ctx.dbs.primary.deleteFrom('responses').where('run_id', '=', runId).executeTakeFirst()
    ).numDeletedRows;
    await ctx.dbs.primary
      .updateTable('runs')
      .set({ finished_at: new Date(Date.parse(run.finished_at as string) + DAY_MS).toISOString() })
      .where('id', '=', runId)
      .execute();
    await f.response(runId, {
      prompt: (
        await ctx.dbs.primary
          .selectFrom('run_prompts')
          .select('prompt_id')
          .where('run_id', '=', runId)
          .executeTakeFirstOrThrow()
      ).prompt_id,
      model: 'copilot',
      modelLabel: 'Copilot',
      mentioned: true,
      rank: 1,
      sentiment: 'positive',
      text: 'x',
      capturedAt: run.finished_at as string,
      createdAt: run.finished_at as string,
    });
    await refreshRunAggregates(ctx.dbs.primary, f.orgId, runId);

    const after = await windowCoverage(ctx.dbs.read, scope, cover(0, Date.parse('2030-01-01T00:00:00Z')));
    assert.equal(total(after), total(before) + 1 - Number(removed));
    assert.deepEqual(sorted(after), sorted(await windowCoverage(ctx.dbs.read, scope, all)));
    const observations = await windowObservations(ctx.dbs.read, { scope, cover: all, legacyPrompts: [] });
    assert.ok(observations.some((g) => g.model === 'copilot'));
  });

  // One category's stamp checks once that the category is the brand's (db/analytics.ts stampRows).
  it("stamps nothing of another brand's category", async () => {
    const other = await BrandFixture.insert(ctx.dbs.primary, f.orgId, { name: 'Other' });
    const category = await other.category('Theirs');
    const prompt = await other.prompt(category);
    await other.run({ category, finishedAt: '2025-06-01T12:00:00Z', answers: [{ prompt, mentioned: true }] });
    const all = [{ startMs: 0, endMs: Date.parse('2030-01-01T00:00:00Z') }];
    const stampOf = async (brandId: number) =>
      (await analyticsStamps(ctx.dbs.read, f.orgId, { brandId, categoryIds: [category] }, all))[0];
    // Their brand's stamp of it holds its generations and its prompt.
    assert.match(
      (await stampOf(other.brandId)) ?? '',
      new RegExp(`^g ${category}/1:\\d+ p ${prompt}/${category}:1$`),
    );
    // Asked as this brand's, nothing: no generation, no prompt.
    assert.equal(await stampOf(f.brandId), 'g  p ');
  });
});
