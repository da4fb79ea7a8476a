import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Insertable } from 'kysely';
import type { RecommendationArtifactsTable, RecommendationsTable } from '../src/db/types.ts';
import type { Scope } from '../src/domain/scopes.ts';
import { bearer, createTestContext, type TestContext } from './support/context.ts';
import {
  BrandFixture,
  insertOrg,
  insertRecommendationArtifact,
  insertRecommendationOutcome,
  mintKey,
} from './support/fixtures.ts';

// The recommendation list: what it leaves out, its order, and the artifacts and outcomes nested in
// each row, over purpose-built fixtures.

const BASE = 'https://api.sightline.test';
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

type OrgSlug = 'acme' | 'globex' | 'umbrella' | 'hooli' | 'massive' | 'narrow';

// Shown in every row of the list; no case varies them.
const REC_DEFAULTS = {
  rec_type: 'content_gap',
  impact: 0.5,
  effort: 0.25,
  confidence: 0.75,
} satisfies Partial<Insertable<RecommendationsTable>>;

type RecInput = Pick<Insertable<RecommendationsTable>, 'priority' | 'score' | 'status' | 'created_at'> &
  Partial<Insertable<RecommendationsTable>>;

describe('recommendations', () => {
  let ctx: TestContext;
  const keys = {} as Record<OrgSlug, string>;
  let acme: number;
  let brandId: number;
  let emptyBrandId: number;
  let globexBrandId: number;

  const get = (url: string, key = keys.acme) => ctx.app.inject({ url, headers: bearer(key) });

  async function org(slug: OrgSlug, plan: string, scopes?: Scope[]) {
    const id = await insertOrg(ctx.dbs.primary, slug, { plan });
    keys[slug] = await mintKey(ctx.dbs.primary, id, scopes ? { scopes } : {});
    return id;
  }

  const brand = (orgId: number, name: string) => BrandFixture.insert(ctx.dbs.primary, orgId, { name });

  const rec = (b: BrandFixture, n: number, input: RecInput) =>
    b.recommendation(uuid(n), { ...REC_DEFAULTS, title: `Recommendation ${n}`, ...input });

  const artifact = (
    recN: number,
    n: number,
    createdAt: string,
    values: Partial<Insertable<RecommendationArtifactsTable>> = {},
  ) =>
    insertRecommendationArtifact(ctx.dbs.primary, acme, {
      id: uuid(n),
      recommendation_id: uuid(recN),
      title: `Artifact ${n}`,
      body: `Body of artifact ${n}`,
      created_at: createdAt,
      ...values,
    });

  before(async () => {
    ctx = await createTestContext({ publicBaseUrl: BASE });
    acme = await org('acme', 'pro');
    const acmeBrand = await brand(acme, 'Acme');
    brandId = acmeBrand.brandId;
    emptyBrandId = (await brand(acme, 'Acme Empty')).brandId;

    // Listed: r1..r5 and r9. Expected order, by bucket then score desc, created desc, id:
    //   high:   r5 (80, 5 Jan), r2 (80, 2 Jan), r1 (50)
    //   medium: r3 (99, 3 Jan, id …03), r9 (99, 3 Jan, id …09): a full tie falls to the id
    //   low:    r4 (10)
    const jan = (day: number) => `2026-01-0${day}T12:00:00.000Z`;
    await rec(acmeBrand, 1, { priority: 'high', score: 50, status: 'open', created_at: jan(1) });
    await rec(acmeBrand, 2, { priority: 'high', score: 80, status: 'in_progress', created_at: jan(2) });
    await rec(acmeBrand, 3, {
      priority: 'medium',
      score: 99,
      status: 'implemented',
      created_at: jan(3),
      why: 'Competitors own the comparison queries.',
      suggested_action: 'Publish a comparison page.',
      expected_impact: '+5 points of mention rate',
      measurement_plan: 'Mention rate on comparison prompts over 30 days.',
      started_at: '2026-01-10T00:00:00.000Z',
      implemented_at: '2026-01-20T00:00:00.000Z',
      updated_at: '2026-01-20T00:00:00.000Z',
    });
    await rec(acmeBrand, 4, {
      priority: 'low',
      score: 10,
      status: 'dismissed',
      created_at: jan(4),
      dismissed_at: '2026-01-05T00:00:00.000Z',
      dismissed_reason: 'Not relevant to our market.',
    });
    await rec(acmeBrand, 5, { priority: 'high', score: 80, status: 'open', created_at: jan(5) });
    await rec(acmeBrand, 9, { priority: 'medium', score: 99, status: 'open', created_at: jan(3) });
    // Left out: superseded by status, superseded by date alone, soft-deleted.
    const top = { priority: 'high', score: 100, created_at: jan(6) };
    await rec(acmeBrand, 6, { ...top, status: 'superseded', superseded_at: jan(7) });
    await rec(acmeBrand, 7, { ...top, status: 'open', superseded_at: jan(7) });
    await rec(acmeBrand, 8, { ...top, status: 'open', deleted_at: jan(7) });

    // r2 has two artifacts (listed oldest first), r3 one (published), the excluded r6 one.
    await artifact(2, 102, '2026-01-12T00:00:00.000Z');
    await artifact(2, 101, '2026-01-11T00:00:00.000Z');
    await artifact(3, 103, '2026-01-15T00:00:00.000Z', {
      target_url: 'https://acme.test/compare',
      status: 'published',
      generated_by_model: 'gpt-4o',
      generation_prompt_version: 'v7',
      published_at: '2026-01-18T00:00:00.000Z',
    });
    await artifact(6, 106, '2026-01-15T00:00:00.000Z');
    await insertRecommendationOutcome(ctx.dbs.primary, acme, {
      id: uuid(203),
      recommendation_id: uuid(3),
      metric_name: 'mention_rate',
      metric_subject: 'comparison prompts',
      baseline_value: 0.25,
      current_value: 0.4,
      baseline_at: '2026-01-20T00:00:00.000Z',
      measured_at: '2026-02-19T00:00:00.000Z',
      measurement_window_days: 30,
      attribution_confidence: 'medium',
      is_measured: 1,
      notes: 'Measured after publication.',
    });

    const globex = await org('globex', 'pro');
    const globexBrand = await brand(globex, 'Globex');
    globexBrandId = globexBrand.brandId;
    await rec(globexBrand, 50, { priority: 'high', score: 1, status: 'open', created_at: jan(1) });
    await org('umbrella', 'starter');
    await org('hooli', 'free');
    await org('massive', 'enterprise');
    await org('narrow', 'pro', ['reports:read']);
  });
  after(() => ctx.close());

  const ids = (body: { results: { id: string }[] }) => body.results.map((r) => r.id);

  it('lists by priority bucket, then score, then newest, then id; superseded and deleted rows left out', async () => {
    const res = await get(`/api/brands/${brandId}/recommendations/`);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.count, 6);
    assert.equal(body.next, null);
    assert.equal(body.previous, null);
    assert.deepEqual(ids(body), [uuid(5), uuid(2), uuid(1), uuid(3), uuid(9), uuid(4)]);
  });

  it('nests artifacts and outcomes, every field of the contract', async () => {
    const body = (await get(`/api/brands/${brandId}/recommendations/`)).json();
    const r3 = body.results.find((r: { id: string }) => r.id === uuid(3));
    assert.deepEqual(r3, {
      id: uuid(3),
      recType: 'content_gap',
      title: 'Recommendation 3',
      status: 'implemented',
      priority: 'medium',
      score: 99,
      why: 'Competitors own the comparison queries.',
      suggestedAction: 'Publish a comparison page.',
      expectedImpact: '+5 points of mention rate',
      measurementPlan: 'Mention rate on comparison prompts over 30 days.',
      scoreBreakdown: { impact: 0.5, effort: 0.25, confidence: 0.75 },
      startedAt: '2026-01-10T00:00:00.000Z',
      implementedAt: '2026-01-20T00:00:00.000Z',
      dismissedAt: null,
      supersededAt: null,
      dismissedReason: '',
      createdAt: '2026-01-03T12:00:00.000Z',
      updatedAt: '2026-01-20T00:00:00.000Z',
      artifacts: [
        {
          id: uuid(103),
          artifactType: 'faq_page',
          title: 'Artifact 103',
          body: 'Body of artifact 103',
          targetUrl: 'https://acme.test/compare',
          status: 'published',
          generatedByModel: 'gpt-4o',
          generationPromptVersion: 'v7',
          publishedAt: '2026-01-18T00:00:00.000Z',
          createdAt: '2026-01-15T00:00:00.000Z',
          updatedAt: '2026-01-15T00:00:00.000Z',
        },
      ],
      outcomes: [
        {
          id: uuid(203),
          metricName: 'mention_rate',
          metricSubject: 'comparison prompts',
          baselineValue: 0.25,
          currentValue: 0.4,
          baselineAt: '2026-01-20T00:00:00.000Z',
          measuredAt: '2026-02-19T00:00:00.000Z',
          measurementWindowDays: 30,
          attributionConfidence: 'medium',
          isMeasured: true,
          notes: 'Measured after publication.',
        },
      ],
    });
    const r2 = body.results.find((r: { id: string }) => r.id === uuid(2));
    assert.deepEqual(
      r2.artifacts.map((a: { id: string }) => a.id),
      [uuid(101), uuid(102)],
    );
    assert.deepEqual(r2.outcomes, []);
    const r4 = body.results.find((r: { id: string }) => r.id === uuid(4));
    assert.equal(r4.dismissedReason, 'Not relevant to our market.');
    assert.equal(r4.dismissedAt, '2026-01-05T00:00:00.000Z');
    assert.equal(r4.startedAt, null);
    assert.deepEqual(r4.artifacts, []);
  });

  it('pages keep the order and nest only their own rows', async () => {
    const pages = [];
    for (const page of [1, 2, 3]) {
      const body = (await get(`/api/brands/${brandId}/recommendations/?page_size=2&page=${page}`)).json();
      assert.equal(body.count, 6);
      pages.push(ids(body));
      if (page === 2) {
        assert.equal(body.next, `${BASE}/api/brands/${brandId}/recommendations/?page_size=2&page=3`);
        assert.equal(body.previous, `${BASE}/api/brands/${brandId}/recommendations/?page_size=2`);
        // r1 has no artifacts; r3 has exactly its own one.
        assert.deepEqual(
          body.results.map((r: { artifacts: unknown[] }) => r.artifacts.length),
          [0, 1],
        );
      }
    }
    assert.deepEqual(pages, [
      [uuid(5), uuid(2)],
      [uuid(1), uuid(3)],
      [uuid(9), uuid(4)],
    ]);
    const past = await get(`/api/brands/${brandId}/recommendations/?page_size=2&page=4`);
    assert.equal(past.statusCode, 404);
    assert.deepEqual(past.json(), { detail: 'Invalid page.' });
  });

  it('a brand without recommendations is an empty page', async () => {
    const res = await get(`/api/brands/${emptyBrandId}/recommendations/`);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { count: 0, next: null, previous: null, results: [] });
  });

  it('needs the pro plan or higher: 403 naming the plan for starter and free', async () => {
    for (const [slug, plan] of [
      ['umbrella', 'starter'],
      ['hooli', 'free'],
    ] as const) {
      const res = await get(`/api/brands/${brandId}/recommendations/`, keys[slug]);
      assert.equal(res.statusCode, 403, slug);
      assert.deepEqual(res.json(), {
        detail: `This endpoint requires the pro plan or higher; the organization is on ${plan}.`,
      });
    }
    // Enterprise passes the plan gate; acme's brand is not its own, so it is simply not found.
    const enterprise = await get(`/api/brands/${brandId}/recommendations/`, keys.massive);
    assert.equal(enterprise.statusCode, 404);
  });

  it('needs the brands:read scope', async () => {
    const res = await get(`/api/brands/${brandId}/recommendations/`, keys.narrow);
    assert.equal(res.statusCode, 403);
    assert.deepEqual(res.json(), { detail: 'This API key lacks the required scope: brands:read.' });
  });

  it("answers 404 for another organization's brand, even with a bad query string", async () => {
    for (const query of ['', '?page=abc', '?page_size=0&page=-1']) {
      const res = await get(`/api/brands/${globexBrandId}/recommendations/${query}`);
      assert.equal(res.statusCode, 404, query);
      assert.deepEqual(res.json(), { detail: 'Not found.' }, query);
    }
    for (const id of ['abc', '0', '99999999999999999999']) {
      assert.equal((await get(`/api/brands/${id}/recommendations/`)).statusCode, 404, id);
    }
  });

  it('answers bad paging values with 400 field errors', async () => {
    const cases: [string, Record<string, string[]>][] = [
      ['page=0', { page: ['Ensure this value is greater than or equal to 1.'] }],
      ['page=1.5', { page: ['A valid integer is required.'] }],
      ['page_size=abc', { page_size: ['A valid integer is required.'] }],
    ];
    for (const [query, expected] of cases) {
      const res = await get(`/api/brands/${brandId}/recommendations/?${query}`);
      assert.equal(res.statusCode, 400, query);
      assert.deepEqual(res.json(), expected, query);
    }
  });
});
