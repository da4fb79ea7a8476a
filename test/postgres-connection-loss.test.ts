import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { isConnectionFailure } from '../src/db/postgres/connection-loss.ts';
import { keyedGet } from '../src/http/endpoint.ts';
import type { App } from '../src/http/types.ts';
import { runCli } from './support/cli.ts';
import { bearer, createTestContext, type TestContext } from './support/context.ts';
import { insertOrg, mintKey } from './support/fixtures.ts';

// Connections killed under load answer 503 with Retry-After, never 500. node-postgres reports a
// lost connection in several shapes, some without any SQLSTATE; each is classified by its type,
// fed here as the driver really produces it. scripts/test.mjs runs this file only in its
// PostgreSQL pass; run alone, it uses the machine's local PostgreSQL.
process.env.TEST_DATABASE_URL ||= 'postgres://postgres@127.0.0.1:5432/test';
const adminUrl = process.env.TEST_DATABASE_URL;

async function failureOf(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  assert.fail('expected the driver to fail');
}

async function terminate(admin: pg.Client, database: string): Promise<number> {
  const { rows } = await admin.query(
    'select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
    [database],
  );
  return rows[0].n;
}

describe('errors node-postgres really produces', () => {
  let ctx: TestContext;
  let admin: pg.Client;
  before(async () => {
    ctx = await createTestContext();
    assert.equal(ctx.dbs.dialect, 'postgres');
    admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
  });
  after(async () => {
    await admin?.end();
    await ctx?.close();
  });

  it('a refused connection (a Node system error) is a connection failure', async () => {
    const error = await failureOf(() =>
      new pg.Client({ connectionString: 'postgres://x@127.0.0.1:1/x' }).connect(),
    );
    assert.equal((error as NodeJS.ErrnoException).code, 'ECONNREFUSED');
    assert.equal(isConnectionFailure(error), true);
  });

  it('a database or role that does not exist is a connection failure, and the CLI names it', async () => {
    const url = new URL(adminUrl);
    url.pathname = '/sl_no_such_database';
    const noDatabase = await failureOf(() => new pg.Client({ connectionString: url.href }).connect());
    assert.equal((noDatabase as pg.DatabaseError).code, '3D000');
    assert.equal(isConnectionFailure(noDatabase), true);
    const asNobody = new URL(adminUrl);
    asNobody.username = 'sl_no_such_role';
    const noRole = await failureOf(() => new pg.Client({ connectionString: asNobody.href }).connect());
    assert.equal((noRole as pg.DatabaseError).code, '28000');
    assert.equal(isConnectionFailure(noRole), true);
    // It read "the database has no schema yet: run migrate first", which cannot help.
    for (const [databaseUrl, words] of [
      [url.href, 'database "sl_no_such_database" does not exist'],
      [asNobody.href, 'role "sl_no_such_role" does not exist'],
    ] as const) {
      const run = await runCli(databaseUrl, 'orgs', 'list');
      assert.deepEqual([run.status, run.stderr], [1, `sightline: cannot reach the database: ${words}\n`]);
    }
    // A database that is there without its tables still gets the hint.
    const empty = `sl_empty_${process.pid}`;
    await admin.query(`create database ${empty}`);
    try {
      const emptyUrl = new URL(adminUrl);
      emptyUrl.pathname = `/${empty}`;
      const run = await runCli(emptyUrl.href, 'orgs', 'list');
      assert.deepEqual(
        [run.status, run.stderr],
        [1, 'sightline: the database has no schema yet: run "npx sightline migrate" first\n'],
      );
    } finally {
      await admin.query(`drop database ${empty}`);
    }
  });

  it('a pool checkout that times out is a connection failure', async () => {
    const pool = new pg.Pool({
      connectionString: ctx.config.databaseUrl,
      max: 1,
      connectionTimeoutMillis: 500,
    });
    pool.on('error', () => {});
    const held = await pool.connect();
    try {
      const error = await failureOf(() => pool.connect());
      assert.match(String(error), /timeout/);
      assert.equal(isConnectionFailure(error), true);
    } finally {
      held.release();
      await pool.end();
    }
  });

  it('a terminated backend, and the client it leaves unqueryable, are connection failures', async () => {
    const client = new pg.Client({ connectionString: ctx.config.databaseUrl });
    const events: Error[] = [];
    client.on('error', (error) => events.push(error));
    await client.connect();
    const pid = (await client.query('select pg_backend_pid() as pid')).rows[0].pid;
    const running = failureOf(() => client.query('select pg_sleep(5)'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await admin.query('select pg_terminate_backend($1)', [pid]);
    const lost = await running;
    assert.ok(lost instanceof pg.DatabaseError);
    assert.equal(lost.code, '57P01');
    for (let i = 0; i < 100 && events.length === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    // The socket's end or reset, whichever the platform reports first.
    assert.match(String(events[0]), /Connection terminated unexpectedly|ECONNRESET/);
    const unqueryable = await failureOf(() => client.query('select 1'));
    assert.equal(
      String(unqueryable),
      'Error: Client has encountered a connection error and is not queryable',
    );
    assert.equal((unqueryable as { code?: string }).code, undefined, 'no SQLSTATE to go by');
    for (const error of [lost, ...events, unqueryable])
      assert.equal(isConnectionFailure(error), true, String(error));
    await client.end().catch(() => {});
  });

  it('errors the server reports about the statement itself are not', async () => {
    const client = new pg.Client({ connectionString: ctx.config.databaseUrl });
    await client.connect();
    try {
      const statements = [
        ['selec 1', '42601'],
        ['select 1/0', '22012'],
        ['select * from no_such_table', '42P01'],
        ["select 'x'::int", '22P02'],
        ['set statement_timeout = 1; select pg_sleep(1)', '57014'],
      ] as const;
      for (const [text, state] of statements) {
        const error = await failureOf(() => client.query(text));
        assert.ok(error instanceof pg.DatabaseError, text);
        assert.equal(error.code, state);
        assert.equal(isConnectionFailure(error), false, text);
      }
      const misuse = await failureOf(async () => client.query(null as never));
      assert.ok(misuse instanceof TypeError);
      assert.equal(isConnectionFailure(misuse), false, 'a bug of the caller stays a 500');
    } finally {
      await client.end();
    }
  });
});

describe('backends terminated under concurrent requests', () => {
  let ctx: TestContext;
  let admin: pg.Client;
  let key: string;
  before(async () => {
    ctx = await createTestContext(
      { databasePoolSize: 4 },
      {
        beforeReady: (app: App) =>
          keyedGet(app, '/api/test-probe/work/', {
            scope: 'brands:read',
            schema: {},
            handler: async () => {
              await sql`select pg_sleep(0.01)`.execute(app.dbs.read);
              const { rows } = await sql<{ one: number }>`select 1 as one`.execute(app.dbs.read);
              return rows[0];
            },
          }),
      },
    );
    key = await mintKey(ctx.dbs.primary, await insertOrg(ctx.dbs.primary, 'acme'));
    admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
  });
  after(async () => {
    await admin?.end();
    await ctx?.close();
  });

  it('answers only 200 or 503 with Retry-After, never 500, and recovers', async () => {
    const database = new URL(ctx.config.databaseUrl).pathname.slice(1);
    const statuses = new Map<number, number>();
    let stop = false;
    const killer = (async () => {
      let killed = 0;
      while (!stop) {
        killed += await terminate(admin, database);
        await new Promise((r) => setTimeout(r, 15));
      }
      return killed;
    })();
    const client = async () => {
      for (let i = 0; i < 40; i++) {
        const res = await ctx.app.inject({ url: '/api/test-probe/work/', headers: bearer(key) });
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        if (res.statusCode === 503) {
          assert.ok(Number(res.headers['retry-after']) >= 1, 'Retry-After');
          assert.deepEqual(Object.keys(res.json()), ['detail']);
        } else assert.equal(res.statusCode, 200, res.body);
      }
    };
    try {
      await Promise.all(Array.from({ length: 6 }, client));
    } finally {
      stop = true;
    }
    assert.ok((await killer) > 0, 'backends were terminated');
    assert.ok((statuses.get(503) ?? 0) > 0, `some requests lost their connection: ${[...statuses]}`);

    // With the killing over, the pools replace their connections by themselves.
    const settled: number[] = [];
    for (let i = 0; i < 10; i++) {
      settled.push((await ctx.app.inject({ url: '/api/test-probe/work/', headers: bearer(key) })).statusCode);
    }
    assert.deepEqual(settled.slice(-5), [200, 200, 200, 200, 200], `statuses ${settled}`);
  });
});
