import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { connectDatabases, type Databases, type Db } from '../src/db/connect.ts';
import { restartEmptySequences, takeDemoSeedTurn } from '../src/db/demo.ts';
import { isoFromPostgres } from '../src/db/postgres/type-parsers.ts';
import { GENERIC_PLAN, LOOKUP } from '../src/db/statement-hints.ts';
import { seedDemo } from '../src/demo/seed.ts';
import { keyedGet } from '../src/http/endpoint.ts';
import type { App } from '../src/http/types.ts';
import { bearer, createTestContext, type TestContext } from './support/context.ts';
import { BrandFixture, insertOrg, mintKey } from './support/fixtures.ts';
import { createTestDatabase } from './support/services.ts';

// Production mode on PostgreSQL: the per-request cap enforced server-side by statement_timeout,
// reads on a replica, recovery from lost connections and an unreachable database, and values
// read back in the same shapes as on SQLite. scripts/test.mjs runs this file only in its
// PostgreSQL pass; run alone, it uses the machine's local PostgreSQL.
process.env.TEST_DATABASE_URL ||= 'postgres://postgres@127.0.0.1:5432/test';
const adminUrl = process.env.TEST_DATABASE_URL;

const CAP_MS = 300;

function addProbeRoutes(app: App): void {
  // One statement far longer than the cap.
  keyedGet(app, '/api/test-probe/sleep/', {
    scope: 'brands:read',
    schema: {},
    handler: async () => {
      await sql`select pg_sleep(5)`.execute(app.dbs.read);
      return { slept: true };
    },
  });
  // Two statements that each fit the cap but not together: the cap is per request.
  keyedGet(app, '/api/test-probe/two-sleeps/', {
    scope: 'brands:read',
    schema: {},
    handler: async () => {
      await sql`select pg_sleep(0.2)`.execute(app.dbs.read);
      await sql`select pg_sleep(0.2)`.execute(app.dbs.read);
      return { slept: true };
    },
  });
  // The statement_timeout the server applies, before and after 150 ms of the budget is spent.
  keyedGet(app, '/api/test-probe/timeouts/', {
    scope: 'brands:read',
    schema: {},
    handler: async () => {
      const show = async () =>
        (await sql<{ statement_timeout: string }>`show statement_timeout`.execute(app.dbs.read)).rows[0]
          ?.statement_timeout;
      const first = await show();
      await sleep(150);
      return { first, second: await show() };
    },
  });
  keyedGet(app, '/api/test-probe/one/', {
    scope: 'brands:read',
    schema: {},
    handler: async () => {
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(app.dbs.read);
      return rows[0];
    },
  });
}

/** Where a statement can run: the databases' handles, or a transaction on one. */
type Executes = Parameters<ReturnType<typeof sql>['execute']>[0];

const ms = (setting: string | undefined) => {
  const match = /^(\d+)(ms)?$/.exec(setting ?? '');
  assert.ok(match, `statement_timeout "${setting}"`);
  return Number(match[1]);
};

/** An organization's key, and its brand with one answer yesterday that mentions it first. */
async function brandMentionedYesterday(dbs: Databases) {
  const orgId = await insertOrg(dbs.primary, 'acme');
  const key = await mintKey(dbs.primary, orgId);
  const brand = await BrandFixture.insert(dbs.primary, orgId, { name: 'Acme' });
  const category = await brand.category();
  const prompt = await brand.prompt(category);
  const yesterday = new Date(Date.now() - 86_400_000).toISOString();
  await brand.run({ category, finishedAt: yesterday, answers: [{ prompt, mentioned: true, rank: 1 }] });
  return { key, brand };
}

