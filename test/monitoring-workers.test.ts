import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import type { EngineName } from '../src/config.ts';
import {
  type AskFacts,
  claimAsk,
  findBrandMonitoring,
  findMonitorRun,
  finishAsk,
  renewLeases,
  updateRunProgress,
} from '../src/db/monitoring.ts';
import { planRuns } from '../src/monitoring/plan.ts';
import { updateBrandMonitoring } from '../src/monitoring/settings.ts';
import { runWorker } from '../src/monitoring/worker.ts';
import { MAIN } from './support/cli.ts';
import { createTestContext, type TestContext } from './support/context.ts';
import { insertOrg } from './support/fixtures.ts';
import {
  askDeps,
  type Fakes,
  type MonitoredBrand,
  monitoredBrand,
  PROMPTS,
  promptOf,
  startFakes,
} from './support/monitoring.ts';

// Two `sightline worker` processes on one PostgreSQL database and one schedule: exactly one plans
// the due run, they share its asks through pg-boss, and no planned ask reaches a vendor twice.

const postgres = Boolean(process.env.TEST_DATABASE_URL);

let ctx: TestContext;
let fakes: Fakes;
let brand: MonitoredBrand;
let due = '';

before(async () => {
  if (!postgres) return;
  ctx = await createTestContext();
  fakes = await startFakes();
  brand = await monitoredBrand(ctx.dbs.primary, await insertOrg(ctx.dbs.primary, 'acme'), 3);
  const set = await updateBrandMonitoring(
    ctx.dbs.primary,
    brand.orgId,
    brand.brandId,
    { cadence: 'daily', engines: ['chatgpt', 'perplexity'], samples: 2 },
    new Date(),
  );
  due = set.nextRunAt ?? '';
});
after(async () => {
  await fakes?.close();
  await ctx?.close();
});

