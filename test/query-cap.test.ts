import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { withQueryBudget } from '../src/db/budget.ts';
import { QueryTimeout } from '../src/errors.ts';
import { keyedGet } from '../src/http/endpoint.ts';
import type { App } from '../src/http/types.ts';
import { bearer, createTestContext, type TestContext } from './support/context.ts';
import { insertOrg, mintKey } from './support/fixtures.ts';
import { isAlive, readerPids } from './support/readers.ts';

// The per-request cap on database work, proven through the real request path: a test-only route
// runs a statement that would take minutes (a recursive count to 10^9) on the API's read handle.
// With a 200 ms cap the request must fail fast with the helpful 500, and the statement must really
// stop: on SQLite the reader process that ran it is killed; on PostgreSQL the backend is idle.

const CAP_MS = 200;
const SLOW_SQL = sql<{ n: number }>`
  with recursive counter(n) as (select 1 union all select n + 1 from counter where n < 1000000000)
  select count(*) as n from counter`;

function addProbeRoutes(app: App): void {
  keyedGet(app, '/api/test-probe/slow/', {
    scope: 'brands:read',
    schema: {},
    handler: async () => {
      const { rows } = await SLOW_SQL.execute(app.dbs.read);
      return { n: rows[0]?.n };
    },
  });
  keyedGet(app, '/api/test-probe/fast/', {
    scope: 'brands:read',
    schema: {},
    handler: async () => {
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(app.dbs.read);
      return { one: rows[0]?.one };
    },
  });
}

describe('per-request database-work cap', () => {
  let ctx: TestContext;
  let key: string;

  before(async () => {
    // One reader, so the reader that ran the slow statement is the one we can see before it.
    ctx = await createTestContext(
      { queryTimeoutMs: CAP_MS, databasePoolSize: 1 },
      { beforeReady: addProbeRoutes },
    );
    key = await mintKey(ctx.dbs.primary, await insertOrg(ctx.dbs.primary, 'acme'));
  });
  after(() => ctx?.close());

  it('answers 500 with a helpful detail and without internals', async () => {
    const res = await ctx.app.inject({ url: '/api/test-probe/slow/', headers: bearer(key) });

    assert.equal(res.statusCode, 500);
    const body = res.json();
    assert.deepEqual(Object.keys(body), ['detail']);
    assert.match(body.detail, new RegExp(`${CAP_MS} ms cap`));
    assert.match(body.detail, /narrow/i);
    assert.match(body.detail, /page_size|smaller page/i);
    // No stack frames, file paths or SQL leak to the client.
    assert.doesNotMatch(res.body, /\bat .+:\d+|\.ts\b|recursive|counter/i);
  });

  it('really stops the statement, and a fresh reader serves the next request', async () => {
    const warm = await ctx.app.inject({ url: '/api/test-probe/fast/', headers: bearer(key) });
    assert.equal(warm.statusCode, 200);
    const readersBefore = ctx.dbs.dialect === 'sqlite' ? readerPids() : [];
    if (ctx.dbs.dialect === 'sqlite') assert.equal(readersBefore.length, 1, 'one warm reader process');

    const slow = await ctx.app.inject({ url: '/api/test-probe/slow/', headers: bearer(key) });
    assert.equal(slow.statusCode, 500);

    if (ctx.dbs.dialect === 'sqlite') {
      const [victim] = readersBefore as [number];
      // SIGKILL is immediate, but the exit is reaped asynchronously: allow a moment.
      for (let i = 0; i < 50 && isAlive(victim); i++) await sleep(20);
      assert.equal(isAlive(victim), false, `reader ${victim} that ran the statement is gone`);
    } else {
      const { rows } = await sql<{ busy: number }>`
        select count(*) as busy from pg_stat_activity
        where state = 'active' and query like '%recursive counter%' and query not like '%pg_stat_activity%'`.execute(
        ctx.dbs.primary,
      );
      assert.equal(Number(rows[0]?.busy), 0, 'no backend still runs the statement');
    }

    const next = await ctx.app.inject({ url: '/api/test-probe/fast/', headers: bearer(key) });
    assert.equal(next.statusCode, 200);
    assert.deepEqual(next.json(), { one: 1 });
    if (ctx.dbs.dialect === 'sqlite') {
      const readersAfter = readerPids();
      assert.equal(readersAfter.length, 1, 'exactly one reader again, not a leftover busy one');
      assert.notEqual(readersAfter[0], readersBefore[0]);
    }
  });
});

