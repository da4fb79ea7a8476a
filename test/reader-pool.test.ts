import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CompiledQuery, sql } from 'kysely';
import { findBrandRef } from '../src/db/brands.ts';
import { withQueryBudget } from '../src/db/budget.ts';
import { GENERIC_PLAN, LOOKUP } from '../src/db/statement-hints.ts';
import { QueryTimeout } from '../src/errors.ts';
import { keyedGet } from '../src/http/endpoint.ts';
import type { App } from '../src/http/types.ts';
import { bearer, createTestContext, type TestContext } from './support/context.ts';
import { insertBrand, insertOrg, mintKey } from './support/fixtures.ts';
import { isAlive, readerPids } from './support/readers.ts';

// The SQLite reader processes die in other ways than by the cap (test/query-cap.test.ts): killed
// from outside, or out of memory. A request after that must be served by a fresh reader, not fail
// on the dead one, and a statement whose reader dies under it runs again on a fresh one. scripts/test.mjs runs this file in the embedded pass only: PostgreSQL has no
// reader processes (its lost connections: test/postgres-connection-loss.test.ts).

let ctx: TestContext;
let orgId: number;
let key: string;

// A statement that runs for about a second, so that its reader can be killed under it.
const COUNT_TO = 5_000_000;

function addProbeRoute(app: App): void {
  keyedGet(app, '/api/test-probe/count/', {
    scope: 'brands:read',
    schema: {},
    handler: async () => {
      const { rows } = await sql<{ n: number }>`
        with recursive counter(n) as (select 1 union all select n + 1 from counter where n < ${COUNT_TO})
        select count(*) as n from counter`.execute(app.dbs.read);
      return { n: rows[0]?.n };
    },
  });
}

const count = () => ctx.app.inject({ url: '/api/test-probe/count/', headers: bearer(key) });

/** Kills every reader process but `spared`, once at least one exists; returns the killed PIDs. */
async function killReaders(spared: readonly number[] = []): Promise<number[]> {
  let victims: number[] = [];
  for (let i = 0; i < 250 && victims.length === 0; i++) {
    victims = readerPids().filter((pid) => !spared.includes(pid));
    if (victims.length === 0) await sleep(10);
  }
  assert.ok(victims.length > 0, 'a reader process to kill');
  for (const pid of victims) process.kill(pid, 'SIGKILL');
  return victims;
}

before(async () => {
  if (process.env.TEST_DATABASE_URL) {
    throw new Error('reader-pool.test.ts tests SQLite reader processes: run it without TEST_DATABASE_URL');
  }
  ctx = await createTestContext({ databasePoolSize: 2 }, { beforeReady: addProbeRoute });
  orgId = await insertOrg(ctx.dbs.primary, 'acme');
  key = await mintKey(ctx.dbs.primary, orgId);
});
after(() => ctx?.close());

const brands = () => ctx.app.inject({ url: '/api/brands/', headers: bearer(key) });

/** The read pool's readers in use and statements waiting for one. */
function readUsage() {
  const usage = ctx.dbs.monitor.pools().find((pool) => pool.pool === 'read');
  return { inUse: usage?.inUse, waiting: usage?.waiting };
}

/**
 * Runs `work` with both reader processes started, idle and then stopped (SIGSTOP): a statement
 * sent to one waits until its cap stops it. Afterwards the readers serve again.
 */
async function withReadersStopped(work: () => Promise<void>): Promise<void> {
  await Promise.all([brands(), brands()]);
  const stopped = readerPids();
  assert.equal(stopped.length, 2, 'two idle reader processes');
  for (const pid of stopped) process.kill(pid, 'SIGSTOP');
  try {
    await work();
  } finally {
    for (const pid of stopped.filter(isAlive)) process.kill(pid, 'SIGCONT');
  }
  const res = await brands();
  assert.equal(res.statusCode, 200, 'the readers serve again');
}

