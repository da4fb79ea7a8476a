import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createBrand } from '../src/db/catalog/brands.ts';
import { createCategory } from '../src/db/catalog/categories.ts';
import { createPrompt, importPrompts, RowsRejected } from '../src/db/catalog/prompts.ts';
import type { CategoryRecord } from '../src/db/catalog/refs.ts';
import { parsePromptCsv } from '../src/domain/prompt-csv.ts';
import { createTestContext, type TestContext } from './support/context.ts';
import { insertOrg } from './support/fixtures.ts';

// `prompts import` checks a file's texts against the category as the file leaves it: a file is
// one change to the catalog, whatever the order of its lines.

describe('prompts import, a file as one change', () => {
  let ctx: TestContext;
  let org: number;
  let category: CategoryRecord;
  let fresh = 0;

  before(async () => {
    ctx = await createTestContext();
    org = await insertOrg(ctx.dbs.primary, 'acme');
  });
  after(() => ctx.close());

  /** A new category holding the given prompts, keyed or not; returns their ids by text. */
  async function categoryWith(prompts: { text: string; key?: string }[]): Promise<Map<string, number>> {
    const db = ctx.dbs.primary;
    fresh += 1;
    const brand = await createBrand(db, org, { name: `Brand ${fresh}` });
    category = await createCategory(db, brand, { name: 'CRM' });
    const ids = new Map<string, number>();
    for (const { text, key } of prompts)
      ids.set(text, (await createPrompt(db, category, { text, externalKey: key })).id);
    return ids;
  }

  const importCsv = (csv: string) => {
    const parsed = parsePromptCsv(csv);
    assert.deepEqual(parsed.errors, []);
    return importPrompts(ctx.dbs.primary, org, parsed.rows, category);
  };

  /** The category's prompts as `text → id`, in id order. */
  const textsNow = async () =>
    (
      await ctx.dbs.primary
        .selectFrom('prompts')
        .select(['id', 'text'])
        .where('category_id', '=', category.id)
        .orderBy('id')
        .execute()
    ).map((r) => [r.text, Number(r.id)]);

  it('swaps two prompts’ texts, and the same file again changes nothing', async () => {
    const ids = await categoryWith([
      { text: 'Best CRM?', key: 'a' },
      { text: 'Cheapest CRM?', key: 'b' },
    ]);
    const a = ids.get('Best CRM?');
    const b = ids.get('Cheapest CRM?');
    const file = 'text,key\nCheapest CRM?,a\nBest CRM?,b\n';
    assert.deepEqual(await importCsv(file), { created: 0, updated: 2, unchanged: 0 });
    assert.deepEqual(await textsNow(), [
      ['Cheapest CRM?', a],
      ['Best CRM?', b],
    ]);
    assert.deepEqual(await importCsv(file), { created: 0, updated: 0, unchanged: 2 });
  });

  it('gives a prompt’s old text to a new row, whether that row comes before or after the change', async () => {
    // Keys name prompts across the organization: each round has its own.
    for (const [key, file] of [
      ['c', 'text,key\nOld question?,\nNew question?,c\n'],
      ['d', 'text,key\nNew question?,d\nOld question?,\n'],
    ] as const) {
      const ids = await categoryWith([{ text: 'Old question?', key }]);
      const a = ids.get('Old question?') as number;
      assert.deepEqual(await importCsv(file), { created: 1, updated: 1, unchanged: 0 }, file);
      const [changed, created] = await textsNow();
      assert.deepEqual(changed, ['New question?', a]);
      assert.equal(created?.[0], 'Old question?');
      assert.notEqual(created?.[1], a);
      assert.deepEqual(await importCsv(file), { created: 0, updated: 0, unchanged: 2 }, file);
    }
  });

  it('still refuses a new text another prompt keeps, listing problems in line order, and writes nothing', async () => {
    const ids = await categoryWith([{ text: 'Best CRM?', key: 'e' }, { text: 'Cheapest CRM?' }]);
    const before = await textsNow();
    await assert.rejects(
      importCsv('text,key,category\nCheapest CRM?,e,\nAnother?,,nowhere\n'),
      (error: unknown) => {
        assert.ok(error instanceof RowsRejected);
        assert.deepEqual(error.errors, [
          `line 2: the new text of prompt ${ids.get('Best CRM?')} ("e") is prompt ${ids.get('Cheapest CRM?')}'s already`,
          'line 3: category "nowhere" does not exist in this organization',
        ]);
        return true;
      },
    );
    assert.deepEqual(await textsNow(), before);
  });

  it('reads and writes a file of more prompts than one statement holds, inside its organization only', async () => {
    // 1,201 keyed rows: the keys are read 1,000 a statement and the updates written 500 a
    // statement, so the rows changed below (the first, the 601st, the last) sit in different ones.
    await categoryWith([]);
    const other = await insertOrg(ctx.dbs.primary, 'other-org');
    const otherBrand = await createBrand(ctx.dbs.primary, other, { name: 'Other brand' });
    const otherCategory = await createCategory(ctx.dbs.primary, otherBrand, { name: 'CRM' });
    await createPrompt(ctx.dbs.primary, otherCategory, { text: 'Question 7?', externalKey: 'p-7' });
    const texts = Array.from({ length: 1201 }, (_, i) => `Question ${i}?`);
    const file = (rows: string[][]) => `text,key,monitored\n${rows.map((r) => r.join(',')).join('\n')}\n`;
    const rows = texts.map((text, i) => [text, `p-${i}`, 'yes']);
    assert.deepEqual(await importCsv(file(rows)), { created: 1201, updated: 0, unchanged: 0 });
    const created = await textsNow();
    assert.deepEqual(
      created.map(([text]) => text),
      texts,
    );
    const ids = created.map(([, id]) => id as number);
    assert.ok(
      ids.every((id, i) => i === 0 || id > (ids[i - 1] as number)),
      'ids in the file’s order',
    );

    const changed = rows.map((row) => [...row]);
    changed[0] = ['Question 1200?', 'p-0', 'yes'];
    changed[1200] = ['Question 0?', 'p-1200', 'yes'];
    changed[600] = ['Question 600?', 'p-600', 'no'];
    assert.deepEqual(await importCsv(file(changed)), { created: 0, updated: 3, unchanged: 1198 });
    const now = await ctx.dbs.primary
      .selectFrom('prompts')
      .select(['id', 'text', 'is_monitored'])
      .where('org_id', '=', org)
      .where('external_key', 'in', ['p-0', 'p-600', 'p-1200', 'p-7'])
      .orderBy('id')
      .execute();
    assert.deepEqual(
      now.map((p) => [Number(p.id), p.text, p.is_monitored]),
      [
        [ids[0], 'Question 1200?', 1],
        [ids[7], 'Question 7?', 1],
        [ids[600], 'Question 600?', 0],
        [ids[1200], 'Question 0?', 1],
      ],
    );
    const untouched = await ctx.dbs.primary
      .selectFrom('prompts')
      .select(['text', 'is_monitored'])
      .where('org_id', '=', other)
      .execute();
    assert.deepEqual(
      untouched.map((p) => [p.text, p.is_monitored]),
      [['Question 7?', 1]],
    );
    assert.deepEqual(await importCsv(file(changed)), { created: 0, updated: 0, unchanged: 1201 });
  });
});
