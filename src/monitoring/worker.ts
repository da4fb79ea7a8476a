// `sightline worker`: runs what is due, until stopped. Each poll it plans the runs of brands whose
// schedule is due (the slot is claimed first, so of many workers exactly one plans it), then asks:
// on the embedded database in this process (runner.ts); on PostgreSQL through the pg-boss queue,
// so workers on many machines share the asks (queue.ts). Runs left unfinished by a worker that
// died are picked up by the same loop once their leases run out.
import { setTimeout as sleep } from 'node:timers/promises';
import type { EngineName } from '../config.ts';
import {
  asksWaitingForEngines,
  type BrandMonitoring,
  claimScheduleSlot,
  dueBrands,
} from '../db/monitoring.ts';
import { inTransaction } from '../db/transaction.ts';
import { nextRunAt, type Schedule } from '../domain/schedule.ts';
import { type AskDeps, completeLeftRuns } from './asks.ts';
import { MonitoringError, type PlannedRun, planRuns, runEngines } from './plan.ts';
import { startAskQueue } from './queue.ts';
import { heartbeat, runAsks } from './runner.ts';

export interface WorkerOptions {
  /** PostgreSQL URL: share asks through pg-boss; absent: ask in this process. */
  queueDatabaseUrl?: string;
  concurrency: number;
  pollMs: number;
  configured: ReadonlySet<EngineName>;
}

export function logPlanned(deps: AskDeps, brandId: number, runs: readonly PlannedRun[]): void {
  for (const run of runs) {
    deps.log.info(
      {
        event: run.resumed ? 'run_resumed' : 'run_planned',
        runId: run.runId,
        brandId,
        categoryId: run.categoryId,
        prompts: run.prompts,
        asks: run.asks,
      },
      run.resumed
        ? `run ${run.runId} (category ${run.categoryId}) resumed`
        : `run ${run.runId} planned: category ${run.categoryId}, ${run.prompts} prompts, ${run.asks} asks`,
    );
  }
}

/**
 * Says which unfinished asks this process leaves to others: those of engines it has no key for
 * wait for a worker that has one (or this one, configured again).
 */
async function warnWaiting(
  deps: AskDeps,
  configured: ReadonlySet<EngineName>,
  scope: Parameters<typeof asksWaitingForEngines>[2],
): Promise<void> {
  for (const waiting of await asksWaitingForEngines(deps.db, [...configured], scope)) {
    deps.log.warn(
      { event: 'asks_waiting_for_engine', ...waiting },
      `run ${waiting.runId}: ${waiting.asks} asks for engine ${waiting.engine} wait for a worker with it configured`,
    );
  }
}

/** Due brands read a page at a time. */
const DUE_PAGE = 100;

/**
 * Plans the runs of every brand whose next run is due; returns how many brands it served. A brand
 * with an engine this worker has no key for is left to a worker that has them all (`noted`: the
 * slots already said so, once each): claimed here, its slot was skipped for the whole fleet. The
 * due brands are read page by page: left on the first page, a hundred brands that no worker can
 * serve held back every brand due after them.
 */
export async function scheduleDue(
  deps: AskDeps,
  configured: ReadonlySet<EngineName>,
  noted: Set<string> = new Set(),
): Promise<number> {
  const now = deps.clock();
  let served = 0;
  const seen = new Set<number>();
  let after: { nextRunAt: string; brandId: number } | undefined;
  for (;;) {
    const page = await dueBrands(deps.db, now.toISOString(), DUE_PAGE, after);
    const fresh = page.filter((brand) => !seen.has(brand.brandId));
    for (const brand of fresh) {
      seen.add(brand.brandId);
      try {
        if (await serveDue(deps, brand, configured, noted, now)) served++;
      } catch (error) {
        // Its slot stays due for the next poll; the brands after it, and the poll's feed of the
        // queue, go on (one brand failing every time held them all back).
        deps.log.error(
          {
            event: 'schedule_failed',
            brandId: brand.brandId,
            orgId: brand.orgId,
            err: error instanceof Error ? error.message : String(error),
          },
          `brand ${brand.brandId}: its due run could not be planned; tried again at the next poll`,
        );
      }
    }
    const last = page.at(-1);
    // A page that brought nothing new (a slot stored finer than the page's key) ends it too.
    if (page.length < DUE_PAGE || fresh.length === 0 || last === undefined) return served;
    after = { nextRunAt: last.nextRunAt as string, brandId: last.brandId };
  }
}