function worker(env: Record<string, string> = {}): { child: ChildProcess; stdout: () => string } {
  const child = spawn(process.execPath, [MAIN, 'worker', '--concurrency', '3', '--metrics-port', '0'], {
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: ctx.config.databaseUrl,
      LOG_LEVEL: 'info',
      SIGHTLINE_MONITOR_POLL_MS: '200',
      ...fakes.env,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout?.on('data', (chunk) => {
    out += chunk;
  });
  return { child, stdout: () => out };
}

it('two workers on PostgreSQL run a due schedule once and ask each planned ask once', {
  skip: !postgres && 'needs PostgreSQL (TEST_DATABASE_URL)',
}, async () => {
  const workers = [worker(), worker()];
  const deadline = Date.now() + 90_000;
  const completed = async () =>
    (await ctx.dbs.primary.selectFrom('runs').select('id').where('status', '=', 'completed').execute())
      .length;
  while ((await completed()) === 0) {
    assert.ok(Date.now() < deadline, 'the scheduled run did not complete');
    await sleep(100);
  }
  for (const w of workers) w.child.kill('SIGTERM');
  const codes = await Promise.all(workers.map(async (w) => (await once(w.child, 'exit'))[0]));
  assert.deepEqual(codes, [0, 0]);

  const runs = await ctx.dbs.primary.selectFrom('runs').select(['id', 'status', 'published_at']).execute();
  assert.equal(runs.length, 1);
  assert.ok(runs[0]?.published_at);
  const logs = workers.map((w) => w.stdout()).join('');
  assert.equal(logs.match(/"event":"run_planned"/g)?.length, 1);
  assert.equal(logs.match(/"event":"run_completed"/g)?.length, 1);

  // 3 prompts × 2 engines × 2 samples = 12 asks: each fake asked each prompt exactly twice.
  for (const fake of [fakes.chatgpt, fakes.perplexity]) {
    assert.equal(fake.requests.length, 6);
    assert.ok(fake.requests.every((r) => r.answered));
    const perPrompt = Map.groupBy(fake.requests, (r) => promptOf(r.body));
    assert.deepEqual([...perPrompt.keys()].sort(), PROMPTS.slice(0, 3).sort());
    for (const requests of perPrompt.values()) assert.equal(requests.length, 2);
  }
  const asks = await ctx.dbs.primary.selectFrom('run_asks').select(['attempts', 'response_id']).execute();
  assert.equal(asks.length, 12);
  assert.ok(asks.every((a) => a.attempts === 1 && a.response_id !== null));
  assert.equal((await ctx.dbs.primary.selectFrom('responses').select('id').execute()).length, 12);

  // The schedule moved on by a day from the slot that ran.
  const next = await ctx.dbs.primary
    .selectFrom('brands')
    .select('next_monitored_run_at')
    .where('id', '=', brand.brandId)
    .executeTakeFirstOrThrow();
  assert.equal(next.next_monitored_run_at, new Date(Date.parse(due) + 86_400_000).toISOString());
});

it('answers stored side by side on PostgreSQL each count the prompts the other finished', {
  skip: !postgres && 'needs PostgreSQL (TEST_DATABASE_URL)',
}, async () => {
  // Two workers each store the last answer of a different prompt of one run, in transactions that
  // overlap; both prompts are then finished, and the run must count 2.
  const db = ctx.dbs.primary;
  const other = await monitoredBrand(db, await insertOrg(db, 'beta'), 2);
  const monitoring = await findBrandMonitoring(db, other.orgId, other.brandId);
  assert.ok(monitoring);
  const now = new Date();
  const [run] = await planRuns(
    db,
    monitoring,
    { engines: ['chatgpt'], samples: 1 },
    new Set(['chatgpt']),
    now,
  );
  assert.ok(run);
  const asks = await db
    .selectFrom('run_asks')
    .select('id')
    .where('run_id', '=', run.runId)
    .orderBy('id')
    .execute();
  assert.equal(asks.length, 2);
  const claim = { now: now.toISOString(), leaseUntil: new Date(now.getTime() + 60_000).toISOString() };
  for (const [i, ask] of asks.entries()) {
    const owner = `worker-${i}`;
    const claimed = await claimAsk(
      db,
      { id: ask.id, orgId: other.orgId },
      { owner, ...claim, month: '2026-11', budget: null, maxAttempts: 3 },
    );
    assert.equal(claimed, 'claimed');
  }
  const facts: AskFacts = {
    outcome: 'ok',
    finishedAt: now.toISOString(),
    vendorModel: null,
    latencyMs: 1,
    inputTokens: 0,
    outputTokens: 0,
    estimatedCostUsd: null,
    error: null,
  };
  const store = async (trx: typeof db, i: number) => {
    assert.ok(await finishAsk(trx, { id: asks[i]?.id ?? 0, runId: run.runId }, `worker-${i}`, facts));
    await updateRunProgress(trx, run.runId);
  };
  const first = await db.startTransaction().execute();
  const second = await db.startTransaction().execute();
  await store(first, 0);
  const storing = store(second, 1).then(() => second.commit().execute());
  // Time for the second store to reach as far as it can while the first is still open.
  await sleep(300);
  await first.commit().execute();
  await storing;
  const counted = await db
    .selectFrom('runs')
    .select(['completed_prompts', 'total_prompts'])
    .where('id', '=', run.runId)
    .executeTakeFirstOrThrow();
  assert.deepEqual({ ...counted }, { completed_prompts: 2, total_prompts: 2 });
});

/** A worker sharing its asks through the pg-boss queue, until `stop` aborts. */
function queueWorker(deps: ReturnType<typeof askDeps>, concurrency: number) {
  const stop = new AbortController();
  const working = runWorker(
    deps,
    { queueDatabaseUrl: ctx.config.databaseUrl, concurrency, pollMs: 200, configured: deps.configured },
    stop.signal,
  );
  return { stop, working };
}

/** A run of one prompt on ChatGPT (or these engines and samples), planned for a brand of a new organization. */
async function oneAskRun(
  slug: string,
  engines: EngineName[] = ['chatgpt'],
  samples = 1,
): Promise<{ runId: number }> {
  const db = ctx.dbs.primary;
  const b = await monitoredBrand(db, await insertOrg(db, slug), 1);
  const monitoring = await findBrandMonitoring(db, b.orgId, b.brandId);
  assert.ok(monitoring);
  const [run] = await planRuns(db, monitoring, { engines, samples }, new Set(engines), new Date());
  assert.ok(run);
  return { runId: run.runId };
}

async function completedWithin(runId: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while ((await findMonitorRun(ctx.dbs.primary, runId))?.status !== 'completed') {
    assert.ok(Date.now() < deadline, `run ${runId} did not complete within ${ms} ms`);
    await sleep(100);
  }
}

const asksOf = (runId: number) =>
  ctx.dbs.primary
    .selectFrom('run_asks')
    .select(['state', 'attempts', 'response_id'])
    .where('run_id', '=', runId)
    .execute();

it("asks a killed worker's ask again once its lease runs out, through the queue", {
  skip: !postgres && 'needs PostgreSQL (TEST_DATABASE_URL)',
  timeout: 60_000,
}, async () => {
  const { runId } = await oneAskRun('gamma');
  const before = fakes.chatgpt.requests.length;
  fakes.chatgpt.fallback = { kind: 'hold' };
  const lease = { SIGHTLINE_MONITOR_LEASE_MS: '1500' };
  const first = worker(lease);
  try {
    for (let i = 0; i < 300 && fakes.chatgpt.held === 0; i++) await sleep(50);
    assert.equal(fakes.chatgpt.held, 1, 'the first worker is asking');
  } finally {
    first.child.kill('SIGKILL');
    await once(first.child, 'exit');
  }
  fakes.chatgpt.fallback = { kind: 'answer' };
  const second = worker(lease);
  try {
    // Its pg-boss job was still active: under the old queue policy the new job for the ask waited
    // for it to expire, 15 minutes.
    await completedWithin(runId, 30_000);
  } finally {
    second.child.kill('SIGTERM');
    await once(second.child, 'exit');
  }
  assert.equal(fakes.chatgpt.requests.length - before, 2, 'asked by each worker once');
  const [ask] = await asksOf(runId);
  assert.equal(ask?.state, 'done');
  assert.equal(ask?.attempts, 2);
  assert.notEqual(ask?.response_id, null);
});

it('through the queue, lets go of an ask whose answer failed to store, and asks it again', {
  skip: !postgres && 'needs PostgreSQL (TEST_DATABASE_URL)',
  timeout: 60_000,
}, async () => {
  const db = ctx.dbs.primary;
  const { runId } = await oneAskRun('delta');
  // The database refuses the first answered response (a lost connection, a full disk), once.
  await sql`create sequence refuse_once`.execute(db);
  await sql`create function refuse_once() returns trigger language plpgsql as ${sql.raw(
    `$$ begin if nextval('refuse_once') = 1 then raise exception 'disk full'; end if; return new; end $$`,
  )}`.execute(db);
  await sql`create trigger refuse_once before insert on responses for each row
    when (new.outcome = 'ok') execute function refuse_once()`.execute(db);
  const before = fakes.chatgpt.requests.length;
  const deps = askDeps(db, fakes.env, { leaseMs: 1000, owner: 'queue-test' });
  const { stop, working } = queueWorker(deps, 1);
  try {
    // Kept claimed by this live worker, whose heartbeat renewed the lease, it was never asked again.
    await completedWithin(runId, 30_000);
  } finally {
    stop.abort();
    await working;
    await sql`drop trigger refuse_once on responses`.execute(db);
    await sql`drop function refuse_once()`.execute(db);
    await sql`drop sequence refuse_once`.execute(db);
  }
  assert.equal(fakes.chatgpt.requests.length - before, 2);
  const [ask] = await asksOf(runId);
  assert.deepEqual([ask?.state, ask?.attempts], ['done', 2]);
  assert.deepEqual(
    deps.log.lines.filter((l) => l.fields.event === 'ask_failed').map((l) => l.fields.askId !== undefined),
    [true],
  );
});

it('through the queue, a worker told to stop finishes the ask it is asking before it returns', {
  skip: !postgres && 'needs PostgreSQL (TEST_DATABASE_URL)',
  timeout: 60_000,
}, async () => {
  const db = ctx.dbs.primary;
  const { runId } = await oneAskRun('epsilon');
  const before = fakes.chatgpt.requests.length;
  // A request an earlier test's killed worker left held is let go first.
  fakes.chatgpt.release();
  fakes.chatgpt.fallback = { kind: 'hold' };
  const deps = askDeps(db, fakes.env, { leaseMs: 1000, owner: 'stopping-worker' });
  const { stop, working } = queueWorker(deps, 1);
  let returned = false;
  void working.then(() => {
    returned = true;
  });
  try {
    for (let i = 0; i < 300 && fakes.chatgpt.held === 0; i++) await sleep(50);
    assert.equal(fakes.chatgpt.held, 1, 'the worker is asking');
    stop.abort();
    // Several leases long: the worker still renews its ask's lease and waits for the answer.
    await sleep(3_000);
    assert.equal(returned, false, 'the worker waits for its ask');
  } finally {
    fakes.chatgpt.fallback = { kind: 'answer' };
    fakes.chatgpt.release();
    await working;
  }
  assert.equal(fakes.chatgpt.requests.length - before, 1, 'asked once');
  const [ask] = await asksOf(runId);
  assert.deepEqual([ask?.state, ask?.attempts], ['done', 1]);
  assert.notEqual(ask?.response_id, null);
  assert.deepEqual(deps.log.lines.filter((l) => l.fields.event === 'worker_stopped').length, 1);
});

it("renews a worker's other leases while one of its asks is locked by its own store", {
  skip: !postgres && 'needs PostgreSQL (TEST_DATABASE_URL)',
  timeout: 60_000,
}, async () => {
  const db = ctx.dbs.primary;
  const runs = [await oneAskRun('zeta'), await oneAskRun('eta')];
  const ids: number[] = [];
  for (const { runId } of runs) {
    const [ask] = await db.selectFrom('run_asks').select('id').where('run_id', '=', runId).execute();
    assert.ok(ask);
    ids.push(ask.id);
  }
  const past = new Date(Date.now() - 60_000).toISOString();
  await db
    .updateTable('run_asks')
    .set({ state: 'asking', lease_owner: 'locked-worker', lease_expires_at: past })
    .where('id', 'in', ids)
    .execute();
  const until = new Date(Date.now() + 60_000).toISOString();
  // The first ask's row held by a store waiting behind another writer.
  const release = Promise.withResolvers<void>();
  const locked = Promise.withResolvers<void>();
  const storing = db.transaction().execute(async (trx) => {
    await trx
      .selectFrom('run_asks')
      .select('id')
      .where('id', '=', ids[0] as number)
      .forUpdate()
      .execute();
    locked.resolve();
    await release.promise;
  });
  await locked.promise;
  try {
    const renewed = await Promise.race([
      renewLeases(db, 'locked-worker', until).then(() => 'renewed'),
      sleep(5_000).then(() => 'waited'),
    ]);
    assert.equal(renewed, 'renewed');
    const leases = await db
      .selectFrom('run_asks')
      .select(['id', 'lease_expires_at'])
      .where('id', 'in', ids)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      leases.map((l) => l.lease_expires_at),
      [past, until],
    );
  } finally {
    release.resolve();
    await storing;
  }
});

it('through the queue, asks the other engines while one waits for its rate limit', {
  skip: !postgres && 'needs PostgreSQL (TEST_DATABASE_URL)',
  timeout: 60_000,
}, async () => {
  const db = ctx.dbs.primary;
  // Planned c, p, c, p, …: ChatGPT one request a minute, one ask at a time; two asks at once.
  const { runId } = await oneAskRun('theta', ['chatgpt', 'perplexity'], 4);
  fakes.chatgpt.release();
  const before = fakes.chatgpt.requests.length;
  const deps = askDeps(
    db,
    { ...fakes.env, SIGHTLINE_CHATGPT_REQUESTS_PER_MINUTE: '1', SIGHTLINE_CHATGPT_CONCURRENCY: '1' },
    { owner: 'paced-worker' },
  );
  const { stop, working } = queueWorker(deps, 2);
  const doneBy = async (engine: string) =>
    (
      await db
        .selectFrom('run_asks')
        .select('id')
        .where('run_id', '=', runId)
        .where('engine', '=', engine)
        .where('state', '=', 'done')
        .execute()
    ).length;
  try {
    // ChatGPT's request of the minute may go to an ask an earlier test left claimable: counted by
    // its requests, not by this run's asks.
    const asked = () => fakes.chatgpt.requests.length - before;
    const deadline = Date.now() + 20_000;
    while (((await doneBy('perplexity')) < 4 || asked() < 1) && Date.now() < deadline) await sleep(100);
    // Perplexity's four done, ChatGPT's one request: the rest wait for its next minute.
    assert.deepEqual([await doneBy('perplexity'), asked()], [4, 1]);
  } finally {
    stop.abort();
    await working;
  }
});
