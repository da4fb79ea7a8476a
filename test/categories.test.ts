import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, createTestContext, type TestContext } from './support/context.ts';
import { BrandFixture, insertOrg, mintKey } from './support/fixtures.ts';
import { type ScoredBrand, seedScoredBrand } from './support/scored-brand.ts';

describe('categories and prompts endpoints', () => {
  let ctx: TestContext;
  let key: string;
  let otherKey: string;
  let scored: ScoredBrand;
  let demoCategory: number;
  let rivalCategory: number;

  const get = (url: string, headers: Record<string, string> = bearer(key)) =>
    ctx.app.inject({ url, headers });
  const anonymous = (url: string) => ctx.app.inject({ url });

  before(async () => {
    ctx = await createTestContext();
    const orgId = await insertOrg(ctx.dbs.primary, 'acme');
    const otherOrg = await insertOrg(ctx.dbs.primary, 'globex');
    key = await mintKey(ctx.dbs.primary, orgId);
    otherKey = await mintKey(ctx.dbs.primary, otherOrg);
    const db = ctx.dbs.primary;

    // The public demo brand has a fixed id; it is inserted first so that later auto-numbered
    // brands never reach 9 (PostgreSQL's sequence does not move for an explicit id).
    const demo = await BrandFixture.insert(db, orgId, { id: 9, name: 'Demo Brand', is_demo: 1 });
    demoCategory = await demo.category('Demo category');
    await demo.prompt(demoCategory);
    scored = await seedScoredBrand(db, orgId, { name: 'Acme Analytics' });

    const rival = await BrandFixture.insert(db, otherOrg, { name: 'Rival' });
    rivalCategory = await rival.category();
    await rival.prompt(rivalCategory);
  });
  after(() => ctx.close());

  describe('GET /api/brands/{brand_id}/categories/', () => {
    it('lists live categories by name with hand-worked scores (see seedScoredBrand)', async () => {
      const res = await get(`/api/brands/${scored.brandId}/categories/`);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), {
        count: 2,
        next: null,
        previous: null,
        results: [
          {
            id: String(scored.c1),
            brandId: String(scored.brandId),
            name: 'Analytics tools',
            description: 'Core',
            isArchived: false,
            // p1, p2, p3 (p4 is archived).
            promptCount: 3,
            // p1, p2 (p3 is unmonitored).
            monitoredPromptCount: 2,
            // Latest p1 52.5, p2 45: 97.5 / 2 = 48.75 → 48.8; predecessors 50, 45: 47.5.
            averageScore: 48.8,
            previousScore: 47.5,
            hasScoreData: true,
            // run2; the unpublished run3 (03-10) and the running run do not count.
            lastRunAt: '2026-03-08T12:00:00.000Z',
            createdAt: '2026-01-01T00:00:00.000Z',
          },
          {
            id: String(scored.c2),
            brandId: String(scored.brandId),
            name: 'BI platforms',
            description: '',
            isArchived: false,
            promptCount: 1,
            monitoredPromptCount: 1,
            // p5 scored once, in the legacy run4: 85 both ways.
            averageScore: 85,
            previousScore: 85,
            hasScoreData: true,
            lastRunAt: '2026-03-05T12:00:00.000Z',
            createdAt: '2026-01-01T00:00:00.000Z',
          },
        ],
      });
    });

    it('includes archived categories, without score data, only with archived=true', async () => {
      const body = (await get(`/api/brands/${scored.brandId}/categories/?archived=true`)).json();
      assert.equal(body.count, 3);
      assert.deepEqual(
        body.results.map((c: { name: string }) => c.name),
        ['Analytics tools', 'Archived', 'BI platforms'],
      );
      const archived = body.results[1];
      assert.equal(archived.isArchived, true);
      // p6 still sits in it, but nothing in an archived category is eligible for scoring.
      assert.deepEqual(
        [archived.promptCount, archived.monitoredPromptCount, archived.averageScore, archived.previousScore],
        [1, 0, 0, 0],
      );
      assert.equal(archived.hasScoreData, false);
      assert.equal(archived.lastRunAt, '2026-03-09T12:00:00.000Z');
    });

    it('pages with links that keep the other parameters', async () => {
      const first = (await get(`/api/brands/${scored.brandId}/categories/?archived=true&page_size=2`)).json();
      assert.equal(first.results.length, 2);
      assert.deepEqual(Object.fromEntries(new URL(first.next).searchParams), {
        archived: 'true',
        page_size: '2',
        page: '2',
      });
      const last = (
        await get(`/api/brands/${scored.brandId}/categories/?archived=true&page_size=2&page=2`)
      ).json();
      assert.deepEqual(
        last.results.map((c: { name: string }) => c.name),
        ['BI platforms'],
      );
      assert.equal(last.next, null);
      assert.deepEqual(Object.fromEntries(new URL(last.previous).searchParams), {
        archived: 'true',
        page_size: '2',
      });
      const past = await get(`/api/brands/${scored.brandId}/categories/?page=2`);
      assert.equal(past.statusCode, 404);
      assert.deepEqual(past.json(), { detail: 'Invalid page.' });
    });

    it('answers 400 for bad values', async () => {
      const res = await get(`/api/brands/${scored.brandId}/categories/?archived=yes&page_size=x`);
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), {
        archived: ['Must be a valid boolean.'],
        page_size: ['A valid integer is required.'],
      });
    });

    it('answers 404 for another organization’s or an unknown brand, even with a bad query', async () => {
      for (const url of [
        `/api/brands/${scored.brandId}/categories/?archived=yes`,
        `/api/brands/${scored.brandId}/categories/`,
      ]) {
        const res = await get(url, bearer(otherKey));
        assert.equal(res.statusCode, 404, url);
        assert.deepEqual(res.json(), { detail: 'Not found.' });
      }
      assert.equal((await get('/api/brands/424242/categories/?page=0')).statusCode, 404);
      assert.equal((await get('/api/brands/x/categories/')).statusCode, 404);
    });
  });

  describe('the public demo brand', () => {
    it('lists the demo brand’s categories without a key', async () => {
      const res = await anonymous('/api/brands/9/categories/');
      assert.equal(res.statusCode, 200);
      const body = res.json();
      assert.equal(body.count, 1);
      assert.equal(body.results[0].name, 'Demo category');
      assert.equal(body.results[0].brandId, '9');
      assert.equal(res.headers.ratelimit, undefined);
    });

    it('answers a HEAD without a key as it answers the GET, headers and no body', async () => {
      const got = await anonymous('/api/brands/9/categories/');
      const head = await ctx.app.inject({ method: 'HEAD', url: '/api/brands/9/categories/' });
      assert.equal(head.statusCode, 200);
      assert.equal(head.body, '');
      assert.equal(head.headers['content-length'], got.headers['content-length']);
      assert.equal(head.headers['content-type'], got.headers['content-type']);
      const elsewhere = await ctx.app.inject({ method: 'HEAD', url: '/api/brands/' });
      assert.equal(elsewhere.statusCode, 401);
    });

    it('still validates the query of an anonymous request', async () => {
      const res = await anonymous('/api/brands/9/categories/?archived=yes');
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), { archived: ['Must be a valid boolean.'] });
    });

    it('asks for a key everywhere else', async () => {
      for (const url of [
        `/api/brands/${scored.brandId}/categories/`,
        '/api/brands/09/categories/',
        '/api/brands/9/',
        `/api/categories/${demoCategory}/prompts/`,
        '/api/brands/',
      ]) {
        const res = await anonymous(url);
        assert.equal(res.statusCode, 401, url);
        assert.ok(res.json().detail);
      }
    });

    it('asks for a key when brand 9 is not flagged as the demo brand', async () => {
      await ctx.dbs.primary.updateTable('brands').set({ is_demo: 0 }).where('id', '=', 9).execute();
      try {
        const res = await anonymous('/api/brands/9/categories/');
        assert.equal(res.statusCode, 401);
        assert.ok(res.headers['www-authenticate']);
      } finally {
        await ctx.dbs.primary.updateTable('brands').set({ is_demo: 1 }).where('id', '=', 9).execute();
      }
    });

    it('applies the normal rules when a key is sent', async () => {
      assert.equal((await get('/api/brands/9/categories/')).statusCode, 200);
      const other = await get('/api/brands/9/categories/', bearer(otherKey));
      assert.equal(other.statusCode, 404);
      const bad = await get('/api/brands/9/categories/', { authorization: 'Bearer sl_live_nope' });
      assert.equal(bad.statusCode, 401);
    });
  });

  describe('GET /api/categories/{category_id}/prompts/', () => {
    type PromptBody = { id: string; latestScore: number; previousScore: number; hasScoreData: boolean };
    const byId = (results: PromptBody[]) => new Map(results.map((p) => [p.id, p]));

    it('lists a category’s live prompts in creation order, each with its own scores', async () => {
      const res = await get(`/api/categories/${scored.c1}/prompts/`);
      assert.equal(res.statusCode, 200);
      const body = res.json();
      assert.equal(body.count, 3);
      const { p1, p2, p3 } = scored.prompts;
      assert.deepEqual(
        body.results.map((p: PromptBody) => p.id),
        [p1, p2, p3].map(String),
      );
      assert.deepEqual(body.results[0], {
        id: String(p1),
        categoryId: String(scored.c1),
        brandId: String(scored.brandId),
        text: 'Best analytics tool?',
        isMonitored: true,
        isArchived: false,
        // run2 52.5 after run1 50; the unpublished run3 (100) is ignored.
        latestScore: 52.5,
        previousScore: 50,
        hasScoreData: true,
        lastRunId: String(scored.runs.run2),
        lastRunAt: '2026-03-08T12:00:00.000Z',
        createdAt: '2026-01-01T00:00:00.000Z',
      });
      const p2Body = body.results[1];
      // p2's run2 answer was an error, so run1 (45) is both its latest and its only score.
      assert.deepEqual(
        [p2Body.latestScore, p2Body.previousScore, p2Body.lastRunId, p2Body.lastRunAt],
        [45, 45, String(scored.runs.run1), '2026-03-01T12:00:00.000Z'],
      );
      // An unmonitored prompt still shows its own history: 100 in run2.
      const p3Body = body.results[2];
      assert.deepEqual([p3Body.isMonitored, p3Body.latestScore, p3Body.hasScoreData], [false, 100, true]);
    });

    it('includes archived prompts only with archived=true', async () => {
      const body = (await get(`/api/categories/${scored.c1}/prompts/?archived=true`)).json();
      assert.equal(body.count, 4);
      assert.deepEqual(byId(body.results).get(String(scored.prompts.p4)), {
        id: String(scored.prompts.p4),
        categoryId: String(scored.c1),
        brandId: String(scored.brandId),
        text: 'Archived prompt',
        isMonitored: true,
        isArchived: true,
        latestScore: 0,
        previousScore: 0,
        hasScoreData: false,
        lastRunId: null,
        lastRunAt: null,
        createdAt: '2026-01-01T00:00:00.000Z',
      });
    });

    it('reads legacy runs and archived categories too', async () => {
      const legacy = (await get(`/api/categories/${scored.c2}/prompts/`)).json().results[0];
      assert.deepEqual(
        [legacy.latestScore, legacy.previousScore, legacy.lastRunId],
        [85, 85, String(scored.runs.run4)],
      );
      const archived = (await get(`/api/categories/${scored.c3}/prompts/`)).json().results[0];
      assert.deepEqual([archived.latestScore, archived.lastRunId], [100, String(scored.runs.run5)]);
    });

    it('pages, and refuses a page past the end', async () => {
      const first = (await get(`/api/categories/${scored.c1}/prompts/?page_size=2`)).json();
      assert.equal(first.results.length, 2);
      assert.deepEqual(Object.fromEntries(new URL(first.next).searchParams), { page_size: '2', page: '2' });
      const past = await get(`/api/categories/${scored.c1}/prompts/?page_size=2&page=3`);
      assert.equal(past.statusCode, 404);
      assert.deepEqual(past.json(), { detail: 'Invalid page.' });
    });

    it('answers 400 for bad values and 404 for hidden categories first', async () => {
      const bad = await get(`/api/categories/${scored.c1}/prompts/?archived=maybe&page=-1`);
      assert.equal(bad.statusCode, 400);
      assert.deepEqual(bad.json(), {
        archived: ['Must be a valid boolean.'],
        page: ['Ensure this value is greater than or equal to 1.'],
      });
      for (const url of [
        `/api/categories/${rivalCategory}/prompts/`,
        `/api/categories/${rivalCategory}/prompts/?archived=maybe`,
        '/api/categories/777777/prompts/',
        '/api/categories/abc/prompts/',
      ]) {
        const res = await get(url);
        assert.equal(res.statusCode, 404, url);
        assert.deepEqual(res.json(), { detail: 'Not found.' });
      }
    });
  });
});
