import { AsyncLocalStorage } from 'node:async_hooks';

// The database-work budget of the request being served. Drivers read it to cap each statement at
// what is left of the request's allowance, so the cap covers the request as a whole.
export interface QueryBudget {
  deadline: number;
  capMs: number;
}

export const queryBudget = new AsyncLocalStorage<QueryBudget>();

export function withQueryBudget<T>(capMs: number, fn: () => Promise<T>): Promise<T> {
  return queryBudget.run({ deadline: Date.now() + capMs, capMs }, fn);
}

/** Milliseconds left for the current request's database work, or undefined outside a request. */
export function remainingBudgetMs(): { remainingMs: number; capMs: number } | undefined {
  const budget = queryBudget.getStore();
  if (!budget) return undefined;
  return { remainingMs: Math.max(0, budget.deadline - Date.now()), capMs: budget.capMs };
}

/**
 * Time the current request spent waiting for something that is not database work (a fresh SQLite
 * reader process starting up) moves its deadline by as much, so a busy machine's slow process
 * start cannot eat a statement's allowance.
 */
export function excludeFromBudget(ms: number): void {
  const budget = queryBudget.getStore();
  if (budget) budget.deadline += ms;
}
