import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, it } from 'node:test';
import { bearer } from './support/context.ts';
import { createDemoContext, DEMO_ORGS, type DemoContext } from './support/demo.ts';
import { ENDPOINTS, urlFor } from './support/endpoints.ts';
import { PINNED_DEMO_NOW } from './support/templates.ts';

// Every endpoint's body on the demo data, compared with a snapshot taken from the code before the
// performance work (docs/performance.md): an optimisation may change how a figure is read, never
// the figure. JSON bodies are compared field by field, fields added since set aside. The clock and
// the seeding day are pinned, so the snapshot holds on any day. Regenerated once since, when the
// demo gained brand 10 (monitored by Sightline itself): the only earlier values that changed were
// acme's brand lists, which now hold it; and when reports' counts came to agree with their nouns
// ("1 citation of 1 domain"): report 8's PDF, an in-depth report, alone; and again when measuring
// a line of PDF text stopped writing a fill colour each time (pdfkit writes one per call), and
// once more when measuring a paragraph's height stopped too: the same PDF's bytes, its pages
// drawn pixel for pixel the same each time; and when a report stopped listing prompt changes whose
// latest run ended after its window (report 8, generated on 2026-02-22 over the 30 days before,
// had listed changes from later demo runs: its evidenceRefsCount 96 → 90, its PDF shorter); and
// when a thinned score history's buckets came to span its own points instead of the window (a
// window reaching years before the data, or long after it, kept one point): five thinned
// histories of brands 8 and 9 and category 13 keep other points, as many as before; and when a
// report's headline came to count "Samples analysed" (Σ sampleCount, said beside the usable
// answers) and an outcome's Measured line its windows as days: report 8's PDF again.
// Regenerate only for a deliberate change of output:
//   UPDATE_BODY_SNAPSHOT=1 node --test test/body-snapshot.test.ts

const SNAPSHOT = new URL('./fixtures/body-snapshot.json', import.meta.url);

let demo: DemoContext;

before(async () => {
  demo = await createDemoContext({}, { clock: () => PINNED_DEMO_NOW });
});
after(() => demo?.ctx.close());

/** The requests to compare: every endpoint of the table, then the heavier variants, per object. */
async function requests(): Promise<{ org: (typeof DEMO_ORGS)[number]; url: string }[]> {
  const { ctx, fixtures, orgIds, brandIds, manifest } = demo;
  const db = ctx.dbs.primary;
  const out: { org: (typeof DEMO_ORGS)[number]; url: string }[] = [];
  for (const endpoint of ENDPOINTS) out.push({ org: 'acme', url: urlFor(endpoint, fixtures) });

  // initech has no API access: its answers are the gate's, not the data's.
  for (const org of DEMO_ORGS.filter((o) => o !== 'initech')) {
    for (const sort of ['last-run', 'name', 'recent']) {
      out.push({ org, url: `/api/brands/?sort=${sort}&page_size=25&archived=true` });
    }
    out.push({ org, url: '/api/brands/?monitoring=on' }, { org, url: '/api/brands/?monitoring=off' });
    for (const brandId of brandIds[org]) {
      const brand = `/api/brands/${brandId}`;
      out.push(
        { org, url: `${brand}/` },
        { org, url: `${brand}/categories/?archived=true` },
        { org, url: `${brand}/category-deltas/` },
      );
      if (org !== 'acme') continue;
      for (const query of [
        'range=7d',
        'range=90d',
        'range=all',
        'range=custom&start=2025-12-01&end=2026-01-31',
      ]) {
        out.push({ org, url: `${brand}/analytics/?${query}` });
      }
      for (const query of ['', 'since=all', 'range=90d&limit=1000', 'since=2026-01-01']) {
        out.push({ org, url: `${brand}/score-history/?${query}` });
      }
      out.push(
        { org, url: `${brand}/category-deltas/?since=all` },
        { org, url: `${brand}/runs/?page_size=100` },
      );
    }
  }

  const categories = await db
    .selectFrom('categories')
    .select('id')
    .where('org_id', '=', orgIds.acme)
    .where('brand_id', '=', fixtures.brandId)
    .orderBy('id')
    .execute();
  for (const { id } of categories) {
    const category = `/api/categories/${id}`;
    out.push(
      { org: 'acme', url: `${category}/prompts/?archived=true&page_size=100` },
      { org: 'acme', url: `${category}/runs/?page_size=100` },
      { org: 'acme', url: `${category}/analytics/?range=90d` },
      { org: 'acme', url: `${category}/score-history/?range=90d&limit=1000` },
    );
  }
  const prompts = await db
    .selectFrom('prompts')
    .select('id')
    .where('org_id', '=', orgIds.acme)
    .where('brand_id', '=', fixtures.brandId)
    .orderBy('id')
    .execute();
  for (const { id } of prompts) out.push({ org: 'acme', url: `/api/prompts/${id}/changes/` });

  for (const runId of [manifest.bigRunId, manifest.legacyRunId, manifest.inFlightRunId, fixtures.runId]) {
    out.push(
      { org: 'acme', url: `/api/runs/${runId}/?page_size=500` },
      { org: 'acme', url: `/api/runs/${runId}/status/` },
    );
  }
  const { responses } = manifest;
  for (const id of [responses.withTextId, responses.withoutTextId, responses.withHtmlId]) {
    out.push({ org: 'acme', url: `/api/responses/${id}/?includeHtml=true` });
  }
  return out;
}

/** The body as the snapshot keeps it: JSON as the exact text sent, anything else by its digest. */
function kept(contentType: string | undefined, payload: Buffer): unknown {
  if (contentType?.startsWith('application/json')) return payload.toString('utf8');
  return { contentType, sha256: createHash('sha256').update(payload).digest('hex') };
}

// Fields added since the snapshot (the uncertainty of each figure, methodology.md): new fields
// beside the old ones, which must keep their values exactly, so they are set aside to compare.
const ADDED = new Set([
  'interval',
  'intervalReason',
  'significance',
  'shareDeltaSignificance',
  'mentionRateInterval',
  'mentionRateIntervalReason',
  'latestScoreInterval',
  'latestScoreIntervalReason',
]);

/** A JSON body without the added fields, in its own key order; other bodies as kept. */
function comparable(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  return JSON.stringify(JSON.parse(body), (key, value) => (ADDED.has(key) ? undefined : value));
}

it('answers every endpoint on the demo data exactly as before the performance work', async () => {
  const bodies: Record<string, { status: number; body: unknown }> = {};
  for (const { org, url } of await requests()) {
    const key = `${org} ${url}`;
    if (key in bodies) continue;
    const res = await demo.ctx.app.inject({ method: 'GET', url, headers: bearer(demo.keys[org]) });
    bodies[key] = { status: res.statusCode, body: kept(res.headers['content-type'], res.rawPayload) };
  }
  if (process.env.UPDATE_BODY_SNAPSHOT === '1') {
    writeFileSync(SNAPSHOT, `${JSON.stringify(bodies, null, 2)}\n`);
    return;
  }
  const expected = JSON.parse(readFileSync(SNAPSHOT, 'utf8')) as typeof bodies;
  assert.deepEqual(Object.keys(bodies), Object.keys(expected), 'the same requests');
  for (const key of Object.keys(expected)) {
    const [now, then] = [bodies[key], expected[key]];
    assert.deepEqual(
      { status: now?.status, body: comparable(now?.body) },
      { status: then?.status, body: comparable(then?.body) },
      key,
    );
  }
});
