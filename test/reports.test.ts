import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Scope } from '../src/domain/scopes.ts';
import { bearer, createTestContext, type TestContext } from './support/context.ts';
import {
  BrandFixture,
  insertBrand,
  insertOrg,
  insertReportArtifact,
  insertReportFile,
  insertUser,
  mintKey,
} from './support/fixtures.ts';

// Report artifacts, their permissions and downloads, over purpose-built fixtures.

const BASE = 'https://api.sightline.test';
// Bytes a text round trip would damage: NUL, 0xFF and a non-UTF-8 sequence inside a PDF shell.
const PDF = Buffer.concat([
  Buffer.from('%PDF-1.4\n'),
  Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x0a]),
  Buffer.from('%%EOF\n'),
]);
// Non-ASCII text: 'é' and '—' take 2 and 3 bytes, so Content-Length must count bytes, not characters.
const HTML = Buffer.from('<!doctype html><title>Résumé — Acme</title><p>Café</p>\n', 'utf8');

type OrgSlug = 'acme' | 'globex' | 'hooli' | 'pied' | 'umbrella' | 'massive' | 'narrow';
type Fixture =
  | 'brand'
  | 'other'
  | 'demo'
  | 'c1'
  | 'c2'
  | 'otherCategory'
  | 'a1'
  | 'a2'
  | 'a3'
  | 'a4'
  | 'a5'
  | 'b1'
  | 'globexBrand'
  | 'g1'
  | 'hooliBrand'
  | 'hooliDemo'
  | 'h1'
  | 'piedBrand'
  | 'p1'
  | 'umbrellaBrand'
  | 'massiveBrand';

