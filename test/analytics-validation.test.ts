import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { App } from '../src/http/types.ts';
import { ACME, appWithClock } from './support/analytics.ts';
import { bearer, createTestContext, type TestContext } from './support/context.ts';
import { BrandFixture, insertOrg, mintKey } from './support/fixtures.ts';

// Every 400 of the window parameters with its DRF field-error body, and the order of checks:
// another organization's objects answer 404 even when the query string is invalid.

describe('analytics query validation', () => {
  let ctx: TestContext;
  let app: App;
  let key: string;
  let acme: number;
  let ids: {
    brand: number;
    category: number;
    prompt: number;
    otherBrand: number;
    otherCategory: number;
    otherPrompt: number;
  };

  before(async () => {
    ctx = await createTestContext();
    ({ app } = await appWithClock(ctx, '2026-03-15T12:00:00.000Z'));
    acme = await insertOrg(ctx.dbs.primary, 'acme', { timezone: 'Europe/Berlin' });
    const globex = await insertOrg(ctx.dbs.primary, 'globex');
    key = await mintKey(ctx.dbs.primary, acme);
    const mine = await BrandFixture.insert(ctx.dbs.primary, acme, ACME);
    const theirs = await BrandFixture.insert(ctx.dbs.primary, globex, { ...ACME, name: 'Globex' });
    const [category, otherCategory] = [await mine.category(), await theirs.category()];
    ids = {
      brand: mine.brandId,
      category,
      prompt: await mine.prompt(category),
      otherBrand: theirs.brandId,
      otherCategory,
      otherPrompt: await theirs.prompt(otherCategory),
    };
  });
  after(async () => {
    await app.close();
    await ctx.close();
  });

  const get = (url: string, headers = bearer(key)) => app.inject({ url, headers });

  async function expect400(url: string, body: Record<string, string[]>) {
    const res = await get(url);
    assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
    assert.deepEqual(res.json(), body);
  }

  const windowed = () => [
    `/api/brands/${ids.brand}/analytics/`,
    `/api/categories/${ids.category}/analytics/`,
    `/api/brands/${ids.brand}/score-history/`,
    `/api/categories/${ids.category}/score-history/`,
  ];

  it('rejects an unknown range', async () => {
    for (const base of windowed())
      await expect400(`${base}?range=13d`, { range: ['"13d" is not a valid choice.'] });
  });

  it('rejects start or end without range=custom', async () => {
    for (const base of windowed()) {
      await expect400(`${base}?start=2026-03-01`, { start: ['Only allowed with range=custom.'] });
      await expect400(`${base}?range=90d&end=2026-03-01`, { end: ['Only allowed with range=custom.'] });
    }
  });

  it('rejects a custom range missing a date', async () => {
    for (const base of windowed()) {
      await expect400(`${base}?range=custom&end=2026-03-01`, {
        start: ['This field is required when range=custom.'],
      });
    }
  });

  it('rejects malformed dates', async () => {
    const format = ['Date has wrong format. Use one of these formats instead: YYYY-MM-DD.'];
    for (const base of windowed()) {
      await expect400(`${base}?range=custom&start=2026-02-29&end=01/03/2026`, { start: format, end: format });
    }
  });

  it('rejects an out-of-order range', async () => {
    for (const base of windowed()) {
      await expect400(`${base}?range=custom&start=2026-03-02&end=2026-03-01`, {
        non_field_errors: ['start must be on or before end.'],
      });
    }
  });

  it('rejects an end in the future, in the organization’s timezone', async () => {
    for (const base of windowed()) {
      await expect400(`${base}?range=custom&start=2026-03-01&end=2026-03-16`, {
        end: ['Cannot be in the future (today is 2026-03-15 in Europe/Berlin).'],
      });
    }
  });

  it('rejects since mixed with the window parameters, and bad since and limit values', async () => {
    const history = [
      `/api/brands/${ids.brand}/score-history/`,
      `/api/categories/${ids.category}/score-history/`,
    ];
    for (const base of [...history, `/api/brands/${ids.brand}/category-deltas/`]) {
      await expect400(`${base}?since=2026-03-01&range=7d`, {
        non_field_errors: ['since cannot be combined with range, start or end.'],
      });
      await expect400(`${base}?since=yesterday`, {
        since: ['Enter "all", a date (YYYY-MM-DD) or an ISO 8601 date-time.'],
      });
      // 1000-01-01 at 00:00 in +14:00 is still 0999-12-31 in Berlin: before any date a window names.
      await expect400(`${base}?since=1000-01-01T00:00:00%2B14:00`, {
        since: ['Enter "all", a date (YYYY-MM-DD) or an ISO 8601 date-time.'],
      });
      assert.equal(
        (await get(`${base}?since=1000-01-01`)).statusCode,
        200,
        'its own midnight is in year 1000',
      );
    }
    for (const base of history) {
      await expect400(`${base}?limit=0`, { limit: ['Ensure this value is greater than or equal to 1.'] });
      await expect400(`${base}?limit=ten`, { limit: ['A valid integer is required.'] });
    }
  });

  it('lists every field a request got wrong, those its schema refuses and those of its window', async () => {
    const minimum = ['Ensure this value is greater than or equal to 1.'];
    for (const base of [
      `/api/brands/${ids.brand}/score-history/`,
      `/api/categories/${ids.category}/score-history/`,
    ]) {
      await expect400(`${base}?limit=0&since=yesterday`, {
        limit: minimum,
        since: ['Enter "all", a date (YYYY-MM-DD) or an ISO 8601 date-time.'],
      });
      await expect400(`${base}?limit=ten&range=custom`, {
        limit: ['A valid integer is required.'],
        start: ['This field is required when range=custom.'],
        end: ['This field is required when range=custom.'],
      });
    }
    for (const base of windowed()) {
      await expect400(`${base}?range=13d&start=2026-03-01`, { range: ['"13d" is not a valid choice.'] });
      await expect400(`${base}?range=`, { range: ['"" is not a valid choice.'] });
      // A long value is quoted back to its first 64 characters, repeated or not.
      const long = 'x'.repeat(8000);
      const quoted = `"${'x'.repeat(64)}…" is not a valid choice.`;
      await expect400(`${base}?range=${long}`, { range: [quoted] });
      await expect400(`${base}?range=${long}&range=7d`, { range: [quoted] });
      await expect400(`${base}?start=${long}`, {
        start: ['Ensure this field has no more than 64 characters.'],
      });
    }
  });

  it('ignores a limit where none is taken (category deltas), as any unknown parameter', async () => {
    for (const limit of ['0', '-1', 'abc']) {
      const res = await get(`/api/brands/${ids.brand}/category-deltas/?limit=${limit}`);
      assert.equal(res.statusCode, 200, `limit=${limit}: ${res.body}`);
    }
  });

  it('rejects a repeated parameter instead of guessing', async () => {
    const res = await get(`/api/brands/${ids.brand}/analytics/?range=7d&range=30d`);
    assert.equal(res.statusCode, 400);
    assert.deepEqual(Object.keys(res.json()), ['range']);
  });

  it('answers 404 for another organization’s objects, even with a bad query string', async () => {
    for (const url of [
      `/api/brands/${ids.otherBrand}/analytics/?range=13d`,
      `/api/categories/${ids.otherCategory}/analytics/?range=custom`,
      `/api/brands/${ids.otherBrand}/score-history/?limit=0&since=x`,
      `/api/categories/${ids.otherCategory}/score-history/?since=2026-03-01&range=7d`,
      `/api/brands/${ids.otherBrand}/category-deltas/?since=nope`,
      `/api/prompts/${ids.otherPrompt}/changes/?anything=1`,
      `/api/brands/999999/analytics/?range=13d`,
      `/api/brands/abc/analytics/`,
      `/api/prompts/1e3/changes/`,
    ]) {
      const res = await get(url);
      assert.equal(res.statusCode, 404, url);
      assert.deepEqual(res.json(), { detail: 'Not found.' });
    }
  });

  it('needs brands:read for analytics and runs:read for the change feed', async () => {
    const runsOnly = await mintKey(ctx.dbs.primary, acme, { scopes: ['runs:read'] });
    assert.equal((await get(`/api/brands/${ids.brand}/analytics/`, bearer(runsOnly))).statusCode, 403);
    assert.equal((await get(`/api/prompts/${ids.prompt}/changes/`, bearer(runsOnly))).statusCode, 200);
    const brandsOnly = await mintKey(ctx.dbs.primary, acme, { scopes: ['brands:read'] });
    assert.equal((await get(`/api/prompts/${ids.prompt}/changes/`, bearer(brandsOnly))).statusCode, 403);
  });

  it('answers an empty scope with zeros and no_data, not an error', async () => {
    const res = await get(`/api/brands/${ids.brand}/analytics/?range=all`);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.window.start, '2026-03-15T12:00:00.000Z');
    assert.equal(body.window.bounds.earliestObservationAt, null);
    assert.equal(body.metrics.mentionRate.suppressedReason, 'no_data');
    assert.equal(body.shareOfVoice.visible[0].shareDeltaSuppressedReason, 'no_data');
    assert.deepEqual(body.sources, { totalDomains: 0, totalCitations: 0, items: [] });
    const changes = await get(`/api/prompts/${ids.prompt}/changes/`);
    assert.deepEqual(changes.json(), {
      hasBaseline: false,
      comparedToRunId: null,
      baselineIncomplete: false,
      changes: [],
    });
  });
});
