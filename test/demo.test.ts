import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { getDomain } from 'tldts';
import type { Db } from '../src/db/connect.ts';
import { dueBrands } from '../src/db/monitoring.ts';
import { visibleRun } from '../src/db/predicates.ts';
import type { Database } from '../src/db/types.ts';
import { answerKey } from '../src/demo/history.ts';
import { markdownToHtml } from '../src/demo/markdown.ts';
import { Prng } from '../src/demo/prng.ts';
import {
  DemoConflictError,
  type DemoManifest,
  demoBrandHistory,
  ensureDemo,
  findDemoManifest,
  seedDemo,
} from '../src/demo/seed.ts';
import { bearer, createTestContext, type TestContext } from './support/context.ts';
import { DEMO_TABLES } from './support/demo-rows.ts';
import { countRows, mintKey } from './support/fixtures.ts';
import { PINNED_DEMO_SEEDED_AT } from './support/templates.ts';

const DAY_MS = 86_400_000;
// The runner's pinned template was seeded at this moment (its determinism: demo-determinism.test).
const MORNING = PINNED_DEMO_SEEDED_AT;
const ANCHOR = Date.parse('2026-03-15T00:00:00Z');

const rowCounts = (db: Db) => countRows(db, Object.keys(DEMO_TABLES) as (keyof Database)[]);

