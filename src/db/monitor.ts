import { performance } from 'node:perf_hooks';
import { QueryTimeout } from '../errors.ts';
import type { Interceptor } from './intercept.ts';

export type PoolName = 'read' | 'primary';
export type QueryOutcome = 'ok' | 'error' | 'timeout';

export interface QueryObservation {
  pool: PoolName;
  seconds: number;
  outcome: QueryOutcome;
}

export interface PoolUsage {
  pool: PoolName;
  /** Connections the pool may open. */
  max: number;
  /** Connections handed out and not yet returned. */
  inUse: number;
  /** Callers queued for a connection. */
  waiting: number;
}

type Listener = (observation: QueryObservation) => void;

/**
 * Statement times and pool usage of one set of database handles. The databases outlive any one
 * app in tests and the CLI, so metrics subscribe here rather than being wired into the pools.
 */
export class DatabaseMonitor {
  private readonly listeners = new Set<Listener>();
  private readonly usage: PoolUsage[] = [];

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  pools(): PoolUsage[] {
    return this.usage.map((u) => ({ ...u }));
  }

  /**
   * The usage record of a pool whose driver counts its connections itself: the SQLite reader pool
   * hands Kysely a handle at once and takes a reader only for a statement that needs one, so
   * Kysely's checkouts are not its connections. Call before `track` for the same pool.
   */
  countedByDriver(pool: PoolName, max: number): PoolUsage {
    const usage: PoolUsage = { pool, max, inUse: 0, waiting: 0 };
    this.usage.push(usage);
    return usage;
  }

  /** The interceptor that reports one pool's statements and, unless its driver does, connections here. */
  track(pool: PoolName, max: number): Interceptor {
    const emit = (observation: QueryObservation) => {
      for (const listener of this.listeners) listener(observation);
    };
    const execute: Interceptor['execute'] = async (_connection, _query, run) => {
      const started = performance.now();
      let outcome: QueryOutcome = 'ok';
      try {
        return await run();
      } catch (error) {
        outcome = error instanceof QueryTimeout ? 'timeout' : 'error';
        throw error;
      } finally {
        emit({ pool, seconds: (performance.now() - started) / 1000, outcome });
      }
    };
    // A record made before `track` is one whose driver counts its own connections.
    if (this.usage.some((usage) => usage.pool === pool)) return { execute };
    const usage: PoolUsage = { pool, max, inUse: 0, waiting: 0 };
    this.usage.push(usage);
    return {
      execute,
      async acquire(take) {
        usage.waiting++;
        try {
          const connection = await take();
          usage.inUse++;
          return connection;
        } finally {
          usage.waiting--;
        }
      },
      released() {
        usage.inUse = Math.max(0, usage.inUse - 1);
      },
    };
  }
}
