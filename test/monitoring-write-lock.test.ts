import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TestContext } from './support/context.ts';
import { type Fakes, type MonitoredBrand, monitoringScene, spawnMonitorRun } from './support/monitoring.ts';
import { holdingWrites } from './support/write-lock.ts';

// `sightline monitor run` while another process holds a long write (an import keeps its
// transaction open for as long as it runs): the answers that arrive meanwhile, paid for, wait for
// it and are stored once it ends, each ask asked once. On SQLite the wait used to be SQLite's own
// 5 s busy timeout, after which the answer was dropped and the ask asked, and paid for, again.

const HELD_MS = 6_000;

let ctx: TestContext;
let fakes: Fakes;
let brand: MonitoredBrand;

let close: () => Promise<void>;

before(async () => {
  ({ ctx, fakes, brand, close } = await monitoringScene(2));
});
after(() => close());

it("stores the answers that arrive during another process's long write once it ends, asking each once", async () => {
  fakes.chatgpt.script({ kind: 'hold' }, { kind: 'hold' });
  const child = spawnMonitorRun(ctx.config.databaseUrl, fakes, brand, { logLevel: 'warn' });
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = once(child, 'exit');
  const deadline = Date.now() + 60_000;
  while (fakes.chatgpt.held < 2) {
    assert.ok(Date.now() < deadline, `the asks never reached the engine: ${stderr}`);
    await sleep(20);
  }
  await holdingWrites(ctx, async () => {
    // The answers arrive while the other write goes on, and longer than SQLite's busy timeout.
    fakes.chatgpt.release();
    await sleep(HELD_MS);
  });
  const [code] = await exited;
  assert.equal(code, 0, stderr);
  assert.equal(fakes.chatgpt.requests.length, 2, 'each ask asked once');
  const asks = await ctx.dbs.primary
    .selectFrom('run_asks')
    .select(['state', 'attempts', 'response_id'])
    .execute();
  assert.deepEqual(
    asks.map((a) => [a.state, a.attempts, a.response_id !== null]),
    [
      ['done', 1, true],
      ['done', 1, true],
    ],
  );
  const [run] = await ctx.dbs.primary.selectFrom('runs').select('status').execute();
  assert.equal(run?.status, 'completed');
});