describe('demo data', () => {
  let a: TestContext;
  let db: Db;
  let manifest: DemoManifest;
  let acme: number;

  before(async () => {
    a = await createTestContext({}, { template: 'demo' });
    db = a.dbs.primary;
    const seeded = await findDemoManifest(db);
    if (!seeded) throw new Error('the demo template has no manifest');
    manifest = seeded;
    acme = (
      await db.selectFrom('organizations').select('id').where('slug', '=', 'acme').executeTakeFirstOrThrow()
    ).id;
  });
  after(() => a.close());

  it('is idempotent through ensureDemo and refuses to seed over existing data', async () => {
    const before = await rowCounts(db);
    const result = await ensureDemo(db);
    assert.equal(result.created, false);
    assert.deepEqual(result.manifest, manifest);
    assert.deepEqual(await findDemoManifest(db), manifest);
    await assert.rejects(seedDemo(db), DemoConflictError);
    assert.deepEqual(await rowCounts(db), before);
  });

  it('has the manifest shape of issue 2, every named fixture in acme', async () => {
    assert.deepEqual(Object.keys(manifest).sort(), [
      'archivedBrandId',
      'archivedCategoryId',
      'bigRunId',
      'demoBrandId',
      'inFlightRunId',
      'legacyRunId',
      'orgs',
      'recommendations',
      'reports',
      'responses',
      'unpublishedRunId',
    ]);
    assert.deepEqual(Object.keys(manifest.orgs).sort(), ['acme', 'globex', 'hooli', 'initech', 'umbrella']);
    assert.deepEqual(Object.keys(manifest.reports).sort(), [
      'completeHtmlId',
      'completePdfId',
      'failedId',
      'latestInDepthId',
      'pendingId',
    ]);
    assert.deepEqual(Object.keys(manifest.recommendations).sort(), ['deletedId', 'supersededId']);
    assert.deepEqual(Object.keys(manifest.responses).sort(), ['withHtmlId', 'withTextId', 'withoutTextId']);
    // Brands are inserted globex (2), initech, umbrella, hooli, then acme's four, so acme's are 6–9.
    assert.deepEqual(manifest.orgs.acme?.brandIds, [6, 7, 8, 9, 10]);
    assert.deepEqual(manifest.orgs.globex?.brandIds, [1, 2]);
    assert.equal(manifest.demoBrandId, 9);

    const inAcme = async (
      table: 'runs' | 'brands' | 'categories' | 'report_artifacts' | 'responses',
      id: number,
    ) => {
      const row = await db.selectFrom(table).select('org_id').where('id', '=', id).executeTakeFirstOrThrow();
      assert.equal(row.org_id, acme, `${table} ${id} is not in acme`);
    };
    for (const id of [
      manifest.unpublishedRunId,
      manifest.legacyRunId,
      manifest.inFlightRunId,
      manifest.bigRunId,
    ]) {
      await inAcme('runs', id);
    }
    await inAcme('brands', manifest.archivedBrandId);
    await inAcme('categories', manifest.archivedCategoryId);
    for (const id of Object.values(manifest.reports)) await inAcme('report_artifacts', id);
    for (const id of Object.values(manifest.responses)) await inAcme('responses', id);
    for (const id of Object.values(manifest.recommendations)) {
      const row = await db
        .selectFrom('recommendations')
        .select('org_id')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      assert.equal(row.org_id, acme);
    }
  });

  it('has the five organizations with their plans and add-on flags', async () => {
    const orgs = await db
      .selectFrom('organizations')
      .select(['slug', 'plan', 'api_access'])
      .orderBy('slug')
      .execute();
    // Rows come back as null-prototype objects on SQLite: compare their values.
    assert.deepEqual(
      orgs.map((o) => [o.slug, o.plan, o.api_access]),
      [
        ['acme', 'pro', 1],
        ['globex', 'pro', 1],
        ['hooli', 'free', 1],
        ['initech', 'pro', 0],
        ['umbrella', 'starter', 1],
      ],
    );
    const members = await db.selectFrom('memberships').select(['org_id', 'user_id']).execute();
    assert.ok(members.length >= 5);
  });

  it('makes brand 9 the public demo brand of acme, with an archived and a merged acme brand', async () => {
    const brand9 = await db.selectFrom('brands').selectAll().where('id', '=', 9).executeTakeFirstOrThrow();
    assert.equal(brand9.org_id, acme);
    assert.equal(brand9.is_demo, 1);
    assert.equal(brand9.status, 'active');
    const demos = await db.selectFrom('brands').select('id').where('is_demo', '=', 1).execute();
    assert.deepEqual(
      demos.map((d) => d.id),
      [9],
    );

    const archived = await db
      .selectFrom('brands')
      .selectAll()
      .where('id', '=', manifest.archivedBrandId)
      .executeTakeFirstOrThrow();
    assert.equal(archived.status, 'archived');
    const merged = await db
      .selectFrom('brands')
      .selectAll()
      .where('org_id', '=', acme)
      .where('status', '=', 'merged')
      .executeTakeFirstOrThrow();
    assert.equal(merged.merged_into_brand_id, 9);
    assert.ok(merged.merged_at);
  });

  it('schedules only the brand Sightline monitors itself, whose two weeks the monitoring engine asked', async () => {
    const brands = await db
      .selectFrom('brands')
      .select([
        'id',
        'name',
        'monitoring_cadence',
        'monitoring_time',
        'monitoring_engines',
        'next_monitored_run_at',
      ])
      .orderBy('id')
      .execute();
    assert.equal(brands.length, 10);
    assert.ok(
      brands.slice(0, 9).every((b) => b.monitoring_cadence === 'off' && b.next_monitored_run_at === null),
    );
    // Brand 10, acme's Brightdesk Voice: daily at 06:00 in New York on the simulated engine. The
    // seeding day is 2026-03-15, a week after the US went to summer time: 06:00 EDT is 10:00 UTC.
    const voice = brands[9];
    assert.deepEqual(
      [voice?.id, voice?.name, voice?.monitoring_cadence, voice?.monitoring_time, voice?.monitoring_engines],
      [10, 'Brightdesk Voice', 'daily', '06:00', '["simulated"]'],
    );
    assert.equal(voice?.next_monitored_run_at, '2026-03-15T10:00:00.000Z');
    // What a worker would plan, however late it starts: that brand, and only when its slot comes.
    assert.deepEqual(
      (await dueBrands(db, '9999-12-31T23:59:59.999Z', 100)).map((b) => b.brandId),
      [10],
    );
    assert.deepEqual(await dueBrands(db, '2026-03-15T09:59:59.999Z', 100), []);

    // One run a day from 1 to 14 March, at 06:00 New York time: 11:00 UTC until the clocks moved
    // on 8 March, 10:00 UTC from then. Each asked its 3 prompts once on the simulated engine.
    const runs = await db
      .selectFrom('runs')
      .select([
        'id',
        'status',
        'started_at',
        'finished_at',
        'completed_prompts',
        'total_prompts',
        'published_at',
      ])
      .where('brand_id', '=', 10)
      .orderBy('id')
      .execute();
    const slots = Array.from({ length: 14 }, (_, i) =>
      new Date(Date.UTC(2026, 2, 1 + i, i < 7 ? 11 : 10)).toISOString(),
    );
    assert.deepEqual(
      runs.map((r) => [
        r.status,
        r.started_at,
        r.finished_at,
        r.published_at,
        r.completed_prompts,
        r.total_prompts,
      ]),
      slots.map((at) => ['completed', at, at, at, 3, 3]),
    );
    const asks = await db
      .selectFrom('run_asks as a')
      .innerJoin('responses as x', 'x.id', 'a.response_id')
      .select([
        'a.run_id',
        'a.prompt_id',
        'a.engine',
        'a.sample',
        'a.state',
        'a.outcome',
        'a.vendor_model',
        'a.latency_ms',
        'x.external_key',
        'x.model',
        'x.outcome as stored',
      ])
      .where(
        'a.run_id',
        'in',
        runs.map((r) => r.id),
      )
      .execute();
    assert.equal(asks.length, 14 * 3);
    for (const ask of asks) {
      assert.deepEqual(
        [
          ask.engine,
          ask.sample,
          ask.state,
          ask.outcome,
          ask.vendor_model,
          ask.latency_ms,
          ask.model,
          ask.stored,
        ],
        ['simulated', 1, 'done', 'ok', 'simulated', 0, 'simulated', 'ok'],
      );
      assert.equal(ask.external_key, `monitor:${ask.run_id}:${ask.prompt_id}:simulated:1`);
    }

    const key = await mintKey(db, acme, { pepper: a.config.keyPepper });
    const demo = await a.app.inject({ url: '/api/brands/9/', headers: bearer(key) });
    assert.equal(demo.json().nextMonitoredRunAt, null);
    const monitored = (await a.app.inject({ url: '/api/brands/10/', headers: bearer(key) })).json();
    assert.equal(Date.parse(monitored.nextMonitoredRunAt), Date.parse('2026-03-15T10:00:00Z'));
    assert.equal(Date.parse(monitored.lastMonitoredRunAt), Date.parse('2026-03-14T10:00:00Z'));
  });

  it('gives the main brands three or more live categories with competitors keyed canonically', async () => {
    for (const brandId of [9, 8, 1]) {
      const live = await db
        .selectFrom('categories')
        .select('id')
        .where('brand_id', '=', brandId)
        .where('is_archived', '=', 0)
        .execute();
      assert.ok(live.length >= 3, `brand ${brandId} has ${live.length} live categories`);
      for (const category of live) {
        const competitors = await db
          .selectFrom('competitors')
          .select(['canonical_key', 'canonical_name'])
          .where('category_id', '=', category.id)
          .execute();
        assert.ok(competitors.length >= 5);
        for (const c of competitors) assert.match(c.canonical_key, /^[a-z0-9]+(-[a-z0-9]+)*$/);
      }
    }
    // One competitor appears under its canonical key in several categories of the demo brand.
    const zendesk = await db
      .selectFrom('competitors')
      .select('name')
      .where('brand_id', '=', 9)
      .where('canonical_key', '=', 'zendesk')
      .execute();
    assert.deepEqual(zendesk.map((c) => c.name).sort(), ['Zendesk', 'Zendesk AI']);
  });

  it('has an archived category, and unmonitored and archived prompts, on the demo brand', async () => {
    const category = await db
      .selectFrom('categories')
      .selectAll()
      .where('id', '=', manifest.archivedCategoryId)
      .executeTakeFirstOrThrow();
    assert.equal(category.is_archived, 1);
    assert.equal(category.brand_id, 9);
    const prompts = await db
      .selectFrom('prompts')
      .select(['is_monitored', 'is_archived'])
      .where('brand_id', '=', 9)
      .execute();
    assert.ok(prompts.some((p) => p.is_monitored === 0));
    assert.ok(prompts.some((p) => p.is_archived === 1));
  });

  it('has daily runs in every live demo category over the last 120 days', async () => {
    const runs = await db
      .selectFrom('runs as r')
      .innerJoin('categories as c', 'c.id', 'r.category_id')
      .select(['r.category_id', 'r.started_at'])
      .where('r.brand_id', '=', 9)
      .where('c.is_archived', '=', 0)
      .where('r.status', '=', 'completed')
      .execute();
    const days = new Map<number, Set<string>>();
    for (const r of runs) {
      const set = days.get(r.category_id) ?? new Set<string>();
      set.add(String(r.started_at).slice(0, 10));
      days.set(r.category_id, set);
    }
    assert.equal(days.size, 3);
    for (const [categoryId, set] of days) {
      for (let d = 1; d <= 120; d++) {
        const day = new Date(ANCHOR - d * DAY_MS).toISOString().slice(0, 10);
        assert.ok(set.has(day), `category ${categoryId} has no run on ${day}`);
      }
    }
    // Every completed run finished before the seeding day: the newest data is from yesterday.
    const latest = await db
      .selectFrom('runs')
      .select(sql<string>`max(finished_at)`.as('m'))
      .executeTakeFirstOrThrow();
    assert.ok(Date.parse(latest.m) < ANCHOR && Date.parse(latest.m) >= ANCHOR - DAY_MS);
  });

  it('covers 5+ labelled models, 2+ surfaces, merged samples and all four outcomes', async () => {
    const models = await db
      .selectFrom('responses')
      .select(['model', 'model_label', 'surface'])
      .distinct()
      .where('brand_id', '=', 9)
      .execute();
    const labels = Object.fromEntries(models.map((m) => [m.model, m.model_label]));
    assert.deepEqual(labels, {
      chatgpt: 'ChatGPT',
      claude: 'Claude',
      copilot: 'Copilot',
      gemini: 'Gemini',
      google_ai_overview: 'Google AI Overview',
      perplexity: 'Perplexity',
    });
    assert.deepEqual([...new Set(models.map((m) => m.surface))].sort(), ['ai_overview', 'api', 'ui_scrape']);
    const merged = await db
      .selectFrom('responses')
      .select('id')
      .where('sample_count', '>', 1)
      .limit(1)
      .execute();
    assert.equal(merged.length, 1);
    const outcomes = await db
      .selectFrom('responses')
      .select('outcome')
      .distinct()
      .where('brand_id', '=', 9)
      .execute();
    assert.deepEqual(outcomes.map((o) => o.outcome).sort(), ['empty', 'error', 'no_result', 'ok']);
    // Only usable answers carry text: error and no_result rows have none, empty rows a blank one.
    const textless = await db
      .selectFrom('responses')
      .select('outcome')
      .distinct()
      .where('answer_text', 'is', null)
      .where('methodology', '=', 'sample_v1')
      .execute();
    assert.deepEqual(textless.map((o) => o.outcome).sort(), ['error', 'no_result']);
  });

  it('has legacy runs before the methodology cutover, some without mention data', async () => {
    for (const brandId of [9, 8, 1]) {
      const legacy = await db
        .selectFrom('runs')
        .select(sql<string>`max(finished_at)`.as('m'))
        .where('brand_id', '=', brandId)
        .where('is_legacy', '=', 1)
        .executeTakeFirstOrThrow();
      const current = await db
        .selectFrom('runs')
        .select(sql<string>`min(started_at)`.as('m'))
        .where('brand_id', '=', brandId)
        .where('methodology', '=', 'sample_v1')
        .executeTakeFirstOrThrow();
      assert.ok(legacy.m < current.m, `brand ${brandId}: legacy runs overlap the cutover`);
    }
    const run = await db
      .selectFrom('runs')
      .selectAll()
      .where('id', '=', manifest.legacyRunId)
      .executeTakeFirstOrThrow();
    assert.equal(run.is_legacy, 1);
    assert.equal(run.methodology, 'legacy');
    const rows = await db
      .selectFrom('responses')
      .select(['methodology', 'has_mention_data'])
      .distinct()
      .where('brand_id', '=', 9)
      .where('methodology', '=', 'legacy')
      .execute();
    assert.deepEqual(rows.map((r) => r.has_mention_data).sort(), [0, 1]);
  });

  it('has an unpublished run, an in-flight run and a run of more than 500 responses', async () => {
    const unpublished = await db
      .selectFrom('runs')
      .selectAll()
      .where('id', '=', manifest.unpublishedRunId)
      .executeTakeFirstOrThrow();
    assert.equal(unpublished.status, 'completed');
    assert.equal(unpublished.is_legacy, 0);
    assert.equal(unpublished.published_at, null);

    const inFlight = await db
      .selectFrom('runs')
      .selectAll()
      .where('id', '=', manifest.inFlightRunId)
      .executeTakeFirstOrThrow();
    assert.equal(inFlight.status, 'running');
    assert.equal(inFlight.finished_at, null);
    // The help desk category asks its 4 monitored prompts; 2 are done (half, rounded up).
    assert.deepEqual([inFlight.completed_prompts, inFlight.total_prompts], [2, 4]);

    const big = await db
      .selectFrom('responses')
      .select('id')
      .where('run_id', '=', manifest.bigRunId)
      .execute();
    // 4 monitored prompts × 6 models × 22 asks each = 528.
    assert.equal(big.length, 528);
    const bigRun = await db
      .selectFrom('runs as r')
      .select('r.id')
      .where('r.id', '=', manifest.bigRunId)
      .where(visibleRun)
      .execute();
    assert.equal(bigRun.length, 1, 'the big run is visible');
  });

  it('points the manifest responses at a visible answer with text and one without', async () => {
    const rows = await db
      .selectFrom('responses')
      .select(['id', 'answer_text', 'text_length', 'outcome'])
      .where('id', 'in', [manifest.responses.withTextId, manifest.responses.withoutTextId])
      .orderBy('id')
      .execute();
    const withText = rows.find((r) => r.id === manifest.responses.withTextId);
    const withoutText = rows.find((r) => r.id === manifest.responses.withoutTextId);
    assert.ok(withText?.answer_text && withText.text_length === withText.answer_text.length);
    assert.equal(withoutText?.answer_text, null);
    assert.equal(withoutText?.text_length, 0);
  });

  it("is read by the import's analyzer exactly as each answer was scripted", async () => {
    // The demo brand and globex's Tallyfield CRM (the first brand), every answer of their history:
    // what the import stored for it against the script its text was written from.
    for (const [brandIndex, brandId] of [
      [8, 9],
      [0, 1],
    ] as const) {
      const rows = await db
        .selectFrom('responses')
        .select(['id', 'external_key', 'outcome', 'has_mention_data', 'mentioned', 'rank', 'sentiment'])
        .where('brand_id', '=', brandId)
        .execute();
      const mentions = await db
        .selectFrom('response_mentions as m')
        .innerJoin('responses as x', 'x.id', 'm.response_id')
        .leftJoin('competitors as c', 'c.id', 'm.competitor_id')
        .select(['m.response_id', 'm.is_brand', 'm.rank', 'c.canonical_key'])
        .where('x.brand_id', '=', brandId)
        .orderBy('m.response_id')
        .orderBy('m.rank')
        .execute();
      const citations = await db
        .selectFrom('response_citations as c')
        .innerJoin('responses as x', 'x.id', 'c.response_id')
        .select(['c.response_id', 'c.url'])
        .where('x.brand_id', '=', brandId)
        .orderBy('c.response_id')
        .orderBy('c.position')
        .execute();
      const byKey = new Map(rows.map((r) => [r.external_key, r]));
      const mentionsOf = Map.groupBy(mentions, (m) => m.response_id);
      const citationsOf = Map.groupBy(citations, (c) => c.response_id);

      let scripted = 0;
      for (const { plan, observations } of demoBrandHistory(brandIndex, MORNING)) {
        for (const o of observations) {
          const key = answerKey(plan, o.ask);
          const row = byKey.get(key);
          assert.ok(row, `answer ${key} was not imported`);
          byKey.delete(key);
          const script = o.script;
          // An ok legacy answer that lost its text cannot be read: it has no mention data.
          assert.equal(row.has_mention_data, o.outcome === 'ok' && o.text === null ? 0 : 1, key);
          const entities = script?.entities ?? [];
          const brandAt = entities.findIndex((e) => e.isBrand);
          // Ranks are positions in the script (list, table, sections, or order of first mention).
          assert.deepEqual(
            [row.mentioned, row.rank, row.sentiment],
            brandAt < 0 ? [0, null, null] : [1, brandAt + 1, script?.brandTone],
            `${key}: brand mention, rank and sentiment`,
          );
          assert.deepEqual(
            (mentionsOf.get(row.id) ?? []).map((m) => [m.is_brand, m.canonical_key, m.rank]),
            entities.map((e, i) => [e.isBrand ? 1 : 0, e.canonicalKey, i + 1]),
            `${key}: mentions`,
          );
          assert.deepEqual(
            (citationsOf.get(row.id) ?? []).map((c) => c.url),
            o.citationUrls,
            `${key}: citations`,
          );
          if (script) scripted++;
        }
      }
      assert.deepEqual([...byKey.keys()], [], `brand ${brandId} has answers the history does not`);
      assert.ok(scripted > 1000, `brand ${brandId}: ${scripted} scripted answers`);
    }
  });

  it('writes answers only through the import or the monitoring engine: no demo code writes what the analyzer derives', () => {
    // Runs, responses, mentions, citations and scores are the write path's (ingest/writer.ts); the demo may
    // read them (the manifest does), never insert, update or delete them.
    const derivedTables =
      /'(runs|run_prompts|responses|response_mentions|response_citations|run_prompt_scores)( as \w+)?'/g;
    const dir = join(import.meta.dirname, '../src/demo');
    for (const file of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.ts')) continue;
      const source = readFileSync(join(dir, file), 'utf8');
      for (const match of source.matchAll(derivedTables)) {
        const before = source.slice(Math.max(0, match.index - 20), match.index);
        assert.match(before, /(selectFrom|innerJoin|leftJoin)\($/, `src/demo/${file} writes ${match[1]}`);
      }
      assert.doesNotMatch(
        source,
        /\b(insert\s+into|update|delete\s+from)\s+(runs|run_prompts|responses|response_\w+)\b/i,
      );
    }
  });

  it('records citations in order of appearance with their registrable domain', async () => {
    const rows = await db
      .selectFrom('response_citations as c')
      .innerJoin('responses as x', 'x.id', 'c.response_id')
      .select(['c.response_id', 'c.url', 'c.domain', 'c.position', 'x.answer_text'])
      .where('x.brand_id', '=', 9)
      .orderBy('c.response_id')
      .orderBy('c.position')
      .execute();
    assert.ok(rows.length > 1000);
    let previous = { response: -1, position: 0, at: -1 };
    for (const row of rows) {
      const text = row.answer_text as string;
      const at = text.indexOf(row.url);
      assert.ok(at >= 0, `citation ${row.url} is not in response ${row.response_id}`);
      if (row.response_id !== previous.response)
        previous = { response: row.response_id, position: 0, at: -1 };
      assert.equal(row.position, previous.position + 1);
      assert.ok(at > previous.at, `citations of response ${row.response_id} are out of order`);
      previous = { response: row.response_id, position: row.position, at };
      assert.equal(row.domain, getDomain(row.url));
      assert.ok(!row.domain.startsWith('www.'));
    }
    const domains = new Set(rows.map((r) => r.domain));
    // Subdomains and multi-part suffixes fold: en.wikipedia.org → wikipedia.org, www.which.co.uk → which.co.uk.
    assert.ok(domains.has('wikipedia.org') && domains.has('which.co.uk') && domains.has('g2.com'));
  });

  it('stores per-prompt scores for every completed run with usable answers', async () => {
    const scored = await db.selectFrom('run_prompt_scores').select('run_id').distinct().execute();
    const usable = await db
      .selectFrom('responses as x')
      .innerJoin('runs as r', 'r.id', 'x.run_id')
      .select('x.run_id')
      .distinct()
      .where('r.status', '=', 'completed')
      .where('x.outcome', '=', 'ok')
      .where('x.has_mention_data', '=', 1)
      .execute();
    assert.equal(scored.length, usable.length);
    assert.ok(scored.length > 1000);
  });

  it('has reports of all four types, complete and not, as PDF and as HTML only', async () => {
    const reports = await db.selectFrom('report_artifacts').selectAll().where('brand_id', '=', 9).execute();
    assert.deepEqual([...new Set(reports.map((r) => r.report_type))].sort(), [
      'executive_summary_v2',
      'in_depth_report',
      'lead_gen_exec_v1',
      'weekly_ai_visibility_update',
    ]);
    assert.deepEqual([...new Set(reports.map((r) => r.status))].sort(), [
      'aborted',
      'complete',
      'failed',
      'queued',
      'running',
    ]);
    assert.ok(
      reports.some((r) => r.generated_by_user_id !== null) &&
        reports.some((r) => r.generated_by_user_id === null),
    );
    assert.ok(reports.some((r) => r.category_id === null) && reports.some((r) => r.category_id !== null));

    const files = await db.selectFrom('report_files').selectAll().where('org_id', '=', acme).execute();
    const kinds = (id: number) =>
      files
        .filter((f) => f.artifact_id === id)
        .map((f) => f.kind)
        .sort();
    assert.deepEqual(kinds(manifest.reports.completePdfId), ['html', 'pdf']);
    assert.deepEqual(kinds(manifest.reports.completeHtmlId), ['html']);
    assert.deepEqual(kinds(manifest.reports.pendingId), []);
    const pending = reports.find((r) => r.id === manifest.reports.pendingId);
    assert.ok(pending && ['queued', 'running'].includes(pending.status));
    for (const r of reports.filter((x) => x.status !== 'complete')) assert.deepEqual(kinds(r.id), []);

    for (const f of files) {
      const bytes = Buffer.from(f.content);
      assert.equal(bytes.byteLength, f.byte_length);
      if (f.kind === 'pdf') {
        assert.equal(f.content_type, 'application/pdf');
        assert.ok(bytes.subarray(0, 8).toString('latin1').startsWith('%PDF-1.'));
        assert.ok(bytes.toString('latin1').trimEnd().endsWith('%%EOF'));
      } else {
        assert.equal(f.content_type, 'text/html; charset=utf-8');
        assert.match(bytes.toString('utf8'), /^<!DOCTYPE html>[\s\S]*<\/html>\n$/);
      }
    }
  });

  it("answers every README curl example, each showing its feature with the manifest's ids", async () => {
    // The README's curl lines are what a new user tries first: run each against this demo, so an
    // id that no longer shows what the README says (a running "latest" report, an answer without
    // HTML, two downloads saved under one name) fails here instead of in front of the user.
    const readme = readFileSync(join(import.meta.dirname, '../README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('### curl examples'));
    const block = section.slice(
      section.indexOf('```sh'),
      section.indexOf('```', section.indexOf('```sh') + 5),
    );
    const lines = block.split('\n').filter((line) => line.startsWith('curl '));
    assert.ok(lines.length > 20, `only ${lines.length} curl lines found in the README`);
    const key = await mintKey(a.dbs.primary, acme, { pepper: a.config.keyPepper });
    const answers = new Map<string, { json: () => unknown; headers: Record<string, unknown> }>();
    const savedAs: string[] = [];
    for (const line of lines) {
      const path = /"\$API(\/[^"]+)"/.exec(line)?.[1];
      assert.ok(path, `no $API path in: ${line}`);
      const res = await a.app.inject({ url: path, headers: line.includes('"$AUTH"') ? bearer(key) : {} });
      assert.equal(res.statusCode, 200, `${line}\n${res.body}`);
      assert.ok(res.rawPayload.byteLength > 0, `empty body: ${line}`);
      answers.set(path, res);
      if (/ -OJ /.test(line)) {
        const name = /filename="([^"]+)"/.exec(String(res.headers['content-disposition']))?.[1];
        assert.ok(name, `no file name: ${line}`);
        savedAs.push(name);
      }
    }
    assert.equal(savedAs.length, 2);
    assert.equal(new Set(savedAs).size, savedAs.length, `downloads overwrite each other: ${savedAs}`);

    const { reports, responses } = manifest;
    const answerTo = (path: string) => {
      const res = answers.get(path);
      assert.ok(res, `the README has no example ${path}`);
      return res;
    };
    type Artifact = { id: string; status: string; downloadUrl: string };
    const latest = answerTo('/api/brands/9/reports/latest/?type=in_depth_report').json() as Artifact;
    assert.equal(latest.id, String(reports.latestInDepthId));
    assert.equal(latest.status, 'complete');
    assert.match(latest.downloadUrl, /\/api\/reports\/\d+\/download\/$/);
    assert.equal(
      (answerTo(`/api/brands/9/reports/${reports.latestInDepthId}/`).json() as Artifact).status,
      'complete',
    );
    const pdf = answerTo(`/api/reports/${reports.latestInDepthId}/download.pdf`);
    assert.equal(pdf.headers['content-type'], 'application/pdf');
    // "PDF, else HTML": the README downloads the HTML-only report through /download/.
    assert.match(
      String(answerTo(`/api/reports/${reports.completeHtmlId}/download/`).headers['content-type']),
      /^text\/html/,
    );

    // The README names the running report as the one to poll, and the failed one beside it.
    assert.equal((answerTo(`/api/reports/${reports.pendingId}/`).json() as Artifact).status, 'running');
    assert.ok(readme.includes(`(${reports.failedId} failed)`), 'the README does not name the failed report');
    const failed = await db
      .selectFrom('report_artifacts')
      .select('status')
      .where('id', '=', reports.failedId)
      .executeTakeFirstOrThrow();
    assert.equal(failed.status, 'failed');

    const answer = answerTo(`/api/responses/${responses.withHtmlId}/?includeHtml=true`).json() as {
      answerHtml: string;
      mentioned: boolean;
    };
    assert.match(answer.answerHtml, /^<p>/);
    assert.equal(answer.mentioned, true);
  });

  it('has recommendations in every status, a soft-deleted one, with artifacts and outcomes', async () => {
    // All generated (a finding key each), drafted by the simulated engine, measured as of the anchor.
    const written = await db.selectFrom('recommendations').select(['finding_key', 'org_id']).execute();
    assert.ok(written.length > 0);
    assert.deepEqual(
      written.filter((r) => r.finding_key === ''),
      [],
    );
    const drafts = await db
      .selectFrom('recommendation_artifacts')
      .select(['generated_by_model', 'generation_prompt_version'])
      .execute();
    assert.ok(drafts.length > 0);
    for (const d of drafts) {
      assert.equal(d.generated_by_model, 'simulated');
      assert.match(d.generation_prompt_version, /^(content-brief@1|outreach-note@2)$/);
    }
    const measured = await db
      .selectFrom('recommendation_outcomes')
      .select('measured_at')
      .where('is_measured', '=', 1)
      .execute();
    for (const o of measured) assert.equal(o.measured_at, new Date(ANCHOR).toISOString());

    const recs = await db.selectFrom('recommendations').selectAll().where('brand_id', '=', 9).execute();
    assert.deepEqual([...new Set(recs.map((r) => r.status))].sort(), [
      'dismissed',
      'implemented',
      'in_progress',
      'open',
      'superseded',
    ]);
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    for (const r of recs) assert.match(r.id, uuid);
    const superseded = recs.find((r) => r.id === manifest.recommendations.supersededId);
    assert.equal(superseded?.status, 'superseded');
    assert.ok(superseded?.superseded_at);
    const deleted = recs.find((r) => r.id === manifest.recommendations.deletedId);
    assert.ok(deleted?.deleted_at);
    const implemented = recs.find((r) => r.status === 'implemented');
    assert.ok(implemented?.implemented_at);
    const dismissed = recs.find((r) => r.status === 'dismissed');
    assert.ok(dismissed?.dismissed_at && dismissed.dismissed_reason !== '');

    const artifacts = await db
      .selectFrom('recommendation_artifacts')
      .select(['status', 'published_at'])
      .where('org_id', '=', acme)
      .execute();
    assert.deepEqual([...new Set(artifacts.map((x) => x.status))].sort(), ['draft', 'published', 'ready']);
    for (const x of artifacts) assert.equal(x.published_at !== null, x.status === 'published');
    const outcomes = await db
      .selectFrom('recommendation_outcomes')
      .select('is_measured')
      .where('org_id', '=', acme)
      .execute();
    assert.deepEqual([...new Set(outcomes.map((o) => o.is_measured))].sort(), [0, 1]);
  });

  it('keeps every row in the organization of the brand it belongs to', async () => {
    const mismatches = [
      db
        .selectFrom('categories as t')
        .innerJoin('brands as b', 'b.id', 't.brand_id')
        .select('t.id')
        .whereRef('t.org_id', '!=', 'b.org_id'),
      db
        .selectFrom('prompts as t')
        .innerJoin('categories as c', 'c.id', 't.category_id')
        .select('t.id')
        .whereRef('t.org_id', '!=', 'c.org_id'),
      db
        .selectFrom('runs as t')
        .innerJoin('categories as c', 'c.id', 't.category_id')
        .select('t.id')
        .whereRef('t.org_id', '!=', 'c.org_id'),
      db
        .selectFrom('responses as t')
        .innerJoin('runs as r', 'r.id', 't.run_id')
        .select('t.id')
        .whereRef('t.org_id', '!=', 'r.org_id'),
      db
        .selectFrom('response_mentions as t')
        .innerJoin('responses as x', 'x.id', 't.response_id')
        .select('t.id')
        .whereRef('t.org_id', '!=', 'x.org_id'),
      db
        .selectFrom('response_citations as t')
        .innerJoin('responses as x', 'x.id', 't.response_id')
        .select('t.id')
        .whereRef('t.org_id', '!=', 'x.org_id'),
      db
        .selectFrom('report_artifacts as t')
        .innerJoin('brands as b', 'b.id', 't.brand_id')
        .select('t.id')
        .whereRef('t.org_id', '!=', 'b.org_id'),
      db
        .selectFrom('recommendations as t')
        .innerJoin('brands as b', 'b.id', 't.brand_id')
        .select('t.id')
        .whereRef('t.org_id', '!=', 'b.org_id'),
    ];
    for (const query of mismatches) assert.deepEqual(await query.execute(), []);
    // Mentions of competitors point at a competitor of the response's own category.
    const strays = db
      .selectFrom('response_mentions as m')
      .innerJoin('responses as x', 'x.id', 'm.response_id')
      .innerJoin('competitors as c', 'c.id', 'm.competitor_id')
      .select('m.id')
      .whereRef('c.category_id', '!=', 'x.category_id');
    assert.deepEqual(await strays.execute(), []);
  });
});

