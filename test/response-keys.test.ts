import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { insertRows } from '../src/db/bulk-insert.ts';
import { createTestContext, type TestContext } from './support/context.ts';
import { BrandFixture, insertOrg } from './support/fixtures.ts';

// A response's mentions and citations belong to its organization and its run: the import writes
// them so, and the schema refuses anything else: one composite key per table checks the three
// together (migration 0007 on PostgreSQL, 0008 on SQLite).

let ctx: TestContext;
const ids = { org: 0, otherOrg: 0, run: 0, otherRun: 0, response: 0 };

before(async () => {
  ctx = await createTestContext();
  const db = ctx.dbs.primary;
  ids.org = await insertOrg(db, 'keys');
  ids.otherOrg = await insertOrg(db, 'keys-other');
  const brand = await BrandFixture.insert(db, ids.org);
  const category = await brand.category();
  const prompt = await brand.prompt(category);
  ids.run = await brand.run({ category, answers: [{ prompt }] });
  ids.otherRun = await brand.run({ category, answers: [{ prompt }] });
  const response = await db
    .selectFrom('responses')
    .select('id')
    .where('run_id', '=', ids.run)
    .executeTakeFirstOrThrow();
  ids.response = response.id;
});

after(() => ctx.close());

const mention = (orgId: number, runId: number, responseId: number) => ({
  org_id: orgId,
  run_id: runId,
  response_id: responseId,
  competitor_id: null,
  is_brand: 1,
  name: 'Keys Co',
  rank: 1,
});

const citation = (orgId: number, runId: number, responseId: number) => ({
  org_id: orgId,
  run_id: runId,
  response_id: responseId,
  url: 'https://keys.example/a',
  domain: 'keys.example',
  position: 1,
});

/** The SQLSTATE (PostgreSQL) or extended code (SQLite) of a refused foreign key. */
function isForeignKeyRefusal(error: unknown): boolean {
  const { code, errcode } = error as { code?: unknown; errcode?: unknown };
  return code === '23503' || errcode === 787;
}

async function count(table: 'response_mentions' | 'response_citations'): Promise<number> {
  const row = await ctx.dbs.primary
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

it("writes a mention and a citation of a response under the response's organization and run", async () => {
  const before = { mentions: await count('response_mentions'), citations: await count('response_citations') };
  await insertRows(ctx.dbs.primary, 'response_mentions', [mention(ids.org, ids.run, ids.response)]);
  await insertRows(ctx.dbs.primary, 'response_citations', [citation(ids.org, ids.run, ids.response)]);
  assert.deepEqual(
    { mentions: await count('response_mentions'), citations: await count('response_citations') },
    { mentions: before.mentions + 1, citations: before.citations + 1 },
  );
});

it('refuses a mention or a citation of a response that does not exist, and writes none of its batch', async () => {
  const before = { mentions: await count('response_mentions'), citations: await count('response_citations') };
  const missing = ids.response + 1_000_000;
  await assert.rejects(
    insertRows(ctx.dbs.primary, 'response_mentions', [
      mention(ids.org, ids.run, ids.response),
      mention(ids.org, ids.run, missing),
    ]),
    isForeignKeyRefusal,
  );
  await assert.rejects(
    insertRows(ctx.dbs.primary, 'response_citations', [citation(ids.org, ids.run, missing)]),
    isForeignKeyRefusal,
  );
  assert.deepEqual(
    { mentions: await count('response_mentions'), citations: await count('response_citations') },
    before,
  );
});

it("refuses a mention or a citation filed under another organization or run than its response's", async () => {
  const db = ctx.dbs.primary;
  const before = { mentions: await count('response_mentions'), citations: await count('response_citations') };
  for (const [orgId, runId] of [
    [ids.otherOrg, ids.run],
    [ids.org, ids.otherRun],
  ] as const) {
    await assert.rejects(
      insertRows(db, 'response_mentions', [mention(orgId, runId, ids.response)]),
      isForeignKeyRefusal,
    );
    await assert.rejects(
      insertRows(db, 'response_citations', [citation(orgId, runId, ids.response)]),
      isForeignKeyRefusal,
    );
  }
  assert.deepEqual(
    { mentions: await count('response_mentions'), citations: await count('response_citations') },
    before,
  );
});
