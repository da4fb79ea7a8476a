import assert from 'node:assert/strict';
import type { DatabaseSync } from 'node:sqlite';
import { after, before, it } from 'node:test';
import { type CompiledQuery, Kysely } from 'kysely';
import { windowCoverage } from '../src/db/analytics.ts';
import { findBrand, listBrands } from '../src/db/brands.ts';
import { listCategories } from '../src/db/categories.ts';
import { sqlitePath } from '../src/db/connect.ts';
import { listPrompts } from '../src/db/prompts.ts';
import { inProcessSqliteDialect } from '../src/db/sqlite/in-process-dialect.ts';
import { openSqlite } from '../src/db/sqlite/open.js';
import type { Database } from '../src/db/types.ts';
import { cover, DAY_MS } from '../src/domain/blocks.ts';
import { createDemoContext, type DemoContext } from './support/demo.ts';

// The brand, category and prompt records must cost the same however many runs and scores a brand
// has had (docs/performance.md, "Scores at write time"): every read of runs, run scores or
// answers is an index search, never a scan, and no (sub)query that reads them sorts in a
// temporary tree (which would mean reading all of its rows first). SQLite's query plans say so.

// Tables that grow with every run (recent_prompt_scores holds two rows per prompt: it does not).
const HISTORY_TABLES = ['runs', 'run_prompt_scores', 'responses'];

let demo: DemoContext;
let sqlite: DatabaseSync;
let db: Kysely<Database>;
const statements: CompiledQuery[] = [];

before(async () => {
  // On PostgreSQL the context's URL is no SQLite path: opening it would create a stray file named
  // after the URL. scripts/test.mjs runs this file in the embedded pass only.
  if (process.env.TEST_DATABASE_URL) {
    throw new Error('read-plans.test.ts reads SQLite plans: run it without TEST_DATABASE_URL');
  }
  demo = await createDemoContext();
  sqlite = openSqlite(sqlitePath(demo.ctx.config.databaseUrl), { queryOnly: true });
  db = new Kysely<Database>({
    dialect: inProcessSqliteDialect(sqlite),
    log: (event) => {
      if (event.level === 'query') statements.push(event.query);
    },
  });
});
after(async () => {
  await db?.destroy();
  await demo?.ctx.close();
});

interface PlanLine {
  id: number;
  parent: number;
  detail: string;
}

/** The plan of one statement, as EXPLAIN QUERY PLAN words it. */
function plan(query: CompiledQuery): PlanLine[] {
  const rows = sqlite
    .prepare(`explain query plan ${query.sql}`)
    .all(...(query.parameters as Parameters<ReturnType<DatabaseSync['prepare']>['all']>));
  return rows.map((row) => ({ id: Number(row.id), parent: Number(row.parent), detail: String(row.detail) }));
}

it('reads brands, categories and prompts through index searches only', async () => {
  const orgId = demo.orgIds.acme;
  const { brandId, categoryId } = demo.fixtures;
  const page = { offset: 0, pageSize: 25 };
  for (const sort of ['last-run', 'name', 'recent'] as const) {
    await listBrands(db, orgId, { includeArchived: true }, sort, page);
  }
  await findBrand(db, orgId, brandId);
  await listCategories(db, orgId, brandId, { includeArchived: true }, page);
  await listPrompts(db, orgId, { id: categoryId, brandId }, { includeArchived: true }, page);
  assert.ok(statements.length >= 8, 'the reads were captured');

  const tables = new Map<string, string>();
  for (const query of statements) {
    // Aliases as the queries write them: `runs as r`, `run_prompt_scores as s`, …
    for (const [, table, alias] of query.sql.matchAll(/"(\w+)" as "(\w+)"/g))
      tables.set(alias as string, table as string);
    const lines = plan(query);
    const historyAlias = (line: PlanLine) => {
      const alias = /^(?:SCAN|SEARCH) (\w+)/.exec(line.detail)?.[1];
      return alias !== undefined && HISTORY_TABLES.includes(tables.get(alias) ?? alias);
    };
    for (const line of lines) {
      assert.ok(!(historyAlias(line) && line.detail.startsWith('SCAN')), `${line.detail} in: ${query.sql}`);
      // A sort in the same (sub)query as a read of history rows sorts all of them. One row by
      // its id, or the runs in flight (a search on status, a handful whatever the history), are
      // not history.
      if (line.detail.includes('TEMP B-TREE')) {
        const siblings = lines.filter(
          (other) =>
            other.parent === line.parent && other !== line && !/\b(rowid|status)=\?/.test(other.detail),
        );
        assert.ok(
          !siblings.some(historyAlias),
          `${line.detail} beside ${siblings.map((l) => l.detail)} in: ${query.sql}`,
        );
      }
    }
  }
});

it("reads a window's per-run coverage by its time range, with or without whole blocks", async () => {
  const scope = { orgId: demo.orgIds.acme, brandId: demo.fixtures.brandId };
  const now = Date.parse('2026-03-15T12:00:00.000Z');
  statements.length = 0;
  // The last days alone (one stretch of runs, no block), and 90 days (blocks and two stretches).
  await windowCoverage(db, scope, cover(now - 2 * DAY_MS, now));
  await windowCoverage(db, scope, cover(now - 90 * DAY_MS, now));
  assert.equal(statements.length, 2);
  for (const query of statements) {
    const reads = plan(query).filter((line) => / agg_run_coverage\b/.test(line.detail));
    assert.ok(reads.length > 0, query.sql);
    for (const line of reads) assert.match(line.detail, /USING INDEX agg_run_coverage_time .*finished_at>/);
  }
});