describe('demo building blocks', () => {
  it('derives independent, repeatable PRNG streams and UUID-shaped ids', () => {
    const one = new Prng('seed').derive('x');
    const two = new Prng('seed').derive('x');
    const draws = Array.from({ length: 5 }, () => one.next());
    assert.deepEqual(
      Array.from({ length: 5 }, () => two.next()),
      draws,
    );
    const other = new Prng('seed').derive('y');
    assert.notDeepEqual(
      Array.from({ length: 5 }, () => other.next()),
      draws,
    );
    assert.match(
      new Prng('seed').uuid(),
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    const r = new Prng('ints');
    for (let i = 0; i < 200; i++) {
      const n = r.int(2, 4);
      assert.ok(n >= 2 && n <= 4 && Number.isInteger(n));
    }
  });

  it('renders the answer markdown subset to HTML, escaping text', () => {
    assert.equal(
      markdownToHtml(
        'Intro <b>:\n\n1. **Zendesk** – [zendesk.com](https://www.zendesk.com)\n2. Front\n\n| A | B |\n|---|---|\n| x | y |',
      ),
      '<p>Intro &#60;b&#62;:</p>\n' +
        '<ol><li><strong>Zendesk</strong> – <a href="https://www.zendesk.com">zendesk.com</a></li><li>Front</li></ol>\n' +
        '<table><thead><tr><th>A</th><th>B</th></tr></thead><tbody><tr><td>x</td><td>y</td></tr></tbody></table>',
    );
    assert.equal(
      markdownToHtml('Sources:\n[1] https://g2.com/a'),
      '<p>Sources:<br>[1] <a href="https://g2.com/a">https://g2.com/a</a></p>',
    );
  });
});
