import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Static } from 'typebox';
import type { Analytics } from '../src/schemas/analytics.ts';
import { createDemoContext, type DemoContext } from './support/demo.ts';

// On the demo data: every analytics endpoint answers for every window, the figures hold together
// (shares add up, totals match), and the brand's averageScore, its score history's latestScore and
// the category scores come out of the one scoring path with the same values, and every interval
// served holds its value.

describe('analytics on the demo data', () => {
  let demo: DemoContext;
  before(async () => {
    demo = await createDemoContext();
  });
  after(() => demo.ctx.close());

  async function get(url: string) {
    const res = await demo.ctx.app.inject({ url, headers: { authorization: `Bearer ${demo.keys.acme}` } });
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
    return res.json();
  }

  it('agrees on the brand score, its history and its categories', async () => {
    for (const brandId of demo.brandIds.acme) {
      const brand = await get(`/api/brands/${brandId}/`);
      const history = await get(`/api/brands/${brandId}/score-history/?since=all`);
      assert.equal(history.windowedDelta.latestScore, brand.averageScore, `brand ${brandId}`);
      assert.equal(history.points.at(-1)?.score ?? 0, brand.averageScore);
      const categories = await get(`/api/brands/${brandId}/categories/?archived=true`);
      const deltas = await get(`/api/brands/${brandId}/category-deltas/?since=all`);
      for (const category of categories.results) {
        const own = await get(`/api/categories/${category.id}/score-history/?since=all`);
        assert.equal(own.windowedDelta.latestScore, category.averageScore, `category ${category.id}`);
        if (!category.isArchived) assert.deepEqual(deltas.deltas[category.id], own.windowedDelta);
        else assert.equal(deltas.deltas[category.id], undefined);
      }
    }
  });

  type Body = Static<typeof Analytics>;
  type Band = { low: number; high: number } | null;

  /** Every figure served with an interval: [what, value, interval, reason]. */
  function bands(body: Body): [string, number | null, Band, string | null][] {
    const { metrics, shareOfVoice, sources, platforms } = body;
    return [
      [
        'mentionRate',
        metrics.mentionRate.value,
        metrics.mentionRate.interval,
        metrics.mentionRate.intervalReason,
      ],
      ['avgRank', metrics.avgRank.value, metrics.avgRank.interval, metrics.avgRank.intervalReason],
      ...[...shareOfVoice.visible, ...shareOfVoice.hidden].map(
        (e): [string, number | null, Band, string | null] => [
          `share ${e.name}`,
          e.share,
          e.interval,
          e.intervalReason,
        ],
      ),
      ...sources.items.map((s): [string, number, Band, string | null] => [
        `source ${s.domain}`,
        s.share,
        s.interval,
        s.intervalReason,
      ]),
      ...[...platforms.apiPlatforms, ...platforms.surfacePlatforms].map(
        (p): [string, number, Band, string | null] => [
          `platform ${'model' in p ? p.model : p.surface}`,
          p.mentionRate,
          p.mentionRateInterval,
          p.mentionRateIntervalReason,
        ],
      ),
    ];
  }

  /** Every delta served: [what, suppressedReason, significance]. */
  function significances(body: Body): [string, string | null, string | null][] {
    const { metrics, shareOfVoice, sources } = body;
    return [
      ['mentionRate', metrics.mentionRate.suppressedReason, metrics.mentionRate.significance],
      ['avgRank', metrics.avgRank.suppressedReason, metrics.avgRank.significance],
      ...[...shareOfVoice.visible, ...shareOfVoice.hidden].map(
        (e): [string, string | null, string | null] => [
          e.name,
          e.shareDeltaSuppressedReason,
          e.shareDeltaSignificance,
        ],
      ),
      ...sources.items.map((s): [string, string | null, string | null] => [
        s.domain,
        s.shareDeltaSuppressedReason,
        s.shareDeltaSignificance,
      ]),
    ];
  }

  it('answers every window with figures that add up', async () => {
    let served = 0;
    const { brandId, categoryId, promptId } = demo.fixtures;
    // Yesterday in UTC is never in the future, whatever the organization's timezone.
    const day = (daysAgo: number) =>
      new Date(demo.ctx.app.clock().getTime() - daysAgo * 86_400_000).toISOString().slice(0, 10);
    const [today, monthAgo] = [day(1), day(31)];
    const windows = [
      'range=7d',
      'range=30d',
      'range=90d',
      'range=all',
      `range=custom&start=${monthAgo}&end=${today}`,
    ];
    for (const base of [`/api/brands/${brandId}/analytics/`, `/api/categories/${categoryId}/analytics/`]) {
      for (const query of windows) {
        const body = await get(`${base}?${query}`);
        const { metrics, coverage, shareOfVoice, sources, platforms } = body;
        assert.ok(metrics.sampleCount > 0, `${base}?${query} has data`);
        assert.equal(metrics.sampleCount, coverage.sampleWeightTotal);
        assert.equal(metrics.mentionRate.denominator, metrics.sampleCount);
        const sum = (
          items: { totalSamples?: number; totalAnswers?: number }[],
          key: 'totalSamples' | 'totalAnswers',
        ) => items.reduce((total, item) => total + (item[key] ?? 0), 0);
        assert.equal(sum(platforms.apiPlatforms, 'totalSamples'), metrics.sampleCount);
        assert.equal(sum(platforms.surfacePlatforms, 'totalAnswers'), coverage.usableSampleCount);
        const entities = [...shareOfVoice.visible, ...shareOfVoice.hidden];
        const mentions = entities.reduce((total: number, e: { mentions: number }) => total + e.mentions, 0);
        // Shares are rounded half away from zero to 4 decimals.
        for (const e of entities)
          assert.ok(Math.abs(e.share - e.mentions / mentions) <= 0.00005 + 1e-12, e.name);
        assert.equal(
          sources.items.reduce((total: number, item: { count: number }) => total + item.count, 0),
          sources.totalCitations,
        );
        assert.ok(
          coverage.excludedErrorCount + coverage.excludedEmptyCount + coverage.excludedNoResultCount > 0 ||
            query === 'range=7d',
        );
        for (const [what, value, interval, reason] of bands(body)) {
          const at = `${base}?${query} ${what}`;
          assert.equal(interval === null, reason !== null, `${at}: an interval or a reason`);
          if (interval === null) continue;
          served += 1;
          assert.ok(
            value !== null && interval.low <= value && value <= interval.high,
            `${at}: ${value} in ${JSON.stringify(interval)}`,
          );
        }
        for (const [what, reason, significance] of significances(body)) {
          assert.equal(
            significance === null,
            reason !== null,
            `${base}?${query} ${what}: significance iff a delta`,
          );
        }
      }
    }
    assert.ok(served > 100, `${served} intervals served`);
    for (const url of [
      `/api/brands/${brandId}/score-history/?range=90d&limit=10`,
      `/api/categories/${categoryId}/score-history/?since=all`,
      `/api/brands/${brandId}/category-deltas/`,
    ]) {
      await get(url);
    }
    const changes = await get(`/api/prompts/${promptId}/changes/`);
    assert.equal(changes.hasBaseline, true);
  });

  it('counts the legacy era in coverage and suppresses deltas across it', async () => {
    const base = `/api/brands/${demo.fixtures.brandId}/analytics/`;
    const all = await get(`${base}?range=all`);
    const { comparableFrom } = all.coverage;
    const earliest = all.window.bounds.earliestObservationAt;
    assert.ok(comparableFrom > earliest, 'the demo has legacy runs before the cutover');
    // Over all time every prompt has sample_v1 answers, so its legacy ones are excluded.
    assert.ok(all.coverage.excludedMethodologyCount > 0);
    assert.equal(all.coverage.legacyFallbackCount, 0);

    const date = (iso: string, days: number) =>
      new Date(Date.parse(iso) + days * 86_400_000).toISOString().slice(0, 10);
    const legacyEra = await get(
      `${base}?range=custom&start=${date(earliest, 0)}&end=${date(comparableFrom, -1)}`,
    );
    assert.ok(legacyEra.coverage.legacyFallbackCount > 0);
    assert.ok(legacyEra.coverage.unreconstructableLegacyAnswerCount > 0);
    // Ten days from the cutover day (the organization's calendar) against the ten days before it.
    const cutoverDay = new Intl.DateTimeFormat('en-CA', { timeZone: all.window.timezone }).format(
      new Date(comparableFrom),
    );
    const after = await get(
      `${base}?range=custom&start=${cutoverDay}&end=${date(`${cutoverDay}T12:00:00Z`, 9)}`,
    );
    assert.equal(after.coverage.legacyFallbackCount, 0);
    assert.equal(after.metrics.mentionRate.suppressedReason, 'cross_era');
  });
});
