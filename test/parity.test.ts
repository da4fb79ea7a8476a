import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { createDemoContext, type DemoContext } from './support/demo.ts';
import { ENDPOINTS, type Endpoint, type PathId } from './support/endpoints.ts';
import { PINNED_DEMO_NOW } from './support/templates.ts';

// Production mode serves the same responses as the embedded default: the demo data seeded on
// SQLite and on PostgreSQL, every endpoint asked the same questions on both, the answers compared
// whole (status, JSON body or file bytes). Ordering, case-insensitive search, number and timestamp
// shapes, bytea and every aggregate must agree. scripts/test.mjs runs this file in its PostgreSQL
// pass; run alone, it uses the machine's local PostgreSQL.
process.env.TEST_DATABASE_URL ||= 'postgres://postgres@127.0.0.1:5432/test';

// More questions than each endpoint's one valid query: orderings, filters, searches (in both
// cases, and with LIKE wildcards), later pages and every window.
const EXTRA_QUERIES: Record<string, readonly string[]> = {
  '/api/brands/': [
    '',
    'sort=name',
    'sort=recent',
    'sort=last-run',
    'archived=true',
    'monitoring=on',
    'monitoring=off',
    'q=a',
    'q=A',
    'q=%25',
    'q=_',
    'page=2&page_size=2',
  ],
  '/api/brands/{brand_id}/score-history/': ['', 'since=all', 'limit=3', 'since=2020-01-01', 'range=7d'],
  '/api/brands/{brand_id}/category-deltas/': ['', 'since=all', 'since=2020-01-01'],
  '/api/brands/{brand_id}/analytics/': ['', 'range=7d', 'range=90d', 'range=all'],
  '/api/categories/{category_id}/analytics/': ['', 'range=30d', 'range=all'],
  '/api/categories/{category_id}/score-history/': ['', 'range=all'],
  '/api/brands/{brand_id}/recommendations/': ['', 'page=2&page_size=2'],
  '/api/brands/{brand_id}/categories/': ['', 'archived=true'],
  '/api/categories/{category_id}/prompts/': ['', 'page=2&page_size=3'],
  '/api/brands/{brand_id}/runs/': ['', 'page=3&page_size=7'],
  '/api/categories/{category_id}/runs/': ['', 'page=2&page_size=10'],
  '/api/runs/{run_id}/': ['', 'page=2&page_size=7'],
  '/api/responses/{response_id}/': ['', 'includeHtml=true'],
  '/api/brands/{brand_id}/reports/': ['', 'page=2&page_size=2'],
};

function fill(template: string, ids: Partial<Record<PathId, number>>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: PathId) => String(ids[name]));
}

describe('PostgreSQL serves the same responses as SQLite on the same data', () => {
  let sqlite: DemoContext;
  let postgres: DemoContext;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sightline-parity-'));
    // The demo on both sides, and one stopped "now", so rolling windows agree to the
    // millisecond and both sides start as copies of the runner's templates (no seeding here).
    const pinned = { clock: () => PINNED_DEMO_NOW };
    sqlite = await createDemoContext(
      { databaseUrl: `sqlite:${join(dir, 'parity.db')}`, redisUrl: undefined },
      pinned,
    );
    postgres = await createDemoContext({}, pinned);
    assert.equal(sqlite.ctx.dbs.dialect, 'sqlite');
    assert.equal(postgres.ctx.dbs.dialect, 'postgres');
  });
  after(async () => {
    await sqlite?.ctx.close();
    await postgres?.ctx.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('seeds identical demo data on both (the same ids name the same objects)', () => {
    assert.deepEqual(postgres.manifest, sqlite.manifest);
    assert.deepEqual(postgres.fixtures, sqlite.fixtures);
  });

  /** Every acme brand for brand endpoints, the fixtures for the others. */
  function idSets(endpoint: Endpoint): Array<Partial<Record<PathId, number>>> {
    const base = endpoint.ids(sqlite.fixtures);
    if (!endpoint.path.startsWith('/api/brands/{brand_id}/') || 'artifact_id' in base) return [base];
    return sqlite.brandIds.acme.map((brandId) => ({ ...base, brand_id: brandId }));
  }

  for (const endpoint of ENDPOINTS) {
    it(`GET ${endpoint.path}`, async () => {
      const valid = typeof endpoint.query === 'function' ? endpoint.query(sqlite.fixtures) : endpoint.query;
      const queries = [...new Set([valid, ...(EXTRA_QUERIES[endpoint.path] ?? [])])];
      const mismatches: string[] = [];
      let firstMismatch: [unknown, unknown, string] | undefined;
      let compared = 0;
      for (const ids of idSets(endpoint)) {
        for (const query of queries) {
          const url = fill(endpoint.path, ids) + (query ? `?${query}` : '');
          const [a, b] = await Promise.all(
            [sqlite, postgres].map((side) =>
              side.ctx.app.inject({ url, headers: { authorization: `Bearer ${side.keys.acme}` } }),
            ),
          );
          assert.ok(a && b);
          compared++;
          let left: unknown;
          let right: unknown;
          if (endpoint.download) {
            left = {
              status: a.statusCode,
              type: a.headers['content-type'],
              body: a.rawPayload.toString('base64'),
            };
            right = {
              status: b.statusCode,
              type: b.headers['content-type'],
              body: b.rawPayload.toString('base64'),
            };
          } else {
            left = { status: a.statusCode, body: a.json() };
            right = { status: b.statusCode, body: b.json() };
          }
          if (!isDeepStrictEqual(right, left)) {
            mismatches.push(url);
            firstMismatch ??= [right, left, url];
          }
        }
      }
      assert.ok(compared > 0);
      if (firstMismatch) {
        const [pg, lite, url] = firstMismatch;
        assert.deepEqual(
          pg,
          lite,
          `PostgreSQL (actual) differs from SQLite (expected) on ${url}; all: ${mismatches.join(', ')}`,
        );
      }
    });
  }
});
