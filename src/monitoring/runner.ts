// Asking in this process: take the asks nobody holds, a few at a time, until told to stop. Used by
// `sightline monitor run` and by the worker on the embedded database. The claims are the
// database's (asks.ts), so any number of these can work on the same runs, in one process or many.
import { setTimeout as sleep } from 'node:timers/promises';
import { claimableAskIds, releaseLease, renewLeases } from '../db/monitoring.ts';
import { type AskDeps, completeLeftRuns, executeAsk } from './asks.ts';

export interface RunnerOptions {
  /** Asks in flight at once. */
  concurrency: number;
  /** How long to wait before looking again when there is nothing to take. */
  pollMs: number;
  /** The runs to work on (default: every running monitoring run). */
  runIds?: readonly number[];
  /** Checked when there is nothing to take and nothing in flight: true ends the work. */
  done?: () => Promise<boolean>;
  /** Stops taking asks; the ones in flight are finished first. */
  signal?: AbortSignal;
}

/** Keeps this worker's leases alive while it asks, so only a dead worker's asks run out. */
export function heartbeat(deps: AskDeps): { stop(): void } {
  // One renewal at a time: renewals piling up behind a slow one each held a connection, until the
  // pool had none left for the asks' own writes.
  let renewing = false;
  const timer = setInterval(
    () => {
      if (renewing) return;
      renewing = true;
      const until = new Date(deps.clock().getTime() + deps.leaseMs).toISOString();
      renewLeases(deps.db, deps.owner, until)
        .catch((error: unknown) =>
          deps.log.error({ event: 'lease_renewal_failed', err: String(error) }, 'could not renew ask leases'),
        )
        .finally(() => {
          renewing = false;
        });
    },
    Math.max(100, Math.floor(deps.leaseMs / 3)),
  );
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/**
 * Takes, asks and stores one ask; a failure is logged and the ask let go. Left claimed by this
 * live worker, the heartbeat would renew its lease for as long as the worker lives: never
 * retried, its run never finished (`monitor run` waited for good).
 */
export async function askOrLetGo(deps: AskDeps, askId: number, signal?: AbortSignal): Promise<void> {
  try {
    await executeAsk(deps, askId, signal);
  } catch (error) {
    deps.log.error(
      { event: 'ask_failed', askId, err: error instanceof Error ? error.message : String(error) },
      `ask ${askId} failed before its answer was stored; it will be retried when its lease expires`,
    );
    await releaseLease(deps.db, askId, deps.owner).catch((release: unknown) =>
      deps.log.error(
        { event: 'lease_release_failed', askId, err: String(release) },
        `could not let go of ask ${askId}; it is retried once this worker stops`,
      ),
    );
  }
}

export async function runAsks(deps: AskDeps, options: RunnerOptions): Promise<void> {
  const inFlight = new Map<number, Promise<void>>();
  // Per engine, the asks started and not yet ended: no more than the engine takes at once, so an
  // engine whose asks wait (its rate limit, an outage's retries) keeps to its own turns and leaves
  // the rest of `concurrency` to the other engines. Counted against all of it, a rate-limited
  // engine's waiting asks took every slot and the others went at its pace.
  const busy = new Map<string, number>();
  const beat = heartbeat(deps);
  const start = (askId: number, engine: string) => {
    busy.set(engine, (busy.get(engine) ?? 0) + 1);
    // Told to stop, an ask still waiting for a turn at its engine is left unclaimed.
    const work = askOrLetGo(deps, askId, options.signal).finally(() => {
      inFlight.delete(askId);
      busy.set(engine, (busy.get(engine) ?? 1) - 1);
    });
    inFlight.set(askId, work);
  };
  try {
    while (!options.signal?.aborted) {
      const free = options.concurrency - inFlight.size;
      if (free > 0) {
        const now = deps.clock().toISOString();
        const ready: Array<{ id: number; engine: string }> = [];
        // Only the engines this process can ask: the others' asks wait for a process that has them.
        for (const [name, engine] of deps.engines) {
          const room = Math.min(free, engine.turns - (busy.get(name) ?? 0));
          if (room <= 0) continue;
          const scope = { runIds: options.runIds, engines: [name] };
          const ids = await claimableAskIds(deps.db, scope, now, room + (busy.get(name) ?? 0));
          for (const id of ids.filter((id) => !inFlight.has(id)).slice(0, room))
            ready.push({ id, engine: name });
        }
        // Oldest first across the engines, as one query over them all ordered them.
        const started = ready.sort((a, b) => a.id - b.id).slice(0, free);
        for (const { id, engine } of started) start(id, engine);
        if (started.length > 0) continue;
      }
      if (inFlight.size === 0) {
        await completeLeftRuns(deps, options.runIds);
        if (await options.done?.()) return;
      }
      const wait = sleep(options.pollMs, undefined, { signal: options.signal }).catch(() => undefined);
      await Promise.race([...inFlight.values(), wait]);
    }
  } finally {
    await Promise.allSettled(inFlight.values());
    beat.stop();
  }
}