/** A statement under a 1.5 s budget, noting in `settled` how it ended. */
const heldStatement = (n: number, settled: string[]) =>
  withQueryBudget(1_500, () => sql`select ${n} as n`.execute(ctx.dbs.read)).then(
    () => settled.push('held answered'),
    (error: unknown) => settled.push(error instanceof QueryTimeout ? 'held stopped' : String(error)),
  );

it('serves the next request when the idle reader processes have died', async () => {
  // Two requests at once start both readers; both are idle once they are answered.
  const warm = await Promise.all([brands(), brands()]);
  assert.deepEqual(
    warm.map((res) => res.statusCode),
    [200, 200],
  );
  const idle = readerPids();
  assert.equal(idle.length, 2, 'two idle reader processes');
  for (const pid of idle) process.kill(pid, 'SIGKILL');
  for (let i = 0; i < 50 && idle.some(isAlive); i++) await sleep(20);
  assert.equal(idle.some(isAlive), false, 'both readers are gone');
  // A commit, so that the answers below are read again rather than served from the response cache.
  await insertOrg(ctx.dbs.primary, 'globex');

  const [first, second] = await Promise.all([brands(), brands()]);
  assert.equal(first.statusCode, 200, first.body);
  assert.equal(second.statusCode, 200, second.body);
  assert.deepEqual(first.json().results, []);
  const fresh = readerPids();
  assert.ok(fresh.length > 0, 'fresh readers answered');
  assert.ok(
    fresh.every((pid) => !idle.includes(pid)),
    'none of the dead ones',
  );
});

it('runs a statement again on a fresh reader when its reader is killed under it', async () => {
  const answer = count();
  await sleep(100);
  const killed = await killReaders();
  const res = await answer;
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(res.json(), { n: COUNT_TO });
  assert.equal(killed.some(isAlive), false, 'the killed readers are gone');
});

it('answers 503 with Retry-After when the fresh reader dies under the statement too', async () => {
  const answer = count();
  await sleep(100);
  const killed = await killReaders();
  await killReaders(killed);
  const res = await answer;
  assert.equal(res.statusCode, 503, res.body);
  assert.equal(res.headers['retry-after'], '5');
  assert.deepEqual(Object.keys(res.json()), ['detail']);
  assert.doesNotMatch(res.body, /reader|sqlite|\.ts\b/i);

  const next = await count();
  assert.equal(next.statusCode, 200, 'a fresh reader serves the next request');
  assert.deepEqual(next.json(), { n: COUNT_TO });
});

/**
 * Runs `body` as a module of its own in a fresh Node process (no server, no test runner: nothing
 * else keeps it alive), with a SQLite database path in scope as `path`, and returns what it printed.
 * Its imports name the sources by absolute URL; `preload` is a module given to `--import` (the
 * reader processes inherit it with the rest of the process's flags).
 */
