import { AsyncLocalStorage } from 'node:async_hooks';
import { QueryTimeout } from '../errors.ts';

// The database-work budget of the request being served. Drivers read it to cap each statement at
// what is left of the request's allowance, so the cap covers the request as a whole.
export interface QueryBudget {
  deadline: number;
  capMs: number;
  /** The end of the latest wait already set aside, so overlapping waits count once. */
  excludedUntil?: number;
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
 * A wait of the current request for something that is not database work (a fresh SQLite reader
 * process starting up) moves its deadline by as much, so a busy machine's slow process start
 * cannot eat a statement's allowance. Statements of one request that wait for the same start
 * overlap: only the part of a wait not already set aside counts.
 */
export function excludeFromBudget(from: number, until: number): void {
  const budget = queryBudget.getStore();
  if (!budget) return;
  budget.deadline += Math.max(0, until - Math.max(from, budget.excludedUntil ?? from));
  budget.excludedUntil = Math.max(until, budget.excludedUntil ?? until);
}

/**
 * Calls `spent` with the cap's QueryTimeout once the current request's budget runs out, following
 * a deadline that moves meanwhile (excludeFromBudget), at once if it already has. Returns the
 * cancel, or undefined outside a request (nothing to wait for). For a wait that the cap must
 * count, such as a wait for a connection.
 */
export function onBudgetSpent(spent: (timeout: QueryTimeout) => void): (() => void) | undefined {
  if (!queryBudget.getStore()) return undefined;
  let timer: NodeJS.Timeout | undefined;
  const check = () => {
    const budget = remainingBudgetMs();
    if (!budget) return;
    if (budget.remainingMs > 0) timer = setTimeout(check, budget.remainingMs);
    else spent(new QueryTimeout(budget.capMs));
  };
  check();
  return () => clearTimeout(timer);
}
