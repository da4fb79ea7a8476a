import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, createTestContext, type TestContext } from './support/context.ts';
import { BrandFixture, insertBrand, insertOrg, mintKey } from './support/fixtures.ts';
import { type ScoredBrand, seedScoredBrand } from './support/scored-brand.ts';

describe('brands endpoints', () => {
  let ctx: TestContext;
  let key: string;
  let otherKey: string;
  let acme: number;
  let scored: ScoredBrand;
  // Brand ids by a short name; see the before hook for what each one is.
  const ids: Record<'a' | 'b' | 'm' | 'x' | 'y' | 'rival', number> = {
    a: 0,
    b: 0,
    m: 0,
    x: 0,
    y: 0,
    rival: 0,
  };

  const get = (url: string, headers = bearer(key)) => ctx.app.inject({ url, headers });
  const names = (body: { results: { name: string }[] }) => body.results.map((b) => b.name);

  before(async () => {
    ctx = await createTestContext();
    acme = await insertOrg(ctx.dbs.primary, 'acme');
    const otherOrg = await insertOrg(ctx.dbs.primary, 'globex');
    key = await mintKey(ctx.dbs.primary, acme);
    otherKey = await mintKey(ctx.dbs.primary, otherOrg);
    const db = ctx.dbs.primary;

    // a: the hand-scored brand; its last visible run finished 2026-03-09T12:00Z (seedScoredBrand).
    scored = await seedScoredBrand(db, acme, {
      name: 'Acme Analytics',
      website: 'https://acme.io',
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-02-01T00:00:00.000Z',
      executive_summary: 'Strong in analytics.',
      executive_summary_updated_at: '2026-03-02T00:00:00.000Z',
      next_monitored_run_at: '2026-03-12T00:00:00.000Z',
    });
    ids.a = scored.brandId;
    // b: ran most recently (2026-03-20) but has only an unmonitored prompt: monitoring "off".
    const b = await BrandFixture.insert(db, acme, {
      name: 'beta Books',
      website: 'https://betabooks.com',
      created_at: '2026-01-03T00:00:00.000Z',
    });
    ids.b = b.brandId;
    const bCategory = await b.category();
    await b.prompt(bCategory, { monitored: false });
    await b.run({ category: bCategory, finishedAt: '2026-03-20T00:00:00.000Z' });
    // m: merged into a, never run, updated after every run of a.
    ids.m = await insertBrand(db, acme, {
      name: 'Zeta Merge',
      status: 'merged',
      merged_into_brand_id: ids.a,
      merged_at: '2026-02-15T00:00:00.000Z',
      created_at: '2026-01-02T00:00:00.000Z',
      updated_at: '2026-04-01T00:00:00.000Z',
    });
    // x: archived; y: LIKE wildcards in its name and website.
    ids.x = await insertBrand(db, acme, {
      name: 'Archived Co',
      status: 'archived',
      created_at: '2026-01-04T00:00:00.000Z',
    });
    ids.y = await insertBrand(db, acme, {
      name: '100%_Real',
      website: 'https://under_score.net',
      created_at: '2026-01-05T00:00:00.000Z',
    });
    ids.rival = await insertBrand(db, otherOrg, { name: 'Acme Rival' });
  });
  after(() => ctx.close());

  describe('GET /api/brands/', () => {
    it('lists the organization’s live brands, latest run first and never-run brands last by id', async () => {
      const res = await get('/api/brands/');
      assert.equal(res.statusCode, 200);
      const body = res.json();
      // b ran 2026-03-20, a 2026-03-09; m and y never ran (by id); x is archived; rival is globex's.
      assert.deepEqual(names(body), ['beta Books', 'Acme Analytics', 'Zeta Merge', '100%_Real']);
      assert.equal(body.count, 4);
      assert.equal(body.next, null);
      assert.equal(body.previous, null);
      assert.deepEqual(names((await get('/api/brands/?sort=last-run')).json()), names(body));
    });

    it('sorts by name case-insensitively and by newest creation', async () => {
      assert.deepEqual(names((await get('/api/brands/?sort=name')).json()), [
        '100%_Real',
        'Acme Analytics',
        'beta Books',
        'Zeta Merge',
      ]);
      // Created: y 01-05, b 01-03, m 01-02, a 01-01.
      assert.deepEqual(names((await get('/api/brands/?sort=recent')).json()), [
        '100%_Real',
        'beta Books',
        'Zeta Merge',
        'Acme Analytics',
      ]);
    });

    it('includes archived brands only with archived=true', async () => {
      const body = (await get('/api/brands/?archived=true')).json();
      assert.equal(body.count, 5);
      assert.deepEqual(names(body), [
        'beta Books',
        'Acme Analytics',
        'Zeta Merge',
        'Archived Co',
        '100%_Real',
      ]);
      assert.equal(body.results[3].status, 'archived');
      assert.equal((await get('/api/brands/?archived=false')).json().count, 4);
    });

    it('filters on whether a brand has an eligible (monitored) prompt', async () => {
      assert.deepEqual(names((await get('/api/brands/?monitoring=on')).json()), ['Acme Analytics']);
      assert.deepEqual(names((await get('/api/brands/?monitoring=off&sort=name')).json()), [
        '100%_Real',
        'beta Books',
        'Zeta Merge',
      ]);
    });

    it('searches name and website case-insensitively, taking LIKE wildcards literally', async () => {
      assert.deepEqual(names((await get('/api/brands/?q=ACME')).json()), ['Acme Analytics']);
      assert.deepEqual(names((await get('/api/brands/?q=BetaBooks.COM')).json()), ['beta Books']);
      assert.deepEqual(names((await get('/api/brands/?q=%25')).json()), ['100%_Real']);
      assert.deepEqual(names((await get('/api/brands/?q=_')).json()), ['100%_Real']);
      // Unescaped, "_" would match the "o" of betabooks and "%" anything.
      assert.deepEqual(names((await get('/api/brands/?q=betab_oks')).json()), []);
      const none = (await get('/api/brands/?q=a%25')).json();
      assert.deepEqual(none, { count: 0, next: null, previous: null, results: [] });
    });

    it('combines filters, sort and search', async () => {
      // Off brands (b, m, x, y) whose name or website contains "r": not b (beta Books,
      // https://betabooks.com); newest first: y 01-05, x 01-04, m 01-02.
      const body = (await get('/api/brands/?monitoring=off&q=R&sort=recent&archived=true')).json();
      assert.deepEqual(names(body), ['100%_Real', 'Archived Co', 'Zeta Merge']);
      assert.equal(body.count, 3);
    });

    it('pages with next/previous links that keep the other parameters', async () => {
      const first = (await get('/api/brands/?sort=name&page_size=2')).json();
      assert.equal(first.count, 4);
      assert.deepEqual(names(first), ['100%_Real', 'Acme Analytics']);
      assert.equal(first.previous, null);
      const next = new URL(first.next);
      assert.equal(next.pathname, '/api/brands/');
      assert.deepEqual(Object.fromEntries(next.searchParams), { sort: 'name', page_size: '2', page: '2' });

      const second = (await get(`${next.pathname}${next.search}`)).json();
      assert.deepEqual(names(second), ['beta Books', 'Zeta Merge']);
      assert.equal(second.next, null);
      const previous = new URL(second.previous);
      assert.deepEqual(Object.fromEntries(previous.searchParams), { sort: 'name', page_size: '2' });

      const past = await get('/api/brands/?sort=name&page_size=2&page=3');
      assert.equal(past.statusCode, 404);
      assert.deepEqual(past.json(), { detail: 'Invalid page.' });
      assert.equal((await get('/api/brands/?page=99999999999999999999')).statusCode, 404);
    });

    it('clamps page_size to 100', async () => {
      const orgId = await insertOrg(ctx.dbs.primary, 'manybrands');
      const manyKey = await mintKey(ctx.dbs.primary, orgId);
      for (let i = 0; i < 101; i++) await insertBrand(ctx.dbs.primary, orgId, { name: `Brand ${i}` });
      const body = (await get('/api/brands/?page_size=1000', bearer(manyKey))).json();
      assert.equal(body.count, 101);
      assert.equal(body.results.length, 100);
      assert.deepEqual(Object.fromEntries(new URL(body.next).searchParams), { page_size: '1000', page: '2' });
      assert.equal(
        (await get('/api/brands/?page_size=1000&page=2', bearer(manyKey))).json().results.length,
        1,
      );
      assert.equal((await get('/api/brands/', bearer(manyKey))).json().results.length, 25);
    });

    it('answers 400 in the DRF shape for bad values, never 500', async () => {
      const cases: [string, Record<string, string[]>][] = [
        ['sort=x', { sort: ['"x" is not a valid choice.'] }],
        ['archived=yes', { archived: ['Must be a valid boolean.'] }],
        ['archived=1', { archived: ['Must be a valid boolean.'] }],
        ['monitoring=maybe', { monitoring: ['"maybe" is not a valid choice.'] }],
        ['page=0', { page: ['Ensure this value is greater than or equal to 1.'] }],
        ['page=abc', { page: ['A valid integer is required.'] }],
        ['page=1.5', { page: ['A valid integer is required.'] }],
        ['page_size=0', { page_size: ['Ensure this value is greater than or equal to 1.'] }],
        ['page_size=-3', { page_size: ['Ensure this value is greater than or equal to 1.'] }],
        ['page_size=', { page_size: ['A valid integer is required.'] }],
        [`q=${'x'.repeat(201)}`, { q: ['Ensure this field has no more than 200 characters.'] }],
        ['sort=name&sort=recent', { sort: ['"name,recent" is not a valid choice.'] }],
        [
          'sort=x&archived=yes',
          { sort: ['"x" is not a valid choice.'], archived: ['Must be a valid boolean.'] },
        ],
      ];
      for (const [query, expected] of cases) {
        const res = await get(`/api/brands/?${query}`);
        assert.equal(res.statusCode, 400, query);
        assert.deepEqual(res.json(), expected, query);
      }
    });

    it('lists only the key’s organization', async () => {
      const body = (await get('/api/brands/?q=acme', bearer(otherKey))).json();
      assert.deepEqual(names(body), ['Acme Rival']);
    });

    it('needs the brands:read scope', async () => {
      const runsOnly = await mintKey(ctx.dbs.primary, acme, { scopes: ['runs:read'] });
      assert.equal((await get('/api/brands/', bearer(runsOnly))).statusCode, 403);
    });
  });

  describe('GET /api/brands/{brand_id}/', () => {
    it('returns every Brand field, figures worked out by hand', async () => {
      const res = await get(`/api/brands/${ids.a}/`);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), {
        id: String(ids.a),
        name: 'Acme Analytics',
        website: 'https://acme.io',
        // Eligible prompts' latest scores p1 52.5, p2 45, p5 85: 182.5 / 3 = 60.83 → 60.8.
        averageScore: 60.8,
        // Predecessors p1 50, p2 45 (scored once), p5 85: 180 / 3 = 60.
        previousScore: 60,
        hasScoreData: true,
        // c1, c2 (c3 archived).
        categoryCount: 2,
        // p1, p2, p3, p5: p4 is archived, p6 sits in the archived category.
        promptCount: 4,
        // p1, p2, p5: p3 is unmonitored.
        monitoredPromptCount: 3,
        // open, implemented, dismissed.
        recCount: 3,
        // The latest visible run (run5, 03-09) beats updated_at 02-01; the unpublished run3 (03-10) is hidden.
        lastActivity: '2026-03-09T12:00:00.000Z',
        status: 'active',
        hasInFlightRun: true,
        // The running run was created after the queued one.
        runInFlightProgress: {
          runId: String(scored.runs.running),
          categoryId: String(scored.c1),
          completedPrompts: 2,
          totalPrompts: 5,
          startedAt: '2026-03-11T01:00:00.000Z',
        },
        monitoringRefreshInProgress: true,
        mergedInto: {},
        mergedAt: null,
        orgId: String(acme),
        orgName: 'ACME',
        executiveSummary: 'Strong in analytics.',
        executiveSummaryUpdatedAt: '2026-03-02T00:00:00.000Z',
        lastMonitoredRunAt: '2026-03-09T12:00:00.000Z',
        nextMonitoredRunAt: '2026-03-12T00:00:00.000Z',
        nextRunPromptCount: 3,
      });
    });

    it('is the same shape and values as the list item', async () => {
      const detail = (await get(`/api/brands/${ids.a}/`)).json();
      const item = (await get('/api/brands/?monitoring=on')).json().results[0];
      assert.deepEqual(item, detail);
    });

    it('shows a merged brand with what it was merged into and no score data', async () => {
      const body = (await get(`/api/brands/${ids.m}/`)).json();
      assert.deepEqual(body.mergedInto, { id: String(ids.a), name: 'Acme Analytics' });
      assert.equal(body.mergedAt, '2026-02-15T00:00:00.000Z');
      assert.equal(body.status, 'merged');
      // No run at all: activity is the brand's own update.
      assert.equal(body.lastActivity, '2026-04-01T00:00:00.000Z');
      assert.equal(body.lastMonitoredRunAt, null);
      assert.deepEqual([body.averageScore, body.previousScore, body.hasScoreData], [0, 0, false]);
      assert.deepEqual([body.hasInFlightRun, body.monitoringRefreshInProgress], [false, false]);
      assert.deepEqual(body.runInFlightProgress, {});
      assert.deepEqual(
        [body.categoryCount, body.promptCount, body.monitoredPromptCount, body.recCount],
        [0, 0, 0, 0],
      );
      assert.equal(body.nextMonitoredRunAt, null);
      assert.equal(body.executiveSummaryUpdatedAt, null);
    });

    it('serves an archived brand by id', async () => {
      const res = await get(`/api/brands/${ids.x}/`);
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().status, 'archived');
    });

    it('answers 404 for another organization’s brand, an unknown id or a non-integer id', async () => {
      for (const url of [
        `/api/brands/${ids.rival}/`,
        '/api/brands/999999/',
        '/api/brands/abc/',
        '/api/brands/0/',
      ]) {
        const res = await get(url);
        assert.equal(res.statusCode, 404, url);
        assert.deepEqual(res.json(), { detail: 'Not found.' });
      }
      assert.equal((await get(`/api/brands/${ids.a}/`, bearer(otherKey))).statusCode, 404);
    });

    it('works without the trailing slash', async () => {
      assert.equal((await get(`/api/brands/${ids.a}`)).statusCode, 200);
      assert.equal((await get('/api/brands')).statusCode, 200);
    });
  });
});
