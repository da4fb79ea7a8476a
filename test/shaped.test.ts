import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kysely, sql } from 'kysely';
import { executeShaped } from '../src/db/shaped.ts';
import { inProcessSqliteDialect } from '../src/db/sqlite/in-process-dialect.ts';
import { openSqlite } from '../src/db/sqlite/open.js';
import { GENERIC_PLAN } from '../src/db/statement-hints.ts';
import type { Database } from '../src/db/types.ts';
import { createTestContext, type TestContext } from './support/context.ts';
import { insertOrg } from './support/fixtures.ts';

// Statements built and compiled once per shape (src/db/shaped.ts), on the suite's database (SQLite,
// or PostgreSQL in the production pass): each call reads its own values through the kept text.

describe('statements compiled once per shape', () => {
  let ctx: TestContext;
  const ids: Record<string, number> = {};

  before(async () => {
    ctx = await createTestContext();
    for (const slug of ['alpha', 'beta', 'gamma'])
      ids[slug] = await insertOrg(ctx.dbs.primary, slug, { plan: 'pro' });
  });
  after(() => ctx.close());

  const slugsOf = async (input: { ids: number[]; plan?: string }) => {
    const { rows } = await executeShaped(ctx.dbs.read, 'test slugs', input, ({ ids, plan }) => {
      let query = ctx.dbs.read.selectFrom('organizations').select('slug').where('id', 'in', ids);
      if (plan !== undefined) query = query.where('plan', '=', plan);
      return query.orderBy('id');
    });
    return rows.map((r) => r.slug);
  };

  it("reads each call's own values, whether its shape was compiled before or not", async () => {
    assert.deepEqual(await slugsOf({ ids: [ids.alpha as number] }), ['alpha']);
    // The same shape (one id) with another value: not the first call's id again.
    assert.deepEqual(await slugsOf({ ids: [ids.beta as number] }), ['beta']);
    // Two ids and three are shapes of their own.
    assert.deepEqual(await slugsOf({ ids: [ids.gamma as number, ids.alpha as number] }), ['alpha', 'gamma']);
    assert.deepEqual(await slugsOf({ ids: [ids.alpha, ids.beta, ids.gamma] as number[] }), [
      'alpha',
      'beta',
      'gamma',
    ]);
  });

  it('tells a member that is there from one that is not', async () => {
    const all = [ids.alpha, ids.beta] as number[];
    assert.deepEqual(await slugsOf({ ids: all }), ['alpha', 'beta']);
    assert.deepEqual(await slugsOf({ ids: all, plan: 'free' }), []);
    assert.deepEqual(await slugsOf({ ids: all, plan: 'pro' }), ['alpha', 'beta']);
  });

  it("keeps the text's own constants beside the call's values", async () => {
    const slugs = async (id: number) => {
      const { rows } = await executeShaped(
        ctx.dbs.read,
        'test constant',
        { id },
        ({ id }) =>
          sql<{ slug: string }>`select slug from organizations where id = ${id} and plan = ${'pro'}`,
      );
      return rows.map((r) => r.slug);
    };
    assert.deepEqual(await slugs(ids.beta as number), ['beta']);
    assert.deepEqual(await slugs(ids.gamma as number), ['gamma']);
  });

  it('keeps the text asked for a generic plan apart from the one asked without, under the same name', async () => {
    // The texts a connection is sent, seen through Kysely's log on a database of the test's own.
    const sent: string[] = [];
    const db = new Kysely<Database>({
      dialect: inProcessSqliteDialect(openSqlite(':memory:')),
      log: (event) => {
        sent.push(event.query.sql);
      },
    });
    try {
      const one = (genericPlan: boolean) =>
        executeShaped(db, 'test plan hint', { n: 1 }, ({ n }) => sql`select ${n} as n`, { genericPlan });
      await one(true);
      await one(false);
      await one(true);
      assert.deepEqual(sent, [
        `${GENERIC_PLAN}select ? as n`,
        'select ? as n',
        `${GENERIC_PLAN}select ? as n`,
      ]);
    } finally {
      await db.destroy();
    }
  });

  it('refuses a statement built from a value rather than around it, and an input that is not data', async () => {
    await assert.rejects(
      async () =>
        executeShaped(
          ctx.dbs.read,
          'test computed',
          { id: ids.alpha as number },
          ({ id }) => sql<{ slug: string }>`select slug from organizations where id = ${id + 1}`,
        ),
      /built from one of its values rather than around it/,
    );
    await assert.rejects(
      async () => executeShaped(ctx.dbs.read, 'test date', { at: new Date() }, () => sql`select 1`),
      /input holds something other than values, lists and records/,
    );
  });
});