function runAlone(body: string, preload?: string): { stdout: string; stderr: string; status: number | null } {
  const dir = mkdtempSync(join(tmpdir(), 'sightline-reader-start-'));
  try {
    // A module file, not --eval: the readers inherit this process's flags.
    const script = join(dir, 'alone.mjs');
    const source = (path: string) => JSON.stringify(new URL(path, import.meta.url).href);
    writeFileSync(
      script,
      `import { sql, Kysely } from ${JSON.stringify(import.meta.resolve('kysely'))};
      import { loadConfig } from ${source('../src/config.ts')};
      import { connectDatabases } from ${source('../src/db/connect.ts')};
      import { readerPoolSqliteDialect } from ${source('../src/db/sqlite/reader-pool-dialect.ts')};
      import { readerPids } from ${source('./support/readers.ts')};
      const path = ${JSON.stringify(join(dir, 'alone.db'))};
      ${body}`,
    );
    const flags = [];
    if (preload !== undefined) {
      writeFileSync(join(dir, 'preload.mjs'), preload);
      flags.push('--import', join(dir, 'preload.mjs'));
    }
    return spawnSync(process.execPath, [...flags, script], { encoding: 'utf8', timeout: 30_000 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

it('keeps its process alive while a statement waits for its reader to start', () => {
  // Until the fresh reader has opened the database, the statement's cap has not started, so only
  // the reader keeps the process running.
  const run = runAlone(
    `const dbs = connectDatabases({ ...loadConfig({}), databaseUrl: 'sqlite:' + path });
    const { rows } = await sql\`select 40 + 2 as n\`.execute(dbs.read);
    process.stdout.write(String(rows[0].n));
    await dbs.close();`,
  );
  assert.equal(run.stdout, '42', run.stderr);
  assert.equal(run.status, 0, run.stderr);
});

it('answers 503 when a reader does not start in time, and ends it, rather than waiting without end', () => {
  // Every reader process stops before it opens the database (the preload never settles in them),
  // as one stuck on a hung file system would. Each statement gets its 503 once the start limit
  // (shortened here to 300 ms) has passed, the stuck readers are killed (none is left among the
  // process's children), and the process then ends on its own.
  const run = runAlone(
    `const usage = { pool: 'read', max: 1, inUse: 0, waiting: 0 };
    const db = new Kysely({ dialect: readerPoolSqliteDialect(path, 1, 5_000, usage, 300) });
    for (let i = 0; i < 2; i++) {
      const error = await sql\`select 40 + 2 as n\`.execute(db).then(() => undefined, (e) => e);
      process.stdout.write(\`\${error?.constructor.name} \${error?.statusCode} \${error?.cause?.message}\\n\`);
    }
    // Unref'd once refused, a stuck reader would no longer hold this process: count those left.
    await new Promise((resolve) => setTimeout(resolve, 200));
    process.stdout.write(\`readers left: \${readerPids().length}\\n\`);`,
    // Stuck for a minute, not for ever: should the kill fail, no reader outlives the test by long.
    `if (process.argv[1]?.endsWith('reader-child.js')) await new Promise(() => setTimeout(() => process.exit(1), 60_000));`,
  );
  assert.equal(run.status, 0, run.stderr);
  const answer = 'DatabaseUnavailable 503 The SQLite reader process did not start in time.';
  assert.deepEqual(run.stdout.trim().split('\n'), [answer, answer, 'readers left: 0'], run.stderr);
});

it("gives each row its columns by name, the last of a repeated name winning, as node:sqlite's own rows", async () => {
  const { rows } = await sql<Record<string, unknown>>`
    select 1 as a, 'x' as "we""ird\\ name", 2 as a, null as "__proto__", 3.5 as "constructor"
    union all select 4, 'y', 5, 6, 7`.execute(ctx.dbs.read);
  const names = ['a', 'we"ird\\ name', '__proto__', 'constructor'];
  const values = [
    [2, 'x', null, 3.5],
    [5, 'y', 6, 7],
  ];
  assert.equal(rows.length, values.length);
  for (const [i, row] of rows.entries()) {
    assert.deepEqual(Object.keys(row), names);
    assert.deepEqual(
      names.map((name) => Object.getOwnPropertyDescriptor(row, name)?.value),
      values[i],
    );
    assert.equal(Object.getPrototypeOf(row), Object.prototype, 'a column named __proto__ is a column');
  }
});

it("answers a lookup in the service's process, with the rows a reader gives, while no reader can answer", async () => {
  const brandId = await insertBrand(ctx.dbs.primary, orgId, { name: 'Lookup Co', website: 'lookup.example' });
  const text = `select id, name, website, 1.5 as x, null as n, id as id from brands where org_id = ? and id = ?`;
  const asked = (sqlText: string) => ctx.dbs.read.executeQuery(CompiledQuery.raw(sqlText, [orgId, brandId]));
  const fromReader = await asked(text);
  const fromLookup = await asked(LOOKUP + text);
  assert.deepEqual(fromReader.rows, [
    { id: brandId, name: 'Lookup Co', website: 'lookup.example', x: 1.5, n: null },
  ]);
  assert.deepEqual(fromLookup.rows, fromReader.rows);

  await withReadersStopped(async () => {
    const brand = await withQueryBudget(2_000, () => findBrandRef(ctx.dbs.read, orgId, brandId));
    assert.deepEqual(brand, { id: brandId, orgId, name: 'Lookup Co', website: 'lookup.example' });
    // Both hints, as the analytics windows' lookups carry them.
    const windowLookup = await withQueryBudget(2_000, () => asked(GENERIC_PLAN + LOOKUP + text));
    assert.deepEqual(windowLookup.rows, fromReader.rows);
    await assert.rejects(
      withQueryBudget(300, () => sql`select 1 as one`.execute(ctx.dbs.read)),
      QueryTimeout,
      'a statement that is no lookup still goes to a (stopped) reader',
    );
  });
});

it('answers a lookup at once while statements hold every reader, and counts only those as in use', async () => {
  const brandId = await insertBrand(ctx.dbs.primary, orgId, { name: 'Busy Co', website: 'busy.example' });
  const settled: string[] = [];
  await withReadersStopped(async () => {
    // Each stopped reader takes a statement it cannot answer before the cap; the third waits.
    const held = [1, 2, 3].map((n) => heldStatement(n, settled));
    for (let i = 0; i < 100 && readUsage().waiting !== 1; i++) await sleep(5);
    assert.deepEqual(readUsage(), { inUse: 2, waiting: 1 }, 'both readers in use, one statement waiting');

    const brand = await withQueryBudget(1_500, () => findBrandRef(ctx.dbs.read, orgId, brandId));
    settled.push('lookup');
    assert.deepEqual(brand, { id: brandId, orgId, name: 'Busy Co', website: 'busy.example' });
    assert.deepEqual(readUsage(), { inUse: 2, waiting: 1 }, 'the lookup took no reader and waited for none');
    await Promise.all(held);
  });
  assert.deepEqual(settled, ['lookup', 'held stopped', 'held stopped', 'held stopped']);
  assert.deepEqual(readUsage(), { inUse: 0, waiting: 0 });
});

it('holds one reader for a transaction from its begin to its end, lookups included, and gives it back', async () => {
  const counted = async (db: typeof ctx.dbs.read, hint = '') =>
    Number(
      (
        await db.executeQuery<{ n: number }>(
          CompiledQuery.raw(`${hint}select count(*) as n from brands where org_id = ?`, [orgId]),
        )
      ).rows[0]?.n,
    );
  const before = await counted(ctx.dbs.read);
  await ctx.dbs.read.transaction().execute(async (trx) => {
    assert.equal(await counted(trx), before);
    assert.deepEqual(readUsage(), { inUse: 1, waiting: 0 });
    await insertBrand(ctx.dbs.primary, orgId, { name: 'Later Co', website: 'later.example' });
    // The transaction's snapshot, on its own reader: a lookup too is answered there, not in the
    // service's process, which already sees the new brand.
    assert.equal(await counted(trx), before);
    assert.equal(await counted(trx, LOOKUP), before);
    assert.equal(await counted(ctx.dbs.read, LOOKUP), before + 1);
  });
  assert.deepEqual(readUsage(), { inUse: 0, waiting: 0 });

  await assert.rejects(
    ctx.dbs.read.transaction().execute(async (trx) => {
      await counted(trx);
      throw new Error('undone');
    }),
    /undone/,
  );
  assert.deepEqual(readUsage(), { inUse: 0, waiting: 0 });
  assert.equal(await counted(ctx.dbs.read), before + 1);
});

it("stops a statement's wait for a reader when its request's budget runs out, not when the statements ahead end", async () => {
  const settled: string[] = [];
  await withReadersStopped(async () => {
    const held = [1, 2].map((n) => heldStatement(n, settled));
    for (let i = 0; i < 100 && readUsage().inUse !== 2; i++) await sleep(5);
    await assert.rejects(
      withQueryBudget(200, () => sql`select 3 as n`.execute(ctx.dbs.read)),
      (error: unknown) => error instanceof QueryTimeout && error.message.includes('200 ms'),
    );
    settled.push('waiting one stopped');
    assert.deepEqual(readUsage(), { inUse: 2, waiting: 0 }, 'it left the queue');
    await Promise.all(held);
  });
  assert.deepEqual(settled, ['waiting one stopped', 'held stopped', 'held stopped']);
});
