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

  /** The interceptor that reports one pool's statements and connections here. */
  track(pool: PoolName, max: number): Interceptor {
    const usage: PoolUsage = { pool, max, inUse: 0, waiting: 0 };
    this.usage.push(usage);
    const emit = (observation: QueryObservation) => {
      for (const listener of this.listeners) listener(observation);
    };
    return {
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
      async execute(_connection, _query, run) {
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
      },
    };
  }
}