/** Claims a due brand's slot and plans its runs; false when it was left or another worker had it. */
async function serveDue(
  deps: AskDeps,
  brand: BrandMonitoring,
  configured: ReadonlySet<EngineName>,
  noted: Set<string>,
  now: Date,
): Promise<boolean> {
  const due = brand.nextRunAt as string;
  const lacking = runEngines(brand, {}).filter((engine) => !configured.has(engine));
  if (lacking.length > 0) {
    const slot = `${brand.brandId} ${due}`;
    if (!noted.has(slot)) {
      noted.add(slot);
      deps.log.warn(
        { event: 'schedule_waiting', brandId: brand.brandId, orgId: brand.orgId, due, engines: lacking },
        `brand ${brand.brandId}: its run due ${due} waits for a worker with ${lacking.join(', ')} configured`,
      );
    }
    return false;
  }
  const schedule: Schedule = {
    cadence: brand.cadence as Schedule['cadence'],
    time: brand.time,
    weekday: brand.weekday as Schedule['weekday'],
    timezone: brand.timezone,
  };
  const next = nextRunAt(schedule, new Date(due), now)?.toISOString() ?? null;
  // The slot is moved on in the transaction that plans its runs: a failure of the database while
  // planning gives the slot back for the next poll, where that day's run was lost (and of several
  // categories, some planned and others not). A refusal of the brand's own (no engines, no
  // prompts) keeps the slot moved on: asking again at once would only be refused again.
  const planned = await inTransaction(deps.db, async (trx) => {
    if (!(await claimScheduleSlot(trx, brand, due, next))) return undefined;
    try {
      return await planRuns(trx, brand, {}, configured, now);
    } catch (error) {
      if (error instanceof MonitoringError) return error;
      throw error;
    }
  });
  if (planned === undefined) return false;
  if (planned instanceof MonitoringError) {
    deps.log.error(
      {
        event: 'schedule_skipped',
        brandId: brand.brandId,
        orgId: brand.orgId,
        reason: planned.message,
        nextRunAt: next,
      },
      `brand ${brand.brandId}: scheduled run not started: ${planned.message}`,
    );
    return true;
  }
  logPlanned(deps, brand.brandId, planned);
  if (planned.some((run) => run.resumed))
    await warnWaiting(deps, configured, { orgId: brand.orgId, brandId: brand.brandId });
  return true;
}

async function scheduleLoop(
  deps: AskDeps,
  options: WorkerOptions,
  signal: AbortSignal,
  afterEach: () => Promise<unknown>,
) {
  const noted = new Set<string>();
  while (!signal.aborted) {
    try {
      await scheduleDue(deps, options.configured, noted);
      await afterEach();
    } catch (error) {
      deps.log.error(
        { event: 'poll_failed', err: error instanceof Error ? error.message : String(error) },
        'worker poll failed; trying again',
      );
    }
    await sleep(options.pollMs, undefined, { signal }).catch(() => undefined);
  }
}

/** Works until `signal` aborts, then finishes the asks in flight and returns. */
export async function runWorker(deps: AskDeps, options: WorkerOptions, signal: AbortSignal): Promise<void> {
  deps.log.info(
    {
      event: 'worker_started',
      owner: deps.owner,
      concurrency: options.concurrency,
      queue: options.queueDatabaseUrl ? 'pg-boss' : 'in-process',
    },
    `worker ${deps.owner} started`,
  );
  await warnWaiting(deps, options.configured, 'every brand');
  if (options.queueDatabaseUrl) {
    const queue = await startAskQueue(deps, {
      databaseUrl: options.queueDatabaseUrl,
      concurrency: options.concurrency,
      pollMs: options.pollMs,
    });
    const beat = heartbeat(deps);
    try {
      await scheduleLoop(deps, options, signal, async () => {
        await queue.feed();
        await completeLeftRuns(deps);
      });
    } finally {
      await queue.stop();
      beat.stop();
    }
  } else {
    await Promise.all([
      scheduleLoop(deps, options, signal, async () => undefined),
      runAsks(deps, { concurrency: options.concurrency, pollMs: Math.min(options.pollMs, 1_000), signal }),
    ]);
  }
  deps.log.info({ event: 'worker_stopped', owner: deps.owner }, `worker ${deps.owner} stopped`);
}
