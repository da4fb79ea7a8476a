// Sharing asks between machines on PostgreSQL through pg-boss (docs/decisions.md): one job per
// claimable ask, in the same database as the data. pg-boss hands each job to one worker (SKIP
// LOCKED), and a job whose worker died expires and is delivered again. The job only says which
// ask to take; the ask's own claim (asks.ts) is what guarantees it is never asked twice, so a
// re-delivered or duplicate job finds it done or held and does nothing.
import { claimableAskIds } from '../db/monitoring.ts';
import type { AskDeps } from './asks.ts';
import { askOrLetGo } from './runner.ts';

// One queue per engine, so a job waiting for its engine's rate limit or outage holds one of that
// engine's places only (v3: one queue for all let a rate-limited engine's jobs take every place and
// the others go at its pace). Renamed with each change (`sightline-monitor-asks`, `stately`; then
// `-v2`, one queue): pg-boss keeps a queue's first policy, and the old queues' jobs only name asks,
// which the next feed names again.
const askQueueOf = (engine: string) => `sightline-monitor-asks-v3-${engine}`;

export interface AskQueue {
  /** Puts a job on the queue for every ask nobody holds (at most one queued job per ask). */
  feed(): Promise<number>;
  /** Stops taking jobs and waits for the asks in flight. */
  stop(): Promise<void>;
}

export async function startAskQueue(
  deps: AskDeps,
  options: { databaseUrl: string; concurrency: number; pollMs: number },
): Promise<AskQueue> {
  // Loaded here: only a worker sharing its asks on PostgreSQL needs pg-boss.
  const { PgBoss } = await import('pg-boss');
  const boss = new PgBoss({
    connectionString: options.databaseUrl,
    application_name: 'sightline-worker',
    max: Math.max(2, Math.min(10, options.concurrency)),
  });
  boss.on('error', (error) =>
    deps.log.error({ event: 'queue_error', err: error.message }, 'pg-boss reported an error'),
  );
  await boss.start();
  // Aborted as stop begins: a job whose ask still waits for a turn at its engine leaves it unclaimed
  // (pg-boss aborts its jobs' own signals only once the graceful stop has timed out).
  const stopping = new AbortController();
  // The asks this process holds a job for: the feed queues another job for an ask that waits for a
  // turn (still unclaimed, so claimable), which would wait for a turn of its own only to find it taken.
  const held = new Set<number>();
  // The asks this process is working on: stop waits for every one of them (below).
  const running = new Set<Promise<void>>();
  // `concurrency` asks at once in all, each engine's queue taking at most its own turns.
  const places = semaphore(options.concurrency);
  const engines = [...deps.engines];
  for (const [name, engine] of engines) {
    // `short`: at most one queued job per ask (singletonKey), so feeding the same ask again while
    // its job waits adds nothing; but no limit on active ones. Under `stately` (one queued and one
    // active) the job of a worker that died stayed active until it expired (15 minutes) and held
    // back the new job for its ask, whose lease had long run out.
    await boss.createQueue(askQueueOf(name), {
      policy: 'short',
      // Longer than any one ask with its retries; the ask's lease, not this, keeps asks single.
      expireInSeconds: 15 * 60,
      retryLimit: 3,
    });
    await boss.work<{ askId: number }>(
      askQueueOf(name),
      {
        localConcurrency: Math.min(options.concurrency, engine.turns),
        pollingIntervalSeconds: Math.max(0.5, Math.min(options.pollMs, 2_000) / 1000),
      },
      async ([job]) => {
        if (!job || held.has(job.data.askId)) return;
        held.add(job.data.askId);
        const work = places.run(() =>
          askOrLetGo(deps, job.data.askId, AbortSignal.any([stopping.signal, job.signal])),
        );
        running.add(work);
        try {
          await work;
        } finally {
          running.delete(work);
          held.delete(job.data.askId);
        }
      },
    );
  }
  return {
    async feed() {
      let fed = 0;
      for (const [name] of engines) {
        const now = deps.clock().toISOString();
        const ids = await claimableAskIds(deps.db, { engines: [name] }, now, 1000);
        if (ids.length === 0) continue;
        await boss.insert(
          askQueueOf(name),
          ids.map((askId) => ({ data: { askId }, singletonKey: `ask-${askId}` })),
        );
        fed += ids.length;
      }
      return fed;
    },
    async stop() {
      stopping.abort();
      // No new job; then every ask claimed here is finished, however long its engine takes (its
      // retries and waits can pass two minutes). pg-boss's own graceful stop gives up after its
      // timeout: the worker then closed the database under asks still in flight, whose leases ran
      // out and which another worker asked (and paid for) again.
      for (const [name] of engines) await boss.offWork(askQueueOf(name), { wait: false });
      await Promise.allSettled(running);
      await boss.stop({ graceful: true, timeout: 30_000 });
    },
  };
}

/** At most `size` tasks run at once; the others wait, first come first served. */
function semaphore(size: number) {
  let active = 0;
  const waiting: Array<() => void> = [];
  return {
    async run<T>(task: () => Promise<T>): Promise<T> {
      if (active >= size) await new Promise<void>((resolve) => waiting.push(resolve));
      else active++;
      try {
        return await task();
      } finally {
        // Handed straight to the next in line, or given back.
        const next = waiting.shift();
        if (next) next();
        else active--;
      }
    },
  };
}
