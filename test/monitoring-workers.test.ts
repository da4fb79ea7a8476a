import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type AskFacts,
  claimAsk,
  findBrandMonitoring,
  finishAsk,
  updateRunProgress,
} from '../src/db/monitoring.ts';
import { planRuns } from '../src/monitoring/plan.ts';
import { updateBrandMonitoring } from '../src/monitoring/settings.ts';
import { MAIN } from './support/cli.ts';
import { createTestContext, type TestContext } from './support/context.ts';
import { insertOrg } from './support/fixtures.ts';
import {
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

function worker(): { child: ChildProcess; stdout: () => string } {
  const child = spawn(process.execPath, [MAIN, 'worker', '--concurrency', '3', '--metrics-port', '0'], {
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: ctx.config.databaseUrl,
      LOG_LEVEL: 'info',
      SIGHTLINE_MONITOR_POLL_MS: '200',
      ...fakes.env,
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
