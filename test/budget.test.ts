import assert from 'node:assert/strict';
import { it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { excludeFromBudget, onBudgetSpent, queryBudget, withQueryBudget } from '../src/db/budget.ts';
import { QueryTimeout } from '../src/errors.ts';

// Waits that are not database work move a request's deadline, each stretch of time once.

it('moves the deadline by the waits, counting overlapping waits once', async () => {
  await withQueryBudget(100, async () => {
    const budget = queryBudget.getStore();
    assert.ok(budget);
    const start = budget.deadline - 100;
    // Two statements wait for one reader: [start, start + 50] and [start + 10, start + 60]. The
    // second adds only its last 10 ms: 50 + 10 = 60.
    excludeFromBudget(start, start + 50);
    excludeFromBudget(start + 10, start + 60);
    assert.equal(budget.deadline, start + 160);
    // A later, separate wait of 30 ms counts whole: 160 + 30 = 190.
    excludeFromBudget(start + 100, start + 130);
    assert.equal(budget.deadline, start + 190);
  });
});

it('does nothing outside a request', () => {
  assert.doesNotThrow(() => excludeFromBudget(0, 50));
});

it('reports a spent budget once, with the cap, following a deadline moved meanwhile', async () => {
  const spent: QueryTimeout[] = [];
  await withQueryBudget(50, async () => {
    onBudgetSpent((timeout) => spent.push(timeout));
    for (let i = 0; i < 100 && spent.length === 0; i++) await sleep(10);
  });
  assert.equal(spent.length, 1);
  assert.ok(spent[0] instanceof QueryTimeout);
  assert.match(spent[0].message, /50 ms cap/);

  // The deadline moved 10 s on: 200 ms later, nothing is spent yet; cancelled, nothing ever is.
  const moved: QueryTimeout[] = [];
  await withQueryBudget(50, async () => {
    const cancel = onBudgetSpent((timeout) => moved.push(timeout));
    const budget = queryBudget.getStore();
    assert.ok(budget);
    excludeFromBudget(budget.deadline - 50, budget.deadline + 9_950);
    await sleep(200);
    assert.deepEqual(moved, []);
    cancel?.();
  });

  // Already spent: at once.
  const atOnce: QueryTimeout[] = [];
  await withQueryBudget(0, async () => {
    onBudgetSpent((timeout) => atOnce.push(timeout));
    assert.equal(atOnce.length, 1);
  });
  assert.equal(
    onBudgetSpent(() => assert.fail('outside a request')),
    undefined,
  );
});