async function activeStatements(dbs: Databases, pattern: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*) as n from pg_stat_activity
    where state = 'active' and query like ${pattern} and pid <> pg_backend_pid()`.execute(dbs.primary);
  return rows[0]?.n ?? -1;
}

describe('PostgreSQL: the per-request database-work cap is statement_timeout', () => {
  let ctx: TestContext;
  let key: string;
  before(async () => {
    // One read connection, so every request below reuses the one whose timeout was last set.
    ctx = await createTestContext(
      { queryTimeoutMs: CAP_MS, databasePoolSize: 1 },
      { beforeReady: addProbeRoutes },
    );
    assert.equal(ctx.dbs.dialect, 'postgres');
    key = await mintKey(ctx.dbs.primary, await insertOrg(ctx.dbs.primary, 'acme'));
  });
  after(() => ctx.close());

  it('cancels a slow statement server-side and answers 500 naming the cap', async () => {
    const res = await ctx.app.inject({ url: '/api/test-probe/sleep/', headers: bearer(key) });
    assert.equal(res.statusCode, 500);
    // Only a cancelled statement produces this message (SQLSTATE 57014 → QueryTimeout).
    assert.match(res.json().detail, /300 ms cap/);
    // Cancelled by the server, not abandoned by the client: nothing still sleeps.
    assert.equal(await activeStatements(ctx.dbs, '%pg_sleep(5)%'), 0);
  });

  it('serves the next request on the same connection with a fresh budget', async () => {
    const res = await ctx.app.inject({ url: '/api/test-probe/one/', headers: bearer(key) });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { one: 1 });
  });

  it('caps the request as a whole: two 200 ms statements do not fit in 300 ms', async () => {
    // Each statement alone fits the cap, so only a cap on the request's total can refuse this:
    // the second statement gets the ~100 ms left.
    const res = await ctx.app.inject({ url: '/api/test-probe/two-sleeps/', headers: bearer(key) });
    assert.equal(res.statusCode, 500);
    assert.match(res.json().detail, /300 ms cap/);
  });

  it('sets statement_timeout to what is left of the budget', async () => {
    const res = await ctx.app.inject({ url: '/api/test-probe/timeouts/', headers: bearer(key) });
    assert.equal(res.statusCode, 200);
    const { first, second } = res.json();
    // First statement: at most the 300 ms cap (a setting within 25 ms above the remaining budget
    // is reused). After 150 ms more, at most 300 − 150 + 25 = 175 ms remain allowed.
    assert.ok(ms(first) <= CAP_MS && ms(first) >= CAP_MS - 100, `first ${first}`);
    assert.ok(ms(second) <= 175 && ms(second) > 0, `second ${second}`);
  });

  it('caps reads outside a request at the configured cap, and leaves the primary uncapped', async () => {
    const read = await sql<{ statement_timeout: string }>`show statement_timeout`.execute(ctx.dbs.read);
    assert.equal(ms(read.rows[0]?.statement_timeout), CAP_MS);
    // Migrations and imports run on the primary and may take as long as they need.
    const primary = await sql<{ statement_timeout: string }>`show statement_timeout`.execute(ctx.dbs.primary);
    assert.equal(primary.rows[0]?.statement_timeout, '0');
  });
});

describe('PostgreSQL: lost connections and an unreachable database', () => {
  let ctx: TestContext;
  let key: string;
  before(async () => {
    ctx = await createTestContext({ queryTimeoutMs: 10_000 }, { beforeReady: addProbeRoutes });
    key = await mintKey(ctx.dbs.primary, await insertOrg(ctx.dbs.primary, 'acme'));
  });
  after(() => ctx.close());

  async function terminateBackends(): Promise<number> {
    const admin = connectDatabases({ ...ctx.config, databaseUrl: adminUrl, databasePoolSize: 1 });
    try {
      const { rows } = await sql<{ n: number }>`
        select count(pg_terminate_backend(pid)) as n from pg_stat_activity
        where datname = ${new URL(ctx.config.databaseUrl).pathname.slice(1)}`.execute(admin.primary);
      return rows[0]?.n ?? 0;
    } finally {
      await admin.close();
    }
  }

  it('answers 503 with Retry-After when a statement loses its connection, then recovers by itself', async () => {
    // Warm the pools so there are backends to lose.
    for (let i = 0; i < 3; i++) {
      assert.equal(
        (await ctx.app.inject({ url: '/api/test-probe/one/', headers: bearer(key) })).statusCode,
        200,
      );
    }
    const inFlight = ctx.app.inject({ url: '/api/test-probe/sleep/', headers: bearer(key) });
    // Wait until the statement is running, then kill every backend of the database.
    for (let i = 0; i < 100 && (await activeStatements(ctx.dbs, '%pg_sleep(5)%')) === 0; i++) await sleep(20);
    assert.ok((await terminateBackends()) >= 2, 'terminated the pools backends');

    const lost = await inFlight;
    assert.equal(lost.statusCode, 503, lost.body);
    assert.ok(Number(lost.headers['retry-after']) >= 1, 'Retry-After');
    assert.ok(lost.json().detail);

    // Idle pooled connections died too; the pools replace them without help. Allow a request or
    // two to meet a connection whose death is still in flight, but never a 500.
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await ctx.app.inject({ url: '/api/test-probe/one/', headers: bearer(key) });
      statuses.push(res.statusCode);
      if (res.statusCode === 503) assert.ok(res.headers['retry-after']);
    }
    assert.ok(
      statuses.every((s) => s === 200 || s === 503),
      `statuses ${statuses}`,
    );
    assert.deepEqual(statuses.slice(-5), [200, 200, 200, 200, 200], `statuses ${statuses}`);
  });

  it('answers 503 with Retry-After, and /readyz 503, while the database cannot be reached', async () => {
    // Nothing listens on port 1: every connection attempt is refused, as during a restart.
    const down = 'postgres://postgres@127.0.0.1:1/nowhere';
    const app = await buildApp(
      { ...ctx.config, databaseUrl: down, databaseReadUrl: down, redisUrl: undefined },
      { logger: false },
    );
    try {
      const res = await app.inject({ url: '/api/test-probe/one/', headers: bearer(key) });
      assert.equal(res.statusCode, 503);
      assert.equal(res.headers['retry-after'], '5');
      assert.ok(res.json().detail);
      const ready = await app.inject({ url: '/readyz' });
      assert.equal(ready.statusCode, 503);
      assert.equal(ready.json().checks.database, 'unreachable');
      assert.equal((await app.inject({ url: '/healthz' })).statusCode, 200, 'still alive');
    } finally {
      await app.close();
    }
  });
});

describe('PostgreSQL: reads on a replica (DATABASE_READ_URL)', () => {
  it('sends API reads to the read URL and everything else to the primary', async () => {
    const primary = await createTestDatabase(adminUrl);
    const replica = await createTestDatabase(adminUrl);
    const dbs = connectDatabases({
      databaseUrl: primary.url,
      databaseReadUrl: replica.url,
      databasePoolSize: 2,
      databasePreparedStatements: 100,
      queryTimeoutMs: 1000,
    });
    try {
      const current = async (db: Databases['read']) =>
        (await sql<{ db: string }>`select current_database() as db`.execute(db)).rows[0]?.db;
      assert.equal(await current(dbs.read), new URL(replica.url).pathname.slice(1));
      assert.equal(await current(dbs.primary), new URL(primary.url).pathname.slice(1));
    } finally {
      await dbs.close();
      await primary.drop();
      await replica.drop();
    }
  });
});

describe('PostgreSQL: the data version', () => {
  it('is read once for callers arriving together, and a caller asking after a commit sees it', async () => {
    const db = await createTestDatabase(adminUrl);
    const dbs = connectDatabases({
      databaseUrl: db.url,
      databaseReadUrl: undefined,
      databasePoolSize: 4,
      databasePreparedStatements: 100,
      queryTimeoutMs: 1000,
    });
    try {
      await sql`create table version_probe (id integer)`.execute(dbs.primary);
      const reads: string[] = [];
      const unsubscribe = dbs.monitor.subscribe((o) => reads.push(o.pool));
      const together = await Promise.all(Array.from({ length: 20 }, () => dbs.dataVersion()));
      unsubscribe();
      // The first caller's read, then one more for the nineteen that came while it was under way.
      assert.deepEqual(reads, ['read', 'read']);
      assert.equal(new Set(together.slice(1)).size, 1);
      const before = await dbs.dataVersion();
      const underWay = dbs.dataVersion();
      await sql`insert into version_probe values (1)`.execute(dbs.primary);
      const after = dbs.dataVersion();
      await underWay;
      assert.notEqual(await after, before);
    } finally {
      await dbs.close();
      await db.drop();
    }
  });
});

describe('PostgreSQL: an analytics request reads the data version beside its brand lookup', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ databasePoolSize: 4 });
  });
  after(() => ctx?.close());

  it('has the version read while the brand lookup still waits', async () => {
    const { key, brand } = await brandMentionedYesterday(ctx.dbs);
    const url = `/api/brands/${brand.brandId}/analytics/?range=30d`;
    // The key is verified once and kept, so the request below reads nothing before its lookup.
    assert.equal((await ctx.app.inject({ url, headers: bearer(key) })).statusCode, 200);
    // That answer's sums are kept once their stamp, read again after the answer, holds: a read
    // that could land among the ones counted below (seen once in CI: ['ok', 'ok']).
    await ctx.app.analyticsCache?.settled();

    // The brand's lookup waits behind a lock taken in another session.
    const locker = new pg.Client(ctx.config.databaseUrl);
    await locker.connect();
    await locker.query('begin');
    await locker.query('lock table brands in access exclusive mode');
    const reads: string[] = [];
    const unsubscribe = ctx.dbs.monitor.subscribe((o) => {
      if (o.pool === 'read') reads.push(o.outcome);
    });
    const answered = ctx.app.inject({ url, headers: bearer(key) });
    let settled = false;
    const settle = () => {
      settled = true;
    };
    answered.then(settle, settle);
    try {
      while (!settled && (await activeStatements(ctx.dbs, '%from "brands"%')) === 0) await sleep(10);
      assert.equal(settled, false, 'the request was answered without waiting for the lock');
      // The version's read may still be on its way back; the lookup cannot end while the lock holds.
      for (let waited = 0; reads.length === 0 && waited < 2_000; waited += 10) await sleep(10);
      // Read before the lookup was answered: the data version, and nothing else.
      assert.deepEqual(reads, ['ok']);
      assert.equal(await activeStatements(ctx.dbs, '%from "brands"%'), 1);
    } finally {
      unsubscribe();
      await locker.query('rollback');
      await locker.end();
    }
    const res = await answered;
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().metrics.mentionRate.value, 1);
  });
});

describe('PostgreSQL: values come back as on SQLite', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(() => ctx.close());

  it('reads timestamps as ISO-8601 UTC text whatever the server time zone, and counts as numbers', async () => {
    const name = new URL(ctx.config.databaseUrl).pathname.slice(1);
    // A server or database in another zone must not change what the API serves.
    await sql`alter database ${sql.id(name)} set timezone = 'Asia/Kolkata'`.execute(ctx.dbs.primary);
    const fresh = connectDatabases({ ...ctx.config, databasePoolSize: 1 });
    try {
      const orgId = await insertOrg(ctx.dbs.primary, 'acme');
      const row = await fresh.read
        .selectFrom('organizations')
        .select(['id', 'created_at'])
        .where('id', '=', orgId)
        .executeTakeFirstOrThrow();
      assert.equal(row.created_at, '2026-01-01T00:00:00.000Z');
      assert.equal(row.id, orgId);
      const { rows } = await sql<{ n: number; total: number; avg: number }>`
        select count(*) as n, sum(id) as total, avg(api_access) as avg from organizations`.execute(
        fresh.read,
      );
      // One organization with api_access 1: count 1, sum of ids = its id, average 1.
      assert.deepEqual(rows[0], { n: 1, total: orgId, avg: 1 });
    } finally {
      await fresh.close();
    }
  });

  it('parses PostgreSQL timestamp text exactly, offsets and microseconds included', () => {
    assert.equal(isoFromPostgres('2026-03-04 05:06:07+00'), '2026-03-04T05:06:07.000Z');
    assert.equal(isoFromPostgres('2026-03-04 05:06:07.123456+00'), '2026-03-04T05:06:07.123Z');
    // 10:36:07.5 at +05:30 is 05:06:07.5 UTC.
    assert.equal(isoFromPostgres('2026-03-04 10:36:07.5+05:30'), '2026-03-04T05:06:07.500Z');
    // 00:30 at −01:00 is 01:30 UTC the same day.
    assert.equal(isoFromPostgres('2026-03-04 00:30:00-01'), '2026-03-04T01:30:00.000Z');
    // A year below 100 stays that year (Date's own parser would read 0099 as 1999).
    assert.equal(isoFromPostgres('0099-01-01 00:00:00+00'), '0099-01-01T00:00:00.000Z');
    // `timestamp` without a zone is taken as UTC.
    assert.equal(isoFromPostgres('2026-03-04 05:06:07'), '2026-03-04T05:06:07.000Z');
    assert.equal(isoFromPostgres('infinity'), 'infinity');
  });

  it('reads UTC timestamp text as Date would print the same instant, fraction truncated to ms', () => {
    // UTC text is rewritten without Date; every instant here checks that against Date itself.
    const pad = (n: number, width: number) => String(n).padStart(width, '0');
    for (let i = 0; i < 2000; i++) {
      const ms = Math.floor(((i * 7919) % 2000) * 1.6e10 - 6e12 + i * 12_345);
      const at = new Date(ms);
      const micros = pad(at.getUTCMilliseconds(), 3) + pad(i % 1000, 3);
      // PostgreSQL drops the fraction's trailing zeros, and the fraction itself when it is zero.
      const fraction = micros.replace(/0+$/, '');
      const text = `${at.toISOString().slice(0, 19).replace('T', ' ')}${fraction ? `.${fraction}` : ''}+00`;
      assert.equal(isoFromPostgres(text), at.toISOString(), text);
    }
  });
});

describe('PostgreSQL: prepared statements on the read pool (DATABASE_PREPARED_STATEMENTS)', () => {
  let ctx: TestContext;

  before(async () => {
    // One read connection, so every statement below is prepared on the connection listed.
    ctx = await createTestContext({ databasePoolSize: 1, databasePreparedStatements: 2 });
  });
  after(() => ctx?.close());

  const value = async (statement: ReturnType<typeof sql<{ v: number }>>) =>
    (await statement.execute(ctx.dbs.read)).rows[0]?.v;
  const preparedTexts = async () =>
    (
      await sql<{
        statement: string;
      }>`select statement from pg_prepared_statements order by statement`.execute(ctx.dbs.read)
    ).rows.map((row) => row.statement);

  it('keeps the most recently used texts, at most the configured number, with custom plans', async () => {
    assert.equal(await value(sql`select ${10}::int as v`), 10);
    assert.equal(await value(sql`select ${10}::int + 1 as v`), 11);
    // The first text again: answered from its prepared statement, now the most recently used.
    assert.equal(await value(sql`select ${20}::int as v`), 20);
    // A third text pushes out the least recently used of the two (the `+ 1`).
    assert.equal(await value(sql`select ${10}::int + 2 as v`), 12);
    assert.deepEqual(await preparedTexts(), ['select $1::int + 2 as v', 'select $1::int as v']);
    const mode = await sql<{ plan_cache_mode: string }>`show plan_cache_mode`.execute(ctx.dbs.read);
    assert.equal(mode.rows[0]?.plan_cache_mode, 'force_custom_plan');
  });

  it('answers a prepared `select *` after a migration added a column to its table', async () => {
    await sql`create table prepared_probe (id integer)`.execute(ctx.dbs.primary);
    await sql`insert into prepared_probe values (1)`.execute(ctx.dbs.primary);
    const read = async () =>
      (await sql`select * from prepared_probe where id = ${1}`.execute(ctx.dbs.read)).rows as unknown[];
    assert.deepEqual(await read(), [{ id: 1 }]);
    await sql`alter table prepared_probe add column note text default 'x'`.execute(ctx.dbs.primary);
    assert.deepEqual(await read(), [{ id: 1, note: 'x' }]);
    assert.deepEqual(await read(), [{ id: 1, note: 'x' }]);
  });
});

describe('PostgreSQL: COPY only on the pool that writes', () => {
  let ctx: TestContext;

  // Nothing prepared, so a text with one parameter reaches the client's query as it came: only the
  // client's class decides whether it goes as a COPY.
  before(async () => {
    ctx = await createTestContext({ databasePreparedStatements: 0 });
  });
  after(() => ctx?.close());

  it('sends a `copy … from stdin` text from the read pool as a statement, refused, and copies the rows from the primary', async () => {
    await sql`create table copy_probe (id integer, note text)`.execute(ctx.dbs.primary);
    const copy = (db: Databases['read']) =>
      db.executeQuery({
        ...sql.raw('copy copy_probe (id, note) from stdin').compile(db),
        parameters: ['7\tseven\n'],
      });
    await assert.rejects(copy(ctx.dbs.read));
    assert.deepEqual((await sql`select id from copy_probe`.execute(ctx.dbs.read)).rows, []);
    await copy(ctx.dbs.primary);
    const { rows } = await sql`select id, note from copy_probe`.execute(ctx.dbs.read);
    assert.deepEqual(rows, [{ id: 7, note: 'seven' }]);
  });
});

describe('PostgreSQL: the analytics windows planned once per connection', () => {
  let ctx: TestContext;

  before(async () => {
    // One read connection: every statement below is prepared, and its plans counted, on it.
    ctx = await createTestContext({ databasePoolSize: 1 });
  });
  after(() => ctx?.close());

  /** The read connection's prepared statements and how often each ran on a generic or custom plan. */
  const prepared = async () =>
    (
      await sql<{ statement: string; generic_plans: string; custom_plans: string }>`
        select statement, generic_plans, custom_plans from pg_prepared_statements`.execute(ctx.dbs.read)
    ).rows.map((row) => ({
      statement: row.statement,
      plans: [Number(row.generic_plans), Number(row.custom_plans)],
    }));
  const isMarked = (statement: string) => statement.startsWith(GENERIC_PLAN);

  /** The plan mode a text starting with `hint` ran under, on the one read connection. */
  const modeFor = async (hint: string, on: Executes = ctx.dbs.read) =>
    (
      await sql<{
        mode: string;
      }>`${sql.raw(hint)}select current_setting('plan_cache_mode') as mode, ${1}::int as one`.execute(on)
    ).rows[0]?.mode;

  it('switches the connection to generic plans for a marked text, and back for any other', async () => {
    assert.equal(await modeFor(GENERIC_PLAN), 'force_generic_plan');
    assert.equal(await modeFor(''), 'force_custom_plan');
    assert.equal(await modeFor(GENERIC_PLAN), 'force_generic_plan');
    const probes = (await prepared()).filter((p) => p.statement.includes('current_setting'));
    // [generic, custom]: the marked text ran twice on its one generic plan, the other once on a
    // plan made for its value.
    assert.deepEqual(probes.find((p) => isMarked(p.statement))?.plans, [2, 0]);
    assert.deepEqual(probes.find((p) => !isMarked(p.statement))?.plans, [0, 1]);
  });

  it('knows the mode again after a rollback undoes a switch made inside the transaction', async () => {
    assert.equal(await modeFor(''), 'force_custom_plan');
    await assert.rejects(
      ctx.dbs.read.transaction().execute(async (tx) => {
        assert.equal(await modeFor(GENERIC_PLAN, tx), 'force_generic_plan');
        throw new Error('undone');
      }),
      /undone/,
    );
    // The rollback put the session back on custom plans: a marked text must switch it again.
    assert.equal(await modeFor(GENERIC_PLAN), 'force_generic_plan');
    assert.equal(await modeFor(''), 'force_custom_plan');
  });

  it('leaves the mode as it is for a lookup not marked', async () => {
    assert.equal(await modeFor(GENERIC_PLAN), 'force_generic_plan');
    assert.equal(await modeFor(LOOKUP), 'force_generic_plan');
    assert.equal(await modeFor(''), 'force_custom_plan');
    assert.equal(await modeFor(LOOKUP), 'force_custom_plan');
    // [generic, custom]: the lookup ran once on each, as the connection stood.
    const lookup = (await prepared()).find((p) => p.statement.startsWith(LOOKUP));
    assert.deepEqual(lookup?.plans, [1, 1]);
  });

  it("runs a brand's analytics on generic plans without switching back for the key's and the brand's lookups", async () => {
    const { key, brand } = await brandMentionedYesterday(ctx.dbs);
    // The connection as an earlier analytics request leaves it.
    assert.equal(await modeFor(GENERIC_PLAN), 'force_generic_plan');
    const res = await ctx.app.inject({
      url: `/api/brands/${brand.brandId}/analytics/?range=30d`,
      headers: bearer(key),
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().metrics.mentionRate.value, 1);
    const statements = (await prepared()).filter((p) => !p.statement.includes('current_setting'));
    const windows = statements.filter((p) => isMarked(p.statement));
    for (const p of windows) assert.equal(p.plans[1], 0, p.statement);
    // Every statement of src/db/analytics.ts that a brand's window reads, each known by a fragment
    // of its own text: the bounds, the competitors, the runs at the ends (of the window, and of the
    // last day by category), the stamps, the coverage, then the seven sums, which a last day reads
    // in one statement.
    const fragments = {
      observationBounds: 'min(current_from)',
      brandCompetitors: 'from "competitors"',
      runSpans: 'as i, (select finished_at from runs',
      categoryRunSpans: 'min(finished_at) as first',
      stampRows: 'from aggregate_generations',
      windowCoverage: 'from "agg_block_coverage"',
      windowObservations: 'having sum(answers) <> 0',
      windowMentions: 'group by competitor_id having sum(mentions) <> 0',
      windowMentionDomains: 'group by competitor_id, domain having sum(citations) <> 0',
      windowUrlCitations: 'group by domain, url having sum(citations) <> 0',
      windowPromptObservations: "where outcome = 'ok' and has_mention_data = 1",
      windowPromptMentions: 'group by prompt_id, competitor_id',
      windowPromptCitations: 'group by prompt_id, domain',
    };
    const texts = windows.map((p) => p.statement.replace(/\s+/g, ' '));
    for (const [name, fragment] of Object.entries(fragments)) {
      assert.ok(
        texts.some((text) => text.includes(fragment)),
        `no marked statement for ${name}:\n${texts.join('\n')}`,
      );
    }
    // The seven sums, the last seven fragments.
    const sums = Object.values(fragments).slice(-7);
    assert.ok(
      texts.some((text) => sums.every((fragment) => text.includes(fragment))),
      `no statement holds the seven sums:\n${texts.join('\n')}`,
    );
    // The rest are the key's and the brand's lookups, nothing else, and they ran on generic plans
    // too: the connection stayed as it was, with no round trip to switch it and back.
    const others = statements.filter((p) => !isMarked(p.statement));
    for (const p of others) assert.deepEqual(p.plans, [1, 0], p.statement);
    assert.deepEqual(
      others
        .map((p) =>
          p.statement.includes('from "api_keys"')
            ? 'key'
            : p.statement.includes('from "brands"')
              ? 'brand'
              : p.statement,
        )
        .sort(),
      ['brand', 'key'],
    );
  });
});

describe('PostgreSQL: the demo after a seed killed midway', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(() => ctx?.close());

  it('restarts the ids of empty tables, which a rolled-back seed drew, and leaves the others', async () => {
    const db = ctx.dbs.primary;
    const orgId = await insertOrg(db, 'kept');
    // What a killed seed leaves: its rows rolled back, the ids it drew gone for good.
    await sql`select nextval(pg_get_serial_sequence(t, 'id')) from unnest(array['brands', 'organizations']) t, generate_series(1, 10)`.execute(
      db,
    );
    await restartEmptySequences(db);
    const brand = await BrandFixture.insert(db, orgId, { name: 'First' });
    assert.equal(brand.brandId, 1);
    // The organizations table is not empty: its ids go on after the ones drawn.
    assert.equal(await insertOrg(db, 'next'), orgId + 11);
  });
});

/** Another writer midway: `work` done in a transaction held open until the returned commit. */
async function midway(db: Db, work: (trx: Db) => Promise<unknown>): Promise<() => Promise<void>> {
  const written = Promise.withResolvers<void>();
  const release = Promise.withResolvers<void>();
  const done = db.transaction().execute(async (trx) => {
    await work(trx);
    written.resolve();
    await release.promise;
  });
  await written.promise;
  return async () => {
    release.resolve();
    await done;
  };
}

describe('PostgreSQL: demo seeds at once', () => {
  // Each on a database of its own: the demo's organizations are written once per database.
  let ctx: TestContext;
  beforeEach(async () => {
    ctx = await createTestContext();
  });
  afterEach(() => ctx?.close());
  const refused = {
    name: 'DemoConflictError',
    message:
      'cannot seed the demo into this database: organization "acme" already exists; use a fresh database',
  };

  it('the second waits for the first, without restarting the ids it drew, then says the demo is there', async () => {
    const db = ctx.dbs.primary;
    // The first seed, midway: its turn taken, ids drawn and its first organization written.
    const commit = await midway(db, async (trx) => {
      await takeDemoSeedTurn(trx);
      await sql`select nextval(pg_get_serial_sequence('brands', 'id')) from generate_series(1, 5)`.execute(
        trx,
      );
      await insertOrg(trx, 'acme');
    });
    // The second on connections whose default isolation is repeatable read: its snapshot would be
    // taken before the wait.
    const name = new URL(ctx.config.databaseUrl).pathname.slice(1);
    await sql`alter database ${sql.id(name)} set default_transaction_isolation = 'repeatable read'`.execute(
      db,
    );
    const repeatable = connectDatabases({ ...ctx.config, databasePoolSize: 1 });
    try {
      const second = seedDemo(repeatable.primary);
      await sleep(300);
      const lastValue = async () =>
        Number(
          (await sql<{ last_value: string }>`select last_value from brands_id_seq`.execute(db)).rows[0]
            ?.last_value,
        );
      assert.equal(await lastValue(), 5, 'the first seed’s ids are not drawn again');
      await commit();
      await assert.rejects(second, refused);
      assert.equal(await lastValue(), 5, 'nor restarted once it has committed');
    } finally {
      await repeatable.close();
    }
  });

  it('the one that meets rows written meanwhile says the demo is there, in words', async () => {
    const db = ctx.dbs.primary;
    // The other writer's row, written and not yet committed when this seed checks.
    const commit = await midway(db, (trx) => insertOrg(trx, 'acme'));
    const seeding = seedDemo(db);
    await sleep(300);
    await commit();
    await assert.rejects(seeding, refused);
  });
});
