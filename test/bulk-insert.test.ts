import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import { insertRows } from '../src/db/bulk-insert.ts';
import { createTestContext, type TestContext } from './support/context.ts';

// db/bulk-insert.ts writes the import's rows: on PostgreSQL through COPY, or, when the inserted
// rows' columns are to come back, as one array parameter per column spread into rows by unnest;
// on SQLite as multi-row inserts. Whatever a value holds, it must come back exactly as given by
// each way: control characters, backslashes, quotes and text that looks like an escape, a null
// marker or an array literal included, null itself, floats to the last bit, and more rows than one
// statement carries.

let ctx: TestContext;

before(async () => {
  ctx = await createTestContext();
});

after(() => ctx.close());

const key = { org_id: 1, brand_id: 1, category_id: 1, prompt_id: 0, methodology: 'sample_v1' };

const TEXTS = [
  'tab\there',
  'line\nbreak',
  'carriage\rreturn',
  'back\\slash',
  '\\N',
  '',
  'ends with a backslash\\',
  'ünïcødé ✓ 🙂',
  `quotes ' and " and , ;`,
  'NULL',
  'null',
  '{',
  '}',
  '{"a",b}',
  '  padded  ',
  '"',
  'a"b\\"c',
];

for (const [block, returning] of [
  [1, []],
  [5, ['domain', 'citations']],
] as const) {
  it(`writes text exactly as given, control characters, escapes and null included (${returning.length > 0 ? 'returning columns' : 'no columns back'})`, async () => {
    const back = await insertRows(
      ctx.dbs.primary,
      'agg_block_mention_domains',
      TEXTS.map((domain, i) => ({
        ...key,
        block,
        competitor_id: i === 0 ? null : i,
        domain,
        citations: i,
      })),
      returning,
    );
    const rows = await ctx.dbs.primary
      .selectFrom('agg_block_mention_domains')
      .select(['competitor_id', 'domain', 'citations'])
      .where('block', '=', block)
      .orderBy('citations')
      .execute();
    assert.deepEqual(
      rows.map((r) => ({ ...r, competitor_id: r.competitor_id === null ? null : Number(r.competitor_id) })),
      TEXTS.map((domain, i) => ({ competitor_id: i === 0 ? null : i, domain, citations: i })),
    );
    assert.deepEqual(
      back.map((r) => ({ ...r })).sort((a, b) => Number(a.citations) - Number(b.citations)),
      returning.length > 0 ? TEXTS.map((domain, i) => ({ domain, citations: i })) : [],
    );
  });
}

it('writes floats to the last bit', async () => {
  const values = [0.1 + 0.2, 1e-7, -0.5, 123456789.125, 2 / 3, 5e-324];
  await insertRows(
    ctx.dbs.primary,
    'agg_block_mentions',
    values.map((value_weighted, i) => ({
      ...key,
      block: 2,
      competitor_id: i + 1,
      mentions: 1,
      ranked_weight: 1,
      rank_weighted: i,
      value_weighted,
    })),
  );
  const rows = await ctx.dbs.primary
    .selectFrom('agg_block_mentions')
    .select('value_weighted')
    .where('block', '=', 2)
    .orderBy('competitor_id')
    .execute();
  assert.deepEqual(
    rows.map((r) => r.value_weighted),
    [0.30000000000000004, 1e-7, -0.5, 123456789.125, 0.6666666666666666, 5e-324],
  );
});

it('writes more rows than one statement carries, each once', async () => {
  const rows = Array.from({ length: 12_345 }, (_, i) => ({
    ...key,
    block: 3,
    competitor_id: null,
    domain: `d${i}.example`,
    citations: i,
  }));
  await insertRows(ctx.dbs.primary, 'agg_block_mention_domains', rows);
  const read = await ctx.dbs.primary
    .selectFrom('agg_block_mention_domains')
    .select(['domain', 'citations'])
    .where('block', '=', 3)
    .orderBy('citations')
    .execute();
  assert.equal(read.length, 12_345);
  assert.deepEqual({ ...read[0] }, { domain: 'd0.example', citations: 0 });
  assert.deepEqual({ ...read[12_344] }, { domain: 'd12344.example', citations: 12_344 });
  assert.equal(new Set(read.map((r) => r.domain)).size, 12_345);
});

it('writes a column added to the table after its first bulk insert, its columns coming back', async () => {
  const row = { ...key, block: 4, competitor_id: null, domain: 'before.example', citations: 1 };
  await insertRows(ctx.dbs.primary, 'agg_block_mention_domains', [row], ['domain']);
  await sql`alter table agg_block_mention_domains add column note text`.execute(ctx.dbs.primary);
  const later = { ...row, domain: 'after.example', citations: 2, note: 'added\tlater' };
  const back = await insertRows(ctx.dbs.primary, 'agg_block_mention_domains', [later] as (typeof row)[], [
    'domain',
  ]);
  assert.deepEqual(
    back.map((r) => ({ ...r })),
    [{ domain: 'after.example' }],
  );
  const { rows } = await sql<{ domain: string; note: string | null }>`
    select domain, note from agg_block_mention_domains where block = 4 order by citations`.execute(
    ctx.dbs.primary,
  );
  assert.deepEqual(
    rows.map((r) => ({ ...r })),
    [
      { domain: 'before.example', note: null },
      { domain: 'after.example', note: 'added\tlater' },
    ],
  );
});
