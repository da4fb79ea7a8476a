import assert from 'node:assert/strict';
import { it } from 'node:test';
import { excludeFromBudget, queryBudget, withQueryBudget } from '../src/db/budget.ts';

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
