import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { bearer } from './support/context.ts';
import { createDemoContext, DEMO_ORGS, type DemoContext } from './support/demo.ts';
import { checkIntervals, emptyTally } from './support/intervals.ts';

// A property of every interval the API serves, on the whole demo data: low ≤ value ≤ high, and a
// reason exactly when there is no interval. Every brand the API answers for (initech has no API
// access), in every window: analytics (metrics, share of voice, sources, platforms) of the brand
// and of each of its categories, score histories and category deltas.

let demo: DemoContext;

before(async () => {
  demo = await createDemoContext();
});
after(() => demo?.ctx.close());

const WINDOWS = ['range=7d', 'range=30d', 'range=90d', 'range=all'];

it('serves low ≤ value ≤ high for every interval on the demo data', async () => {
  const tally = emptyTally();
  const get = async (org: (typeof DEMO_ORGS)[number], url: string) => {
    const res = await demo.ctx.app.inject({ url, headers: bearer(demo.keys[org]) });
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
    return res.json();
  };
  for (const org of DEMO_ORGS.filter((o) => o !== 'initech')) {
    for (const brandId of demo.brandIds[org]) {
      const brand = `/api/brands/${brandId}`;
      const categories = await get(org, `${brand}/categories/?archived=true&page_size=100`);
      const urls = [`${brand}/category-deltas/`, `${brand}/category-deltas/?since=all`];
      for (const query of WINDOWS) {
        urls.push(`${brand}/analytics/?${query}`, `${brand}/score-history/?${query}`);
        for (const { id } of categories.results) {
          urls.push(
            `/api/categories/${id}/analytics/?${query}`,
            `/api/categories/${id}/score-history/?${query}`,
          );
        }
      }
      for (const url of urls) checkIntervals(await get(org, url), `${org} ${url}`, tally);
    }
  }
  assert.deepEqual(tally.violations, []);
  // Not vacuous: intervals were served in every place the API has them.
  assert.deepEqual([...tally.places].sort(), [
    '.deltas.*.latestScore',
    '.metrics.avgRank.value',
    '.metrics.mentionRate.value',
    '.platforms.apiPlatforms[].mentionRate',
    '.platforms.surfacePlatforms[].mentionRate',
    '.shareOfVoice.hidden[].share',
    '.shareOfVoice.visible[].share',
    '.sources.items[].share',
    '.windowedDelta.latestScore',
  ]);
  assert.ok(tally.checked > 1000, `${tally.checked} intervals checked`);
});