describe('reports', () => {
  let ctx: TestContext;
  const keys = {} as Record<OrgSlug, string>;
  const ids = {} as Record<Fixture, number>;
  let massive: number;

  const get = (url: string, key = keys.acme) => ctx.app.inject({ url, headers: bearer(key) });

  async function org(
    slug: OrgSlug,
    plan: string,
    freeReportUsed = false,
    timezone = 'UTC',
    scopes?: Scope[],
  ) {
    const id = await insertOrg(ctx.dbs.primary, slug, { plan, timezone, freeReportUsed });
    keys[slug] = await mintKey(ctx.dbs.primary, id, scopes ? { scopes } : {});
    return id;
  }

  const brand = (orgId: number, name: string, isDemo = false) =>
    insertBrand(ctx.dbs.primary, orgId, { name, is_demo: isDemo ? 1 : 0 });
  const category = (orgId: number, brandId: number, name: string) =>
    new BrandFixture(ctx.dbs.primary, orgId, brandId).category(name);
  const artifact = (orgId: number, values: Parameters<typeof insertReportArtifact>[2]) =>
    insertReportArtifact(ctx.dbs.primary, orgId, values);
  const file = (orgId: number, artifactId: number, kind: string, contentType: string, content: Buffer) =>
    insertReportFile(ctx.dbs.primary, orgId, artifactId, { kind, contentType, content });

  before(async () => {
    ctx = await createTestContext({ publicBaseUrl: BASE });
    // acme works in Los Angeles: a report completed at 05:30 UTC on 2 March is dated 1 March there.
    const acme = await org('acme', 'pro', false, 'America/Los_Angeles');
    const alice = await insertUser(ctx.dbs.primary, { email: 'alice@acme.test', name: 'Alice' });

    ids.brand = await brand(acme, 'Acme Analytics');
    ids.other = await brand(acme, 'Acme Other');
    ids.demo = await brand(acme, 'Demo Brand', true);
    ids.c1 = await category(acme, ids.brand, 'CRM');
    ids.c2 = await category(acme, ids.brand, 'BI');
    ids.otherCategory = await category(acme, ids.other, 'Elsewhere');

    ids.a1 = await artifact(acme, {
      brand_id: ids.brand,
      report_type: 'in_depth_report',
      status: 'complete',
      created_at: '2026-03-01T10:00:00.000Z',
      completed_at: '2026-03-02T05:30:00.000Z',
      generated_by_user_id: alice,
      agent_name: 'report-agent',
      agent_version: '2.1.0',
      cost_usd: '1.25',
      kg_generation_job: 'kg-42',
      evidence_refs_count: 17,
      is_branded: 1,
    });
    await file(acme, ids.a1, 'pdf', 'application/pdf', PDF);
    await file(acme, ids.a1, 'html', 'text/html', HTML);
    ids.a2 = await artifact(acme, {
      brand_id: ids.brand,
      category_id: ids.c1,
      report_type: 'executive_summary_v2',
      status: 'complete',
      created_at: '2026-03-02T10:00:00.000Z',
      completed_at: '2026-03-02T18:00:00.000Z',
    });
    await file(acme, ids.a2, 'html', 'text/html; charset=utf-8', HTML);
    ids.a3 = await artifact(acme, {
      brand_id: ids.brand,
      category_id: ids.c2,
      report_type: 'lead_gen_exec_v1',
      status: 'running',
      created_at: '2026-03-03T10:00:00.000Z',
    });
    // a4 and a5 share created_at: the larger id (a5, inserted later) comes first.
    ids.a4 = await artifact(acme, {
      brand_id: ids.brand,
      category_id: ids.c1,
      report_type: 'in_depth_report',
      status: 'queued',
      created_at: '2026-03-04T10:00:00.000Z',
    });
    ids.a5 = await artifact(acme, {
      brand_id: ids.brand,
      report_type: 'market_scan_v3',
      status: 'failed',
      created_at: '2026-03-04T10:00:00.000Z',
    });
    ids.b1 = await artifact(acme, {
      brand_id: ids.other,
      report_type: 'in_depth_report',
      status: 'complete',
      created_at: '2026-03-05T10:00:00.000Z',
      completed_at: '2026-03-05T11:00:00.000Z',
    });

    const globex = await org('globex', 'pro');
    ids.globexBrand = await brand(globex, 'Globex');
    ids.g1 = await artifact(globex, {
      brand_id: ids.globexBrand,
      report_type: 'in_depth_report',
      status: 'complete',
      created_at: '2026-03-01T10:00:00.000Z',
      completed_at: '2026-03-01T11:00:00.000Z',
    });
    await file(globex, ids.g1, 'pdf', 'application/pdf', PDF);

    // One brand per plan case for the permissions object.
    const hooli = await org('hooli', 'free');
    ids.hooliBrand = await brand(hooli, 'Hooli');
    ids.hooliDemo = await brand(hooli, 'Hooli Demo', true);
    ids.h1 = await artifact(hooli, {
      brand_id: ids.hooliBrand,
      report_type: 'in_depth_report',
      status: 'complete',
      created_at: '2026-03-01T10:00:00.000Z',
      completed_at: '2026-03-01T11:00:00.000Z',
    });
    await file(hooli, ids.h1, 'pdf', 'application/pdf', PDF);
    const pied = await org('pied', 'free', true);
    ids.piedBrand = await brand(pied, 'Pied Piper');
    ids.p1 = await artifact(pied, {
      brand_id: ids.piedBrand,
      report_type: 'in_depth_report',
      status: 'complete',
      created_at: '2026-03-01T10:00:00.000Z',
      completed_at: '2026-03-01T11:00:00.000Z',
    });
    const umbrella = await org('umbrella', 'starter');
    ids.umbrellaBrand = await brand(umbrella, 'Umbrella');
    await artifact(umbrella, {
      brand_id: ids.umbrellaBrand,
      report_type: 'in_depth_report',
      status: 'running',
      created_at: '2026-03-01T10:00:00.000Z',
    });
    massive = await org('massive', 'enterprise');
    ids.massiveBrand = await brand(massive, 'Massive');
    await org('narrow', 'pro', false, 'UTC', ['brands:read']);
  });
  after(() => ctx.close());

  const resultIds = (body: { results: { id: string }[] }) => body.results.map((r) => Number(r.id));

  describe('list', () => {
    it('lists newest first (created_at desc, then id desc) with every field of the contract', async () => {
      const res = await get(`/api/brands/${ids.brand}/reports/`);
      assert.equal(res.statusCode, 200);
      const body = res.json();
      assert.equal(body.count, 5);
      assert.equal(body.next, null);
      assert.equal(body.previous, null);
      assert.deepEqual(resultIds(body), [ids.a5, ids.a4, ids.a3, ids.a2, ids.a1]);
      const a1 = body.results[4];
      assert.deepEqual(a1, {
        id: String(ids.a1),
        brandId: String(ids.brand),
        categoryId: null,
        reportType: 'in_depth_report',
        reportTypeLabel: 'In-depth report',
        status: 'complete',
        format: 'pdf',
        createdAt: '2026-03-01T10:00:00.000Z',
        completedAt: '2026-03-02T05:30:00.000Z',
        downloadUrl: `${BASE}/api/reports/${ids.a1}/download/`,
        viewUrl: `${BASE}/api/reports/${ids.a1}/`,
        errorMessage: '',
        agentName: 'report-agent',
        agentVersion: '2.1.0',
        costUsd: '1.25',
        kgGenerationJob: 'kg-42',
        evidenceRefsCount: 17,
        isBranded: true,
        abortedReason: '',
        generatedByEmail: 'alice@acme.test',
      });
    });

    it('leaves downloadUrl empty until complete, and labels every type', async () => {
      const body = (await get(`/api/brands/${ids.brand}/reports/`)).json();
      const byId = new Map<number, Record<string, unknown>>(
        body.results.map((r: { id: string }) => [Number(r.id), r]),
      );
      const a3 = byId.get(ids.a3)!;
      assert.equal(a3.status, 'running');
      assert.equal(a3.downloadUrl, '');
      assert.equal(a3.completedAt, null);
      assert.equal(a3.generatedByEmail, '');
      assert.equal(a3.categoryId, String(ids.c2));
      assert.equal(a3.viewUrl, `${BASE}/api/reports/${ids.a3}/`);
      assert.equal(a3.reportTypeLabel, 'Lead-gen executive brief');
      assert.equal(byId.get(ids.a2)!.reportTypeLabel, 'Executive summary');
      // An uncurated type is title-cased word by word.
      assert.equal(byId.get(ids.a5)!.reportTypeLabel, 'Market Scan V3');
      assert.equal(byId.get(ids.a5)!.downloadUrl, '');
    });

    it('categoryId keeps that category and the brand-wide artifacts', async () => {
      // c1 holds a4 and a2; a5 and a1 are brand-wide; a3 is in c2.
      const res = await get(`/api/brands/${ids.brand}/reports/?categoryId=${ids.c1}`);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(resultIds(res.json()), [ids.a5, ids.a4, ids.a2, ids.a1]);
      assert.equal(res.json().count, 4);
    });

    it('reportType and its alias type filter alike, and combine with categoryId', async () => {
      for (const param of ['reportType', 'type']) {
        const res = await get(`/api/brands/${ids.brand}/reports/?${param}=in_depth_report`);
        assert.deepEqual(resultIds(res.json()), [ids.a4, ids.a1], param);
      }
      const same = await get(
        `/api/brands/${ids.brand}/reports/?reportType=in_depth_report&type=in_depth_report`,
      );
      assert.deepEqual(resultIds(same.json()), [ids.a4, ids.a1]);
      const both = await get(`/api/brands/${ids.brand}/reports/?categoryId=${ids.c2}&type=in_depth_report`);
      // c2 has no in-depth report; a1 is the brand-wide one.
      assert.deepEqual(resultIds(both.json()), [ids.a1]);
      const none = await get(`/api/brands/${ids.brand}/reports/?type=weekly_ai_visibility_update`);
      assert.deepEqual(none.json().results, []);
      assert.equal(none.json().count, 0);
    });

    it('pages with links that keep the other parameters', async () => {
      const first = await get(`/api/brands/${ids.brand}/reports/?page_size=2&categoryId=${ids.c1}`);
      const body = first.json();
      assert.equal(body.count, 4);
      assert.deepEqual(resultIds(body), [ids.a5, ids.a4]);
      assert.equal(
        body.next,
        `${BASE}/api/brands/${ids.brand}/reports/?page_size=2&categoryId=${ids.c1}&page=2`,
      );
      assert.equal(body.previous, null);
      const second = (await get(body.next.slice(BASE.length))).json();
      assert.deepEqual(resultIds(second), [ids.a2, ids.a1]);
      assert.equal(second.next, null);
      assert.equal(
        second.previous,
        `${BASE}/api/brands/${ids.brand}/reports/?page_size=2&categoryId=${ids.c1}`,
      );
      const past = await get(`/api/brands/${ids.brand}/reports/?page_size=2&page=3&categoryId=${ids.c1}`);
      assert.equal(past.statusCode, 404);
      assert.deepEqual(past.json(), { detail: 'Invalid page.' });
    });

    it('answers bad query values with 400 field errors', async () => {
      const cases: [string, Record<string, string[]>][] = [
        [
          `categoryId=${ids.otherCategory}`,
          { categoryId: [`Select a valid choice. ${ids.otherCategory} is not a category of this brand.`] },
        ],
        [
          `categoryId=${ids.globexBrand + 1000}`,
          {
            categoryId: [`Select a valid choice. ${ids.globexBrand + 1000} is not a category of this brand.`],
          },
        ],
        ['categoryId=abc', { categoryId: ['A valid integer is required.'] }],
        ['categoryId=0', { categoryId: ['Ensure this value is greater than or equal to 1.'] }],
        // Exponent notation is not a decimal integer (decisions.md); a long decimal one is too big.
        ['categoryId=1e30', { categoryId: ['A valid integer is required.'] }],
        [
          'categoryId=10000000000000000000',
          { categoryId: [`Ensure this value is less than or equal to ${Number.MAX_SAFE_INTEGER}.`] },
        ],
        [
          'reportType=in_depth_report&type=executive_summary_v2',
          { non_field_errors: ['reportType and type are aliases: give one, or the same value.'] },
        ],
        // A NUL character is named as such, not as a format the value otherwise has.
        ['type=%00', { type: ['Null characters are not allowed.'] }],
        ['reportType=', { reportType: ['"" has the wrong format.'] }],
        ['page=0', { page: ['Ensure this value is greater than or equal to 1.'] }],
        ['page_size=abc', { page_size: ['A valid integer is required.'] }],
      ];
      for (const [query, expected] of cases) {
        const res = await get(`/api/brands/${ids.brand}/reports/?${query}`);
        assert.equal(res.statusCode, 400, query);
        assert.deepEqual(res.json(), expected, query);
      }
    });
  });

  describe('permissions', () => {
    const permissionsOf = async (slug: OrgSlug, brandId: number) => {
      const res = await get(`/api/brands/${brandId}/reports/`, keys[slug]);
      assert.equal(res.statusCode, 200);
      return res.json();
    };

    it('pro plan, ordinary brand with a complete artifact', async () => {
      assert.deepEqual((await permissionsOf('acme', ids.brand)).permissions, {
        canViewReports: true,
        canGenerate: true,
        canGenerateFreeReport: false,
        hasFreeReport: false,
        reportsReady: true,
        isDemo: false,
      });
    });

    it('pro plan, demo brand: nothing may be generated and nothing is ready', async () => {
      assert.deepEqual((await permissionsOf('acme', ids.demo)).permissions, {
        canViewReports: true,
        canGenerate: false,
        canGenerateFreeReport: false,
        hasFreeReport: false,
        reportsReady: false,
        isDemo: true,
      });
    });

    it('free plan without its free report: upsell state, empty list, free report available', async () => {
      const body = await permissionsOf('hooli', ids.hooliBrand);
      assert.equal(body.count, 0);
      assert.deepEqual(body.results, []);
      assert.equal(body.next, null);
      assert.deepEqual(body.permissions, {
        canViewReports: false,
        canGenerate: false,
        canGenerateFreeReport: true,
        hasFreeReport: false,
        reportsReady: true,
        isDemo: false,
      });
    });

    it('free plan, demo brand: the free report cannot be spent on it', async () => {
      assert.deepEqual((await permissionsOf('hooli', ids.hooliDemo)).permissions, {
        canViewReports: false,
        canGenerate: false,
        canGenerateFreeReport: false,
        hasFreeReport: false,
        reportsReady: false,
        isDemo: true,
      });
    });

    it('free plan after its free report: reports visible, nothing more to generate', async () => {
      const body = await permissionsOf('pied', ids.piedBrand);
      assert.deepEqual(resultIds(body), [ids.p1]);
      assert.deepEqual(body.permissions, {
        canViewReports: true,
        canGenerate: false,
        canGenerateFreeReport: false,
        hasFreeReport: true,
        reportsReady: true,
        isDemo: false,
      });
    });

    it('starter and enterprise plans may generate; an unfinished artifact is not "ready"', async () => {
      // Umbrella's brand has one running artifact, Massive's none: neither is ready.
      for (const [slug, brandId] of [
        ['umbrella', ids.umbrellaBrand],
        ['massive', ids.massiveBrand],
      ] as const) {
        assert.deepEqual(
          (await permissionsOf(slug, brandId)).permissions,
          {
            canViewReports: true,
            canGenerate: true,
            canGenerateFreeReport: false,
            hasFreeReport: false,
            reportsReady: false,
            isDemo: false,
          },
          slug,
        );
      }
    });

    it('hides single artifacts from an organization that may not view reports', async () => {
      for (const url of [
        `/api/reports/${ids.h1}/`,
        `/api/brands/${ids.hooliBrand}/reports/${ids.h1}/`,
        `/api/brands/${ids.hooliBrand}/reports/latest/?type=in_depth_report`,
        `/api/reports/${ids.h1}/download/`,
        `/api/reports/${ids.h1}/download.pdf`,
      ]) {
        assert.equal((await get(url, keys.hooli)).statusCode, 404, url);
      }
    });
  });

  describe('single artifacts', () => {
    it('latest of a type is the newest of any status; 404 when none', async () => {
      // a4 (queued, 4 March) is newer than a1 (complete, 1 March).
      const latest = await get(`/api/brands/${ids.brand}/reports/latest/?type=in_depth_report`);
      assert.equal(latest.statusCode, 200);
      assert.equal(latest.json().id, String(ids.a4));
      assert.equal(latest.json().status, 'queued');
      const summary = await get(`/api/brands/${ids.brand}/reports/latest?type=executive_summary_v2`);
      assert.equal(summary.json().id, String(ids.a2));
      const none = await get(`/api/brands/${ids.brand}/reports/latest/?type=weekly_ai_visibility_update`);
      assert.equal(none.statusCode, 404);
      assert.deepEqual(none.json(), {
        detail: 'No weekly_ai_visibility_update report exists for this brand.',
      });
    });

    it('latest requires type', async () => {
      const res = await get(`/api/brands/${ids.brand}/reports/latest/`);
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), { type: ['This field is required.'] });
    });

    it('brand-scoped detail answers only for the brand the artifact belongs to', async () => {
      const own = await get(`/api/brands/${ids.brand}/reports/${ids.a1}/`);
      assert.equal(own.statusCode, 200);
      assert.equal(own.json().id, String(ids.a1));
      const mismatch = await get(`/api/brands/${ids.other}/reports/${ids.a1}/`);
      assert.equal(mismatch.statusCode, 404);
      assert.deepEqual(mismatch.json(), { detail: 'Not found.' });
    });

    it('the poll endpoint returns the artifact as the list does', async () => {
      const list = (await get(`/api/brands/${ids.brand}/reports/`)).json();
      for (const id of [ids.a1, ids.a3]) {
        const res = await get(`/api/reports/${id}/`);
        assert.equal(res.statusCode, 200);
        assert.deepEqual(
          res.json(),
          list.results.find((r: { id: string }) => r.id === String(id)),
        );
      }
    });

    it('non-integer or non-positive ids are not found', async () => {
      for (const url of [
        '/api/reports/abc/',
        '/api/reports/0/',
        '/api/reports/-1/',
        `/api/brands/x/reports/`,
      ]) {
        const res = await get(url);
        assert.equal(res.statusCode, 404, url);
        assert.deepEqual(res.json(), { detail: 'Not found.' }, url);
      }
    });
  });

  describe('downloads', () => {
    it('streams the PDF when the artifact has one, with attachment headers dated in the org time zone', async () => {
      const res = await get(`/api/reports/${ids.a1}/download/`);
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], 'application/pdf');
      assert.equal(res.headers['content-length'], String(PDF.length));
      // completed 2026-03-02T05:30Z = 2026-03-01 21:30 in Los Angeles (UTC-8 before DST).
      assert.equal(
        res.headers['content-disposition'],
        'attachment; filename="acme-analytics-in_depth_report-2026-03-01.pdf"',
      );
      assert.deepEqual(res.rawPayload, PDF);
    });

    it('falls back to the HTML document, bytes and length exact', async () => {
      const res = await get(`/api/reports/${ids.a2}/download/`);
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
      // Résumé's two 'é' and Café's 'é' take 1 byte more each, '—' 2 more: 5 bytes over the characters.
      assert.equal(HTML.length, HTML.toString('utf8').length + 5);
      assert.equal(res.headers['content-length'], String(HTML.length));
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      // completed 2026-03-02T18:00Z = 10:00 in Los Angeles, the same day.
      assert.equal(
        res.headers['content-disposition'],
        'attachment; filename="acme-analytics-executive_summary_v2-2026-03-02.html"',
      );
      assert.deepEqual(res.rawPayload, HTML);
    });

    it('download.pdf serves the PDF only', async () => {
      const pdf = await get(`/api/reports/${ids.a1}/download.pdf`);
      assert.equal(pdf.statusCode, 200);
      assert.equal(pdf.headers['content-type'], 'application/pdf');
      assert.deepEqual(pdf.rawPayload, PDF);
      const htmlOnly = await get(`/api/reports/${ids.a2}/download.pdf`);
      assert.equal(htmlOnly.statusCode, 404);
      assert.deepEqual(htmlOnly.json(), { detail: 'Not found: the report has no PDF.' });
    });

    it("names the file in ASCII, and in the brand's own spelling too where ASCII lacks its letters", async () => {
      const disposition = async (name: string) => {
        const brandId = await brand(massive, name);
        const artifactId = await artifact(massive, {
          brand_id: brandId,
          report_type: 'in_depth_report',
          status: 'complete',
          created_at: '2026-03-01T10:00:00.000Z',
          completed_at: '2026-03-01T11:00:00.000Z',
        });
        await file(massive, artifactId, 'pdf', 'application/pdf', PDF);
        const res = await get(`/api/reports/${artifactId}/download/`, keys.massive);
        assert.equal(res.statusCode, 200, name);
        return res.headers['content-disposition'];
      };
      const suffix = '-in_depth_report-2026-03-01.pdf';
      // é is C3 A9 in UTF-8.
      assert.equal(
        await disposition('Café Olé'),
        `attachment; filename="cafe-ole${suffix}"; filename*=UTF-8''caf%C3%A9-ol%C3%A9${suffix}`,
      );
      // 株 U+682A is E6 A0 AA, 式 U+5F0F E5 BC 8F; no ASCII letter at all leaves "brand".
      assert.equal(
        await disposition('株式'),
        `attachment; filename="brand${suffix}"; filename*=UTF-8''%E6%A0%AA%E5%BC%8F${suffix}`,
      );
      // Quotes, brackets and slashes cannot stand in either form; Æ has no ASCII decomposition.
      assert.equal(
        await disposition(`Æon's "Best" (R/D)`),
        `attachment; filename="on-s-best-r-d${suffix}"; filename*=UTF-8''%C3%A6on-s-best-r-d${suffix}`,
      );
      // A file name holds 255 bytes: the suffix takes 31, leaving 224 for 74 three-byte 株.
      assert.equal(
        await disposition('株'.repeat(200)),
        `attachment; filename="brand${suffix}"; filename*=UTF-8''${'%E6%A0%AA'.repeat(74)}${suffix}`,
      );
      assert.equal(await disposition('Plain Name'), `attachment; filename="plain-name${suffix}"`);
    });

    it('is 404 until the artifact is complete', async () => {
      for (const url of [`/api/reports/${ids.a3}/download/`, `/api/reports/${ids.a3}/download.pdf`]) {
        const res = await get(url);
        assert.equal(res.statusCode, 404, url);
        assert.deepEqual(res.json(), { detail: 'Not found: the report is not complete yet.' }, url);
      }
    });
  });

  describe('isolation and scope', () => {
    it("answers 404 for another organization's brand or artifact, even with a bad query string", async () => {
      for (const url of [
        `/api/brands/${ids.globexBrand}/reports/`,
        `/api/brands/${ids.globexBrand}/reports/?categoryId=abc&page=0`,
        `/api/brands/${ids.globexBrand}/reports/latest/`,
        `/api/brands/${ids.globexBrand}/reports/latest/?type=%00`,
        `/api/brands/${ids.globexBrand}/reports/${ids.g1}/`,
        `/api/brands/${ids.brand}/reports/${ids.g1}/`,
        `/api/reports/${ids.g1}/`,
        `/api/reports/${ids.g1}/download/`,
        `/api/reports/${ids.g1}/download.pdf`,
      ]) {
        const res = await get(url);
        assert.equal(res.statusCode, 404, url);
        assert.deepEqual(res.json(), { detail: 'Not found.' }, url);
      }
      // The owner does see it.
      assert.equal((await get(`/api/reports/${ids.g1}/download.pdf`, keys.globex)).statusCode, 200);
    });

    it('needs the reports:read scope', async () => {
      const res = await get(`/api/brands/${ids.brand}/reports/`, keys.narrow);
      assert.equal(res.statusCode, 403);
      assert.deepEqual(res.json(), { detail: 'This API key lacks the required scope: reports:read.' });
    });
  });
});
