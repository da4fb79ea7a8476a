import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { after, before, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TestContext } from './support/context.ts';
import {
  type Fakes,
  type MonitoredBrand,
  monitoringScene,
  promptOf,
  spawnMonitorRun,
} from './support/monitoring.ts';

// `sightline monitor run` killed with SIGKILL mid-run, then run again: the second process resumes
// the same run and asks only what the first left unanswered.
//
// How an ask in flight at the kill counts: the vendor received it but its answer never reached
// Sightline (the process was gone), so nothing was stored and the ask kept its claim. Once that
// claim's lease runs out (the dead process renews it no more), the next process asks it again.
// The vendor therefore sees such an ask twice and answers it once; Sightline stores one answer
// per planned ask and counts the ask twice against the budget (it was sent twice).

let ctx: TestContext;
let fakes: Fakes;
let brand: MonitoredBrand;

let close: () => Promise<void>;

before(async () => {
  ({ ctx, fakes, brand, close } = await monitoringScene(4));
});
after(() => close());

function monitorRun(): { child: ChildProcess; stdout: () => string; stderr: () => string } {
  const child = spawnMonitorRun(ctx.config.databaseUrl, fakes, brand, {
    logLevel: 'info',
    args: ['--concurrency', '2'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    err += chunk;
  });
  return { child, stdout: () => out, stderr: () => err };
}

const doneAsks = async () =>
  (await ctx.dbs.primary.selectFrom('run_asks').select('id').where('state', '=', 'done').execute()).length;

it('resumes a run whose process was killed, asking each unanswered ask once more and storing one answer per ask', async () => {
  // Two asks answered, then the next two are held by the vendor until the process is gone.
  fakes.chatgpt.script({ kind: 'answer' }, { kind: 'answer' }, { kind: 'hang' }, { kind: 'hang' });
  const first = monitorRun();
  const deadline = Date.now() + 60_000;
  while (!(fakes.chatgpt.requests.length === 4 && (await doneAsks()) === 2)) {
    assert.ok(Date.now() < deadline, `first run did not reach the held asks: ${first.stderr()}`);
    await sleep(20);
  }
  first.child.kill('SIGKILL');
  await once(first.child, 'exit');

  const second = monitorRun();
  const [code] = await once(second.child, 'exit');
  assert.equal(code, 0, second.stderr());
  const [run] = await ctx.dbs.primary
    .selectFrom('runs')
    .select(['id', 'status', 'completed_prompts', 'total_prompts'])
    .execute();
  assert.deepEqual({ ...run }, { id: run?.id, status: 'completed', completed_prompts: 4, total_prompts: 4 });
  assert.equal(second.stdout().trim().split('\n').at(-1), String(run?.id));
  assert.match(second.stderr(), /"event":"run_resumed"/);

  // 4 planned asks; the vendor saw 6 requests: 4 answered (one per prompt) and the 2 held at the kill.
  const requests = fakes.chatgpt.requests;
  assert.equal(requests.length, 6);
  const answered = requests.filter((r) => r.answered).map((r) => promptOf(r.body));
  assert.equal(answered.length, 4);
  assert.equal(new Set(answered).size, 4);
  const abandoned = requests.filter((r) => !r.answered).map((r) => promptOf(r.body));
  assert.equal(abandoned.length, 2);

  // One stored answer per planned ask; the asks in flight at the kill were claimed twice.
  const asks = await ctx.dbs.primary
    .selectFrom('run_asks as a')
    .innerJoin('prompts as p', 'p.id', 'a.prompt_id')
    .select(['a.response_id', 'a.attempts', 'a.state', 'p.text'])
    .execute();
  assert.equal(asks.length, 4);
  assert.ok(asks.every((a) => a.state === 'done' && a.response_id !== null));
  assert.deepEqual(
    asks
      .filter((a) => a.attempts === 2)
      .map((a) => a.text)
      .sort(),
    [...abandoned].sort(),
  );
  const responses = await ctx.dbs.primary.selectFrom('responses').select(['id', 'prompt_id']).execute();
  assert.equal(responses.length, 4);
  assert.equal(new Set(responses.map((r) => r.prompt_id)).size, 4);
});

it('stops, saying why, when the brand is paused while it asks, instead of waiting for good', {
  timeout: 30_000,
}, async () => {
  // One ask at a time; the vendor holds the first while the brand is paused from elsewhere.
  fakes.chatgpt.fallback = { kind: 'hold' };
  const child = spawnMonitorRun(ctx.config.databaseUrl, fakes, brand, {
    logLevel: 'error',
    args: ['--concurrency', '1'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = once(child, 'exit');
  try {
    const deadline = Date.now() + 30_000;
    while (fakes.chatgpt.held === 0) {
      assert.ok(Date.now() < deadline, `no ask reached the vendor: ${stderr}`);
      await sleep(20);
    }
    await ctx.dbs.primary
      .updateTable('brands')
      .set({ status: 'paused' })
      .where('id', '=', brand.brandId)
      .execute();
    fakes.chatgpt.fallback = { kind: 'answer' };
    fakes.chatgpt.release();
    const [code] = await exited;
    assert.equal(code, 1);
    assert.match(
      stderr,
      new RegExp(
        `^sightline: brand ${brand.brandId} was paused or archived while it was asked: run \\d+ waits until it is active again\\n$`,
      ),
    );
  } finally {
    child.kill();
    await ctx.dbs.primary
      .updateTable('brands')
      .set({ status: 'active' })
      .where('id', '=', brand.brandId)
      .execute();
  }
});