describe('reads side by side', () => {
  let ctx: TestContext;
  let key: string;

  before(async () => {
    ctx = await createTestContext(
      { queryTimeoutMs: CAP_MS, databasePoolSize: 2 },
      { beforeReady: addProbeRoutes },
    );
    key = await mintKey(ctx.dbs.primary, await insertOrg(ctx.dbs.primary, 'acme'));
  });
  after(() => ctx?.close());

  const get = (url: string) => ctx.app.inject({ url, headers: bearer(key) });

  it('answers a quick request while a slow statement holds the other connection', async () => {
    const read = ctx.dbs.monitor.pools().find((pool) => pool.pool === 'read');
    assert.equal(read?.max, 2, 'two read connections (two SQLite readers need two cores)');
    // Both connections open (on SQLite, both reader processes started).
    const warm = await Promise.all([get('/api/test-probe/fast/'), get('/api/test-probe/fast/')]);
    assert.deepEqual(
      warm.map((res) => res.statusCode),
      [200, 200],
    );
    if (ctx.dbs.dialect === 'sqlite') assert.equal(readerPids().length, 2, 'two reader processes');

    // The slow statement runs until the cap stops it; the quick one must not wait for that. With
    // the connections handed out one at a time, it would finish second.
    const finished: string[] = [];
    const slow = get('/api/test-probe/slow/').then((res) => {
      finished.push('slow');
      return res;
    });
    const fast = get('/api/test-probe/fast/').then((res) => {
      finished.push('fast');
      return res;
    });
    const [slowRes, fastRes] = await Promise.all([slow, fast]);
    assert.equal(slowRes.statusCode, 500);
    assert.equal(fastRes.statusCode, 200);
    assert.deepEqual(finished, ['fast', 'slow']);
  });
});

describe('waiting for a connection', () => {
  let ctx: TestContext;
  let key: string;

  before(async () => {
    // One read connection (on SQLite, one reader process), so a second statement has to wait.
    ctx = await createTestContext({ databasePoolSize: 1 }, { beforeReady: addProbeRoutes });
    key = await mintKey(ctx.dbs.primary, await insertOrg(ctx.dbs.primary, 'acme'));
  });
  after(() => ctx?.close());

  it("ends when the request's budget is spent, not when the statement ahead of it ends, and the pool serves on", async () => {
    const warm = await ctx.app.inject({ url: '/api/test-probe/fast/', headers: bearer(key) });
    assert.equal(warm.statusCode, 200);
    const settled: string[] = [];
    const ahead = withQueryBudget(1_500, () => SLOW_SQL.execute(ctx.dbs.read)).then(
      () => settled.push('ahead answered'),
      (error: unknown) => settled.push(error instanceof QueryTimeout ? 'ahead stopped' : String(error)),
    );
    // The statement ahead holds the only connection once it is running.
    await sleep(100);
    await assert.rejects(
      withQueryBudget(200, () => sql`select 1 as one`.execute(ctx.dbs.read)),
      (error: unknown) => error instanceof QueryTimeout && error.message.includes('200 ms'),
    );
    settled.push('waiting one stopped');
    await ahead;
    assert.deepEqual(settled, ['waiting one stopped', 'ahead stopped']);

    // The connection that came free after the wait was given up went back to the pool.
    const next = await ctx.app.inject({ url: '/api/test-probe/fast/', headers: bearer(key) });
    assert.equal(next.statusCode, 200);
    assert.deepEqual(next.json(), { one: 1 });
    const read = ctx.dbs.monitor.pools().find((pool) => pool.pool === 'read');
    assert.deepEqual({ inUse: read?.inUse, waiting: read?.waiting }, { inUse: 0, waiting: 0 });
  });
});
