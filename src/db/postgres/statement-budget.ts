import { CompiledQuery, type DatabaseConnection } from 'kysely';
import { QueryTimeout } from '../../errors.ts';
import { onBudgetSpent, remainingBudgetMs } from '../budget.ts';
import type { Interceptor } from '../intercept.ts';

// The statement may outlive the request's remaining budget by at most this much. Re-sending
// `SET statement_timeout` costs a round trip, and the remaining budget shrinks by a few
// milliseconds between statements, so a setting that is slightly generous is kept.
const SLACK_MS = 25;

const QUERY_CANCELED = '57014';

function isStatementTimeout(error: unknown): boolean {
  const err = error as { code?: unknown; message?: unknown };
  // 57014 is also what an operator's pg_cancel_backend() produces; only the timeout is ours.
  return (
    err.code === QUERY_CANCELED && typeof err.message === 'string' && /statement timeout/.test(err.message)
  );
}

/**
 * Caps each statement server-side at what is left of the request's database-work budget, so a
 * statement past the cap is cancelled by PostgreSQL itself (not merely abandoned by the client),
 * and reports the cancellation as QueryTimeout. Outside a request (the auth gate, the CLI) the
 * cap is `defaultCapMs`, or none when that is undefined. `poolIsBusy` tells whether taking a
 * connection may have to wait (none idle), the only case worth a timer.
 */
export function statementBudget(defaultCapMs: number | undefined, poolIsBusy: () => boolean): Interceptor {
  // The statement_timeout last set on each connection. Session settings live as long as the
  // connection, so a connection coming back from the pool keeps its value.
  const current = new WeakMap<DatabaseConnection, number>();

  async function ensureTimeout(connection: DatabaseConnection, wantMs: number): Promise<void> {
    const set = current.get(connection);
    const fits = wantMs === 0 ? set === 0 : set !== undefined && set >= wantMs && set - wantMs <= SLACK_MS;
    if (fits) return;
    current.delete(connection);
    await connection.executeQuery(CompiledQuery.raw(`set statement_timeout = ${wantMs}`));
    current.set(connection, wantMs);
  }

  return {
    // A request waits for a connection of a busy pool no longer than its budget allows: past it,
    // QueryTimeout, and the connection the pool hands over later goes straight back.
    async acquire(take, giveBack) {
      const budget = remainingBudgetMs();
      if (!budget || !poolIsBusy()) return take();
      if (budget.remainingMs <= 0) throw new QueryTimeout(budget.capMs);
      const taking = take();
      let cancel: (() => void) | undefined;
      const spent = new Promise<never>((_, reject) => {
        cancel = onBudgetSpent(reject);
      });
      try {
        return await Promise.race([taking, spent]);
      } catch (error) {
        if (error instanceof QueryTimeout) taking.then(giveBack, () => {});
        throw error;
      } finally {
        cancel?.();
      }
    },
    async execute(connection, _query, run) {
      const budget = remainingBudgetMs();
      const capMs = budget?.capMs ?? defaultCapMs;
      if (budget && budget.remainingMs <= 0) throw new QueryTimeout(budget.capMs);
      // PostgreSQL takes whole milliseconds, and 0 means no limit at all.
      const wantMs = budget ? Math.max(1, Math.floor(budget.remainingMs)) : (defaultCapMs ?? 0);
      await ensureTimeout(connection, wantMs);
      try {
        return await run();
      } catch (error) {
        if (!isStatementTimeout(error)) throw error;
        // node-postgres reports the error before the backend has finished unwinding the
        // statement; a no-op round trip returns only once it has, so by the time the client
        // gets its 500 the database has really stopped working on the request.
        await connection.executeQuery(CompiledQuery.raw('select 1')).catch(() => {});
        throw new QueryTimeout(capMs ?? wantMs);
      }
    },
    // A plain SET made inside a transaction is undone by its rollback: the value is unknown now.
    rolledBack(connection) {
      current.delete(connection);
    },
  };
}
