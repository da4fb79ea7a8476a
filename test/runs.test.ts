import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { refreshRunPromptScores } from '../src/analytics/refresh.ts';
import { bearer, createTestContext, type TestContext } from './support/context.ts';
import { type Answer, BrandFixture, insertOrg, mintKey } from './support/fixtures.ts';

// Small purpose-built fixtures. Organization "acme" owns brand Acme with categories CRM (prompts
// P1, P2; competitors Rival, Other Co, Zeta Corp) and Support (prompt P3). Runs, in insert order:
//   published  CRM      completed, published, finished 03-01  (5 responses, the detail fixture)
//   legacy     CRM      completed, legacy,    finished 03-02
//   hidden     CRM      completed, neither legacy nor published, finished 03-03
//   running    CRM      running, not finished
//   support    Support  completed, published, finished 03-02 (same time as legacy, larger id)
//   failed     CRM      failed
// Organization "other" owns one published run with one response.

const T0 = '2026-01-01T00:00:00.000Z';

describe('runs and responses', () => {
  let ctx: TestContext;
  let key: string;
  const ids = {} as Record<
    | 'org'
    | 'otherOrg'
    | 'brand'
    | 'crm'
    | 'support'
    | 'p1'
    | 'p2'
    | 'p3'
    | 'rival'
    | 'otherCo'
    | 'zeta'
    | 'published'
    | 'legacy'
    | 'hidden'
    | 'running'
    | 'supportRun'
    | 'failed'
    | 'otherRun'
    | 'otherResponse'
    | 'hiddenResponse',
    number
  >;
  const resp: number[] = [];
  let acme: BrandFixture;

  // This suite's conventions on top of the builder: websites and canonical names derived from
  // the name, runs created and started at T0, answers captured on 28 February, and citation
  // domains without "www.".
  const brand = (orgId: number, name: string) =>
    BrandFixture.insert(ctx.dbs.primary, orgId, { name, website: `https://${name.toLowerCase()}.com` });

  const competitor = (b: BrandFixture, categoryId: number, name: string) =>
    b.competitor(categoryId, name, {
      canonicalKey: name.toLowerCase().replace(/\W+/g, '-'),
      canonicalName: `${name} Inc.`,
    });

  const run = (
    b: BrandFixture,
    categoryId: number,
    values: {
      status: string;
      isLegacy?: boolean;
      publishedAt?: string;
      finishedAt?: string;
      promptIds?: number[];
    },
  ) =>
    b.run({
      category: categoryId,
      status: values.status,
      legacy: values.isLegacy,
      published: values.publishedAt ?? false,
      finishedAt: values.finishedAt,
      prompts: values.promptIds ?? [],
      columns: { started_at: T0, created_at: T0 },
    });

  const response = (
    b: BrandFixture,
    runId: number,
    promptId: number,
    values: Omit<Answer, 'prompt' | 'citations'> & { model: string; citations?: string[] },
  ) =>
    b.response(runId, {
      modelLabel: values.model.toUpperCase(),
      text: `Answer of ${values.model}`,
      capturedAt: '2026-02-28T12:00:00.000Z',
      createdAt: T0,
      ...values,
      prompt: promptId,
      citations: values.citations?.map((url) => ({
        url,
        domain: new URL(url).hostname.replace(/^www\./, ''),
      })),
    });

  const get = (url: string, apiKey = key) => ctx.app.inject({ url, headers: bearer(apiKey) });

  before(async () => {
    ctx = await createTestContext();
    ids.org = await insertOrg(ctx.dbs.primary, 'acme');
    ids.otherOrg = await insertOrg(ctx.dbs.primary, 'other');
    key = await mintKey(ctx.dbs.primary, ids.org);
    const o = ids.org;

    acme = await brand(o, 'Acme');
    ids.brand = acme.brandId;
    ids.crm = await acme.category('CRM');
    ids.support = await acme.category('Support');
    ids.p1 = await acme.prompt(ids.crm, { text: 'best crm' });
    ids.p2 = await acme.prompt(ids.crm, { text: 'cheap crm' });
    ids.p3 = await acme.prompt(ids.support, { text: 'helpdesk' });
    ids.rival = await competitor(acme, ids.crm, 'Rival');
    ids.otherCo = await competitor(acme, ids.crm, 'Other Co');
    ids.zeta = await competitor(acme, ids.crm, 'Zeta Corp');

    ids.published = await run(acme, ids.crm, {
      status: 'completed',
      publishedAt: '2026-03-01T11:00:00.000Z',
      finishedAt: '2026-03-01T10:00:00.000Z',
      promptIds: [ids.p1, ids.p2],
    });
    resp.push(
      await response(acme, ids.published, ids.p1, {
        model: 'gpt',
        weight: 2,
        mentioned: true,
        rank: 1,
        sentiment: 'positive',
        text: 'Acme is best',
        html: '<p>Acme is best</p>',
        citations: ['https://www.x.com/a', 'https://y.com/b'],
        mentions: [
          { competitor: ids.rival, rank: 2 },
          // The brand's own mention row must not count twice: the brand reads the response row.
          { competitor: null, rank: 1, isBrand: true },
        ],
      }),
      await response(acme, ids.published, ids.p1, {
        model: 'perplexity',
        mentioned: true,
        rank: null,
        sentiment: 'neutral',
        citations: ['https://x.com/c'],
        mentions: [{ competitor: ids.otherCo, rank: 1 }],
      }),
      await response(acme, ids.published, ids.p2, {
        model: 'gpt',
        mentioned: false,
        // Stale values on a row that does not mention the brand: the API shows null for both.
        rank: 3,
        sentiment: 'negative',
        citations: ['https://z.com/1'],
        mentions: [
          { competitor: ids.rival, rank: 4 },
          { competitor: ids.rival, rank: 1 },
        ],
      }),
      await response(acme, ids.published, ids.p2, {
        model: 'perplexity',
        outcome: 'error',
        text: '',
        citations: ['https://err.com/'],
        mentions: [{ competitor: ids.rival, rank: 1 }],
      }),
      await response(acme, ids.published, ids.p2, {
        model: 'gemini',
        mentioned: true,
        rank: 3,
        sentiment: 'positive',
        text: null,
      }),
    );

    ids.legacy = await run(acme, ids.crm, {
      status: 'completed',
      isLegacy: true,
      finishedAt: '2026-03-02T10:00:00.000Z',
      promptIds: [ids.p1],
    });
    await response(acme, ids.legacy, ids.p1, { model: 'gpt', mentioned: true, rank: null });

    ids.hidden = await run(acme, ids.crm, {
      status: 'completed',
      finishedAt: '2026-03-03T10:00:00.000Z',
      promptIds: [ids.p1],
    });
    ids.hiddenResponse = await response(acme, ids.hidden, ids.p1, { model: 'gpt', mentioned: true, rank: 1 });

    ids.running = await run(acme, ids.crm, { status: 'running', promptIds: [ids.p1, ids.p2] });
    ids.supportRun = await run(acme, ids.support, {
      status: 'completed',
      publishedAt: '2026-03-02T11:00:00.000Z',
      finishedAt: '2026-03-02T10:00:00.000Z',
      promptIds: [ids.p3],
    });
    ids.failed = await run(acme, ids.crm, {
      status: 'failed',
      finishedAt: '2026-03-04T10:00:00.000Z',
    });

    for (const runId of [ids.published, ids.legacy, ids.hidden, ids.running, ids.supportRun, ids.failed]) {
      await refreshRunPromptScores(ctx.dbs.primary, o, runId);
    }

    const globex = await brand(ids.otherOrg, 'Globex');
    const otherCategory = await globex.category('CRM');
    const otherPrompt = await globex.prompt(otherCategory, { text: 'crm' });
    ids.otherRun = await run(globex, otherCategory, {
      status: 'completed',
      publishedAt: '2026-03-01T11:00:00.000Z',
      finishedAt: '2026-03-01T10:00:00.000Z',
      promptIds: [otherPrompt],
    });
    ids.otherResponse = await response(globex, ids.otherRun, otherPrompt, {
      model: 'gpt',
      mentioned: true,
    });
    await refreshRunPromptScores(ctx.dbs.primary, ids.otherOrg, ids.otherRun);
  });
  after(() => ctx.close());

  describe('run lists', () => {
    it('lists visible completed runs of a brand newest first, with hand-worked scores', async () => {
      const res = await get(`/api/brands/${ids.brand}/runs/`);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), {
        count: 3,
        next: null,
        previous: null,
        results: [
          // Same finish time as the legacy run; the larger id comes first. No response: no score.
          {
            id: String(ids.supportRun),
            timestamp: '2026-03-02T10:00:00.000Z',
            score: null,
            status: 'completed',
            categoryId: String(ids.support),
          },
          // One answer mentioning the brand without a rank: 100 · 0.5 = 50.
          {
            id: String(ids.legacy),
            timestamp: '2026-03-02T10:00:00.000Z',
            score: 50,
            status: 'completed',
            categoryId: String(ids.crm),
          },
          // P1: (2·1 + 1·0.5) / 3 · 100 = 83.33; P2 (the error row is unusable): (1·0 + 1·0.7) / 2 · 100
          // = 35 (rank 3 → 1 − 0.15·2 = 0.7). Run: (83.333 + 35) / 2 = 59.1667 → 59.2.
          {
            id: String(ids.published),
            timestamp: '2026-03-01T10:00:00.000Z',
            score: 59.2,
            status: 'completed',
            categoryId: String(ids.crm),
          },
        ],
      });
    });

    it('lists a category, leaving out hidden, in-flight and failed runs', async () => {
      const crm = await get(`/api/categories/${ids.crm}/runs/`);
      assert.equal(crm.statusCode, 200);
      assert.deepEqual(
        crm.json().results.map((r: { id: string }) => r.id),
        [String(ids.legacy), String(ids.published)],
      );
      const support = await get(`/api/categories/${ids.support}/runs/`);
      assert.deepEqual(
        support.json().results.map((r: { id: string }) => r.id),
        [String(ids.supportRun)],
      );
    });

    it('pages with absolute links that keep the other parameters', async () => {
      const first = await get(`/api/brands/${ids.brand}/runs/?page_size=2`);
      assert.equal(first.statusCode, 200);
      const body = first.json();
      assert.equal(body.count, 3);
      assert.equal(body.results.length, 2);
      assert.equal(body.next, `http://localhost:80/api/brands/${ids.brand}/runs/?page_size=2&page=2`);
      assert.equal(body.previous, null);
      const second = await get(`/api/brands/${ids.brand}/runs/?page_size=2&page=2`);
      assert.deepEqual(
        second.json().results.map((r: { id: string }) => r.id),
        [String(ids.published)],
      );
      assert.equal(second.json().next, null);
      assert.equal(second.json().previous, `http://localhost:80/api/brands/${ids.brand}/runs/?page_size=2`);
    });

    it('accepts a page_size above the maximum and refuses a page past the end', async () => {
      const clamped = await get(`/api/brands/${ids.brand}/runs/?page_size=1000`);
      assert.equal(clamped.statusCode, 200);
      assert.equal(clamped.json().results.length, 3);
      const past = await get(`/api/brands/${ids.brand}/runs/?page=2`);
      assert.equal(past.statusCode, 404);
      assert.deepEqual(past.json(), { detail: 'Invalid page.' });
    });

    it('answers 400 in the field-error shape for bad paging values', async () => {
      const res = await get(`/api/brands/${ids.brand}/runs/?page=0&page_size=abc`);
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), {
        page: ['Ensure this value is greater than or equal to 1.'],
        page_size: ['A valid integer is required.'],
      });
    });

    it('answers 404 for another organization or a non-integer id, even with a bad query', async () => {
      const otherBrand = await ctx.dbs.primary
        .selectFrom('brands')
        .select('id')
        .where('org_id', '=', ids.otherOrg)
        .executeTakeFirstOrThrow();
      for (const url of [
        `/api/brands/${otherBrand.id}/runs/?page=abc`,
        `/api/brands/999999/runs/`,
        '/api/brands/abc/runs/',
        '/api/categories/1.5/runs/?page=0',
      ]) {
        const res = await get(url);
        assert.equal(res.statusCode, 404, url);
        assert.deepEqual(res.json(), { detail: 'Not found.' }, url);
      }
    });
  });

  describe('run status', () => {
    it('answers exactly the four status fields for an in-flight run', async () => {
      const res = await get(`/api/runs/${ids.running}/status/`);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), {
        id: String(ids.running),
        status: 'running',
        pollUrl: `/api/runs/${ids.running}/`,
        finishedAt: null,
      });
    });

    it('answers for completed and failed runs, and 404 for a hidden one', async () => {
      const done = await get(`/api/runs/${ids.published}/status`);
      assert.deepEqual(done.json(), {
        id: String(ids.published),
        status: 'completed',
        pollUrl: `/api/runs/${ids.published}/`,
        finishedAt: '2026-03-01T10:00:00.000Z',
      });
      assert.equal((await get(`/api/runs/${ids.failed}/status/`)).json().status, 'failed');
      const hidden = await get(`/api/runs/${ids.hidden}/status/`);
      assert.equal(hidden.statusCode, 404);
      assert.deepEqual(hidden.json(), { detail: 'Not found.' });
    });
  });

  describe('run detail', () => {
    // Usable answers (outcome ok): #1 w2 brand rank 1, Rival rank 2, cites x.com y.com; #2 w1 brand
    // unranked, Other Co rank 1, cites x.com; #3 w1 brand absent, Rival ranks 4 and 1 (best: 1),
    // cites z.com; #5 w1 brand rank 3, no citations. Total weight 5. #4 (error) counts nowhere.
    const expectedCompetitors = () => [
      {
        id: String(ids.brand),
        categoryId: String(ids.crm),
        name: 'Acme',
        // 2 + 1 + 1
        mentions: 4,
        // ranked: rank 1 at w2, rank 3 at w1: (2 + 3) / 3 = 1.6667 → 1.67
        averageRank: 1.67,
        // (2·1 + 1·0.5 + 1·0.7) / 5 · 100 = 64
        score: 64,
        isUserBrand: true,
        sourceBreakdown: [
          { domain: 'x.com', count: 2 },
          { domain: 'y.com', count: 1 },
        ],
        canonicalKey: 'acme',
        canonicalName: 'Acme',
      },
      {
        id: String(ids.rival),
        categoryId: String(ids.crm),
        name: 'Rival',
        // 2 + 1
        mentions: 3,
        // (2·2 + 1·1) / 3 = 1.6667 → 1.67
        averageRank: 1.67,
        // rank 2 → 0.85: (2·0.85 + 1·1) / 5 · 100 = 54
        score: 54,
        isUserBrand: false,
        sourceBreakdown: [
          { domain: 'x.com', count: 1 },
          { domain: 'y.com', count: 1 },
          { domain: 'z.com', count: 1 },
        ],
        canonicalKey: 'rival',
        canonicalName: 'Rival Inc.',
      },
      {
        id: String(ids.otherCo),
        categoryId: String(ids.crm),
        name: 'Other Co',
        mentions: 1,
        averageRank: 1,
        // 1·1 / 5 · 100 = 20
        score: 20,
        isUserBrand: false,
        sourceBreakdown: [{ domain: 'x.com', count: 1 }],
        canonicalKey: 'other-co',
        canonicalName: 'Other Co Inc.',
      },
      {
        id: String(ids.zeta),
        categoryId: String(ids.crm),
        name: 'Zeta Corp',
        mentions: 0,
        averageRank: null,
        score: 0,
        isUserBrand: false,
        sourceBreakdown: [],
        canonicalKey: 'zeta-corp',
        canonicalName: 'Zeta Corp Inc.',
      },
    ];
    // x.com from #1 and #2, y.com from #1, z.com from #3; err.com belongs to the error row.
    const expectedSources = [
      { domain: 'x.com', count: 2 },
      { domain: 'y.com', count: 1 },
      { domain: 'z.com', count: 1 },
    ];

    it('walks responsesNext collecting every response once, with whole-run aggregates on every page', async () => {
      let path: string | null = `/api/runs/${ids.published}/?page_size=2`;
      const seen: string[] = [];
      const pages: number[] = [];
      while (path) {
        const res = await get(path);
        assert.equal(res.statusCode, 200, path);
        const body = res.json();
        assert.equal(body.responsesCount, 5);
        assert.equal(body.responsesPageSize, 2);
        assert.deepEqual(body.competitors, expectedCompetitors());
        assert.deepEqual(body.sources, expectedSources);
        assert.deepEqual(body.promptIds, [String(ids.p1), String(ids.p2)]);
        pages.push(body.responsesPage);
        seen.push(...body.responses.map((r: { id: string }) => r.id));
        path = body.responsesNext;
      }
      assert.deepEqual(pages, [1, 2, 3]);
      assert.deepEqual(seen, resp.map(String));
    });

    it('serves the run fields and light responses', async () => {
      const res = await get(`/api/runs/${ids.published}/?page=2&page_size=2`);
      const body = res.json();
      assert.deepEqual(Object.keys(body).sort(), [
        'brandId',
        'categoryId',
        'competitors',
        'finishedAt',
        'id',
        'pollUrl',
        'promptIds',
        'responses',
        'responsesCount',
        'responsesNext',
        'responsesPage',
        'responsesPageSize',
        'sources',
        'status',
      ]);
      assert.equal(body.id, String(ids.published));
      assert.equal(body.status, 'completed');
      assert.equal(body.pollUrl, `/api/runs/${ids.published}/`);
      assert.equal(body.finishedAt, '2026-03-01T10:00:00.000Z');
      assert.equal(body.brandId, String(ids.brand));
      assert.equal(body.categoryId, String(ids.crm));
      assert.equal(body.responsesNext, `/api/runs/${ids.published}/?page=3&page_size=2`);
      assert.deepEqual(body.responses, [
        {
          id: String(resp[2]),
          promptId: String(ids.p2),
          runId: String(ids.published),
          model: 'gpt',
          modelLabel: 'GPT',
          surface: 'api',
          mentioned: false,
          sentiment: null,
          rank: null,
          sources: ['https://z.com/1'],
          sampleCount: 1,
          timestamp: '2026-02-28T12:00:00.000Z',
          hasText: true,
          textLength: 'Answer of gpt'.length,
        },
        {
          id: String(resp[3]),
          promptId: String(ids.p2),
          runId: String(ids.published),
          model: 'perplexity',
          modelLabel: 'PERPLEXITY',
          surface: 'api',
          mentioned: false,
          sentiment: null,
          rank: null,
          sources: ['https://err.com/'],
          sampleCount: 1,
          timestamp: '2026-02-28T12:00:00.000Z',
          hasText: false,
          textLength: 0,
        },
      ]);
      const first = (await get(`/api/runs/${ids.published}/?page_size=1`)).json().responses[0];
      assert.equal(first.rank, 1);
      assert.equal(first.sentiment, 'positive');
      assert.equal(first.sampleCount, 2);
      assert.deepEqual(first.sources, ['https://www.x.com/a', 'https://y.com/b']);
    });

    it('defaults to 200 per page and clamps page_size to 500', async () => {
      const plain = (await get(`/api/runs/${ids.published}/`)).json();
      assert.equal(plain.responsesPage, 1);
      assert.equal(plain.responsesPageSize, 200);
      assert.equal(plain.responses.length, 5);
      assert.equal(plain.responsesNext, null);
      const clamped = (await get(`/api/runs/${ids.published}/?page_size=100000`)).json();
      assert.equal(clamped.responsesPageSize, 500);
      assert.equal(clamped.responsesNext, null);
    });

    it('serves at most 500 responses per page', async () => {
      const big = await run(acme, ids.support, { status: 'running' });
      for (let n = 0; n < 501; n++) {
        await acme.response(big, {
          prompt: ids.p3,
          model: `m${n}`,
          modelLabel: `M${n}`,
          text: 'text',
          capturedAt: T0,
          createdAt: T0,
        });
      }
      const first = (await get(`/api/runs/${big}/?page_size=501`)).json();
      assert.equal(first.responsesCount, 501);
      assert.equal(first.responsesPageSize, 500);
      assert.equal(first.responses.length, 500);
      assert.equal(first.responsesNext, `/api/runs/${big}/?page=2&page_size=500`);
      const second = (await get(first.responsesNext)).json();
      assert.deepEqual(
        second.responses.map((r: { model: string }) => r.model),
        ['m500'],
      );
      assert.equal(second.responsesNext, null);
    });

    it('refuses a page past the end, but serves page 1 of a run without responses', async () => {
      const past = await get(`/api/runs/${ids.published}/?page=4&page_size=2`);
      assert.equal(past.statusCode, 404);
      assert.deepEqual(past.json(), { detail: 'Invalid page.' });

      const running = await get(`/api/runs/${ids.running}/`);
      assert.equal(running.statusCode, 200);
      const body = running.json();
      assert.equal(body.status, 'running');
      assert.equal(body.finishedAt, null);
      assert.deepEqual(body.responses, []);
      assert.equal(body.responsesCount, 0);
      assert.equal(body.responsesNext, null);
      assert.deepEqual(body.sources, []);
      // No usable answer yet: every entity is listed with no score.
      assert.deepEqual(
        body.competitors.map((c: { name: string; mentions: number; score: number | null }) => [
          c.name,
          c.mentions,
          c.score,
        ]),
        [
          ['Acme', 0, null],
          ['Other Co', 0, null],
          ['Rival', 0, null],
          ['Zeta Corp', 0, null],
        ],
      );
      assert.equal((await get(`/api/runs/${ids.running}/?page=2`)).statusCode, 404);
    });

    it('answers 400 for bad paging values on a visible run', async () => {
      const res = await get(`/api/runs/${ids.published}/?page=abc`);
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), { page: ['A valid integer is required.'] });
    });

    it('answers 404 for hidden, other-organization and non-integer runs, even with a bad query', async () => {
      for (const url of [
        `/api/runs/${ids.hidden}/`,
        `/api/runs/${ids.hidden}/?page=abc`,
        `/api/runs/${ids.otherRun}/?page_size=-1`,
        `/api/runs/${ids.otherRun}/status/`,
        '/api/runs/abc/',
        '/api/runs/0/status/',
        '/api/runs/99999999999999999999/',
      ]) {
        const res = await get(url);
        assert.equal(res.statusCode, 404, url);
        assert.deepEqual(res.json(), { detail: 'Not found.' }, url);
      }
    });
  });

  describe('full response', () => {
    it('includes the answer text and leaves out the HTML unless asked', async () => {
      const res = await get(`/api/responses/${resp[0]}/`);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), {
        id: String(resp[0]),
        promptId: String(ids.p1),
        runId: String(ids.published),
        model: 'gpt',
        modelLabel: 'GPT',
        surface: 'api',
        mentioned: true,
        sentiment: 'positive',
        rank: 1,
        sources: ['https://www.x.com/a', 'https://y.com/b'],
        sampleCount: 2,
        timestamp: '2026-02-28T12:00:00.000Z',
        answerText: 'Acme is best',
      });
      const off = (await get(`/api/responses/${resp[0]}/?includeHtml=false`)).json();
      assert.equal('answerHtml' in off, false);
    });

    it('adds answerHtml with includeHtml=true, empty strings when nothing was stored', async () => {
      const on = (await get(`/api/responses/${resp[0]}/?includeHtml=true`)).json();
      assert.equal(on.answerHtml, '<p>Acme is best</p>');
      assert.equal(on.answerText, 'Acme is best');
      const bare = (await get(`/api/responses/${resp[4]}/?includeHtml=true`)).json();
      assert.equal(bare.answerText, '');
      assert.equal(bare.answerHtml, '');
      assert.equal(bare.rank, 3);
      assert.deepEqual(bare.sources, []);
    });

    it('answers 400 for an invalid includeHtml', async () => {
      const res = await get(`/api/responses/${resp[0]}/?includeHtml=yes`);
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), { includeHtml: ['Must be a valid boolean.'] });
    });

    it('answers 404 for a hidden run, another organization or a non-integer id, even with a bad query', async () => {
      for (const url of [
        `/api/responses/${ids.hiddenResponse}/`,
        `/api/responses/${ids.hiddenResponse}/?includeHtml=yes`,
        `/api/responses/${ids.otherResponse}/?includeHtml=yes`,
        `/api/responses/${ids.otherResponse}/`,
        '/api/responses/x1/',
        '/api/responses/-3/',
      ]) {
        const res = await get(url);
        assert.equal(res.statusCode, 404, url);
        assert.deepEqual(res.json(), { detail: 'Not found.' }, url);
      }
    });
  });

  it('requires the runs:read scope', async () => {
    const brandsOnly = await mintKey(ctx.dbs.primary, ids.org, { scopes: ['brands:read'] });
    for (const url of [
      `/api/brands/${ids.brand}/runs/`,
      `/api/runs/${ids.published}/`,
      `/api/responses/${resp[0]}/`,
    ]) {
      const res = await get(url, brandsOnly);
      assert.equal(res.statusCode, 403, url);
      assert.match(res.json().detail, /runs:read/);
    }
  });
});
