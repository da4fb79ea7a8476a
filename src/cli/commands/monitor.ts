// `sightline monitor run|settings`: ask a brand's prompts now, in this process, and an
// organization's monthly ask budget and review setting. The worker (`sightline worker`) runs the
// same runs on a schedule.

import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { type Config, type EngineName, loadConfig } from '../../config.ts';
import { findBrand, requireBrand, requireCategory } from '../../db/catalog/refs.ts';
import type { Db } from '../../db/connect.ts';
import {
  asksWaitingForEngines,
  askUsage,
  eligiblePrompts,
  findBrandMonitoring,
  findMonitorRun,
  findOrgMonitoring,
  listBrandMonitoring,
  setOrgMonitoring,
} from '../../db/monitoring.ts';
import type { Ref } from '../../domain/catalog.ts';
import { budgetMonth } from '../../domain/schedule.ts';
import {
  ASSUMED_ICC,
  type Cadence,
  defaultSamplesPerAsk,
  MIN_PROMPTS,
  monitorPlan,
  TARGET_HALF_WIDTH,
} from '../../domain/uncertainty.ts';
import type { AskDeps, MonitorLog } from '../../monitoring/asks.ts';
import { createEngines, type EngineOptions } from '../../monitoring/engines/index.ts';
import { MonitoringError, planRuns } from '../../monitoring/plan.ts';
import { describeMonitoring } from '../../monitoring/settings.ts';
import { publicationFollowUp } from '../../recommendations/after-publish.ts';
import { draftEngine } from '../../recommendations/artifacts.ts';
import { UsageError } from '../errors.ts';
import { parseConcurrency, parseRefOption, withOrganization } from '../operator.ts';
import {
  abortOnSignals,
  formatTable,
  monitorLogger,
  paidWrites,
  parseEngines,
  parseSamples,
  print,
} from './support.ts';

// "none" stays a string: commander turns a parser's null into "".
function parseBudget(value: string): number | 'none' {
  if (value === 'none') return value;
  if (!/^\d{1,9}$/.test(value)) throw new InvalidArgumentError('expected a whole number of asks, or "none".');
  return Number(value);
}

/** This process's name on the asks it holds: which machine and process, and unique per start. */
function workerName(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

/** What asking needs, for `monitor run` and the worker alike: one owner name per process start. */
export function askDeps(db: Db, engines: AskDeps['engines'], config: Config, log: MonitorLog): AskDeps {
  const clock = () => new Date();
  return {
    db,
    engines,
    owner: workerName(),
    leaseMs: config.monitor.leaseMs,
    clock,
    log,
    afterPublish: publicationFollowUp(db, clock, draftEngine(config.engines, engines), log),
  };
}

/** Stops taking asks on the first SIGINT or SIGTERM; a second one leaves at once. */
export function stopOnSignals(log: MonitorLog): AbortController {
  return abortOnSignals((signal) =>
    log.warn(
      { event: 'stopping', signal },
      `${signal}: finishing the asks in flight (again to leave now; unfinished asks are taken up later)`,
    ),
  );
}

interface RunOptions {
  org: string;
  brand: Ref;
  category?: Ref;
  engines?: EngineName[];
  samples?: number;
  concurrency?: number;
}

async function runNow(options: RunOptions): Promise<void> {
  // Only `monitor run` asks: the asking side (answer checks, analyzer, queue) is most of this
  // group's modules, which `monitor settings` and `monitor plan` do not use.
  const [{ runAsks }, { logPlanned }] = await Promise.all([
    import('../../monitoring/runner.ts'),
    import('../../monitoring/worker.ts'),
  ]);
  const config = loadConfig();
  const log = monitorLogger(config.logLevel, 2);
  const engineOptions: EngineOptions = { logger: log };
  const engines = createEngines(config.engines, engineOptions);
  const controller = stopOnSignals(log);
  const outcome = await withOrganization(
    options.org,
    async (db: Db, org) => {
      const brand = await requireBrand(db, org.id, options.brand, org.slug);
      const category =
        options.category === undefined
          ? undefined
          : await requireCategory(db, org.id, options.category, org.slug, brand);
      if (brand.status !== 'active') {
        const hint =
          brand.status === 'merged'
            ? ''
            : ` (sightline brands update ${brand.id} --org ${org.slug} --status active)`;
        throw new Error(`brand ${brand.id} is ${brand.status}: only active brands are asked${hint}`);
      }
      const monitoring = await findBrandMonitoring(db, org.id, brand.id);
      if (!monitoring) throw new Error(`brand ${brand.id} vanished`);
      // A run left unfinished by a process with other engines would be resumed and waited for
      // without end: its asks of engines this process lacks are not asked here.
      const [waiting] = await asksWaitingForEngines(db, [...engines.keys()], {
        orgId: org.id,
        brandId: brand.id,
        categoryIds: category && [category.id],
      });
      if (waiting) {
        throw new UsageError(
          `run ${waiting.runId} (category ${waiting.categoryId}) is unfinished with ${waiting.asks} asks for engine ${waiting.engine}, which is not configured (see: sightline engines list)`,
        );
      }
      const deps = askDeps(db, engines, config, log);
      let runs: Awaited<ReturnType<typeof planRuns>>;
      try {
        runs = await planRuns(
          db,
          monitoring,
          { categoryIds: category && [category.id], engines: options.engines, samples: options.samples },
          new Set(engines.keys()),
          new Date(),
        );
      } catch (error) {
        if (error instanceof MonitoringError) throw new UsageError(error.message);
        throw error;
      }
      logPlanned(deps, brand.id, runs);
      const runIds = runs.map((r) => r.runId);
      // Paused (or archived) meanwhile, the brand's asks are taken by no one: waiting for its runs
      // to end would be waiting for good.
      const inactive = async () => (await findBrand(db, org.id, brand.id))?.status !== 'active';
      const over = async () => {
        for (const id of runIds) if ((await findMonitorRun(db, id))?.status === 'running') return inactive();
        return true;
      };
      await runAsks(deps, {
        runIds,
        concurrency: options.concurrency ?? config.monitor.concurrency,
        pollMs: Math.min(config.monitor.pollMs, 500),
        done: over,
        signal: controller.signal,
      });
      const finished = await Promise.all(
        runIds.map(
          async (id) => (await findMonitorRun(db, id)) ?? { id, status: 'missing', statusReason: null },
        ),
      );
      const left = finished.find((r) => r.status === 'running');
      if (left && !controller.signal.aborted && (await inactive())) {
        throw new Error(
          `brand ${brand.id} was paused or archived while it was asked: run ${left.id} waits until it is active again`,
        );
      }
      return finished;
    },
    paidWrites(options.concurrency ?? config.monitor.concurrency),
  );
  for (const run of outcome) print(String(run.id));
  const stopped = outcome.find((r) => r.status !== 'completed');
  if (controller.signal.aborted && stopped) {
    throw new Error(`stopped before run ${stopped.id} finished; run the same command again to resume it`);
  }
  if (stopped)
    throw new Error(
      `run ${stopped.id} ${stopped.status}${stopped.statusReason ? `: ${stopped.statusReason}` : ''}`,
    );
}

async function settings(options: {
  org: string;
  budget?: number | 'none';
  review?: 'on' | 'off';
}): Promise<void> {
  const lines = await withOrganization(options.org, async (db, org) => {
    if (options.budget !== undefined || options.review !== undefined) {
      await setOrgMonitoring(db, org.id, {
        monthlyAskBudget: options.budget === 'none' ? null : options.budget,
        reviewBeforePublish: options.review === undefined ? undefined : options.review === 'on',
      });
    }
    const current = await findOrgMonitoring(db, org.id);
    if (!current) throw new Error(`organization ${org.slug} vanished`);
    const month = budgetMonth(new Date(), current.timezone);
    const used = await askUsage(db, org.id, month);
    const budget =
      current.monthlyAskBudget === null
        ? 'no monthly ask budget'
        : `monthly ask budget ${current.monthlyAskBudget}`;
    const brands = await listBrandMonitoring(db, org.id);
    return [
      `Organization ${org.slug}: ${budget} (${used} asks used in ${month}, ${current.timezone}); completed runs ${current.reviewBeforePublish ? 'wait for review (sightline runs publish)' : 'publish themselves'}.`,
      ...brands.map((b) => `Brand ${b.brandId} "${b.brandName}": ${describeMonitoring(b)}.`),
    ];
  });
  for (const line of lines) print(line);
}

interface PlanOptions {
  org: string;
  brand: Ref;
  engines?: EngineName[];
  cadence?: Cadence;
  samples?: number;
}

const points = (share: number) => `±${(share * 100).toFixed(1)}`;

/**
 * What a brand's monitoring buys, per engine: the expected half-width of its mention-rate interval
 * at a 50 % rate over 7, 30 and 90 days (methodology.md, "Uncertainty"), and the samples per ask
 * that ±10 points would need. The brand's own settings unless others are given to compare.
 */
async function plan(options: PlanOptions): Promise<void> {
  const lines = await withOrganization(options.org, async (db, org) => {
    const brand = await requireBrand(db, org.id, options.brand, org.slug);
    const monitoring = await findBrandMonitoring(db, org.id, brand.id);
    if (!monitoring) throw new Error(`brand ${brand.id} vanished`);
    const cadence = options.cadence ?? monitoring.cadence;
    if (cadence !== 'daily' && cadence !== 'weekly') {
      throw new UsageError(
        `brand ${brand.id} is not monitored (cadence off): give --cadence daily or weekly`,
      );
    }
    const engines = options.engines ?? monitoring.engines;
    if (engines.length === 0) throw new UsageError(`brand ${brand.id} has no engines: give --engines`);
    const samplesPerAsk = options.samples ?? monitoring.samples;
    const prompts = (await eligiblePrompts(db, org.id, brand.id)).length;
    const rows = monitorPlan(
      prompts,
      engines.map((engine) => ({ engine, cadence, samplesPerAsk })),
    ).map((p) => [
      p.engine,
      p.cadence,
      String(p.samplesPerAsk),
      ...p.windows.map((w) => (w.halfWidth === null ? 'no interval' : points(w.halfWidth))),
      ...p.windows.map((w) =>
        w.samplesPerAskForTarget === null ? 'more prompts' : String(w.samplesPerAskForTarget),
      ),
    ]);
    const suggested = defaultSamplesPerAsk(prompts, cadence);
    return [
      `Brand ${brand.id} "${monitoring.brandName}": ${prompts} monitored prompts, asked ${cadence}. ` +
        `Half-widths of a 50 % mention rate's 95 % interval, in points, assuming answers to one prompt ` +
        `correlate at ${ASSUMED_ICC}; NEED: samples per ask for ${points(TARGET_HALF_WIDTH)} points.`,
      formatTable(
        ['ENGINE', 'CADENCE', 'SAMPLES/ASK', '7D', '30D', '90D', 'NEED 7D', 'NEED 30D', 'NEED 90D'],
        rows,
      ),
      prompts < MIN_PROMPTS
        ? `Fewer than ${MIN_PROMPTS} prompts: no interval is served; add prompts.`
        : `Suggested samples per ask for this brand: ${suggested ?? 'any (add prompts: samples cannot reach the target)'}.`,
    ];
  });
  for (const line of lines) print(line);
}

export function register(program: Command): void {
  const monitor = program
    .command('monitor')
    .description('Ask the answer engines: runs now, budgets and review.');

  monitor
    .command('run')
    .description(
      "Ask a brand's monitored prompts now (one run per category), wait until done, print each run id; resumes a run left unfinished.",
    )
    .requiredOption('--org <slug>', 'organization')
    .requiredOption('--brand <brand>', 'brand id or key', parseRefOption)
    .option('--category <category>', 'only this category (id or key)', parseRefOption)
    .option('--engines <list>', "engines to ask, comma-separated (default: the brand's)", parseEngines)
    .option('--samples <n>', "asks per prompt and engine (default: the brand's)", parseSamples)
    .addOption(
      new Option(
        '--concurrency <n>',
        'asks in flight at once (default SIGHTLINE_WORKER_CONCURRENCY)',
      ).argParser(parseConcurrency),
    )
    .action((options: RunOptions) => runNow(options));

  monitor
    .command('plan')
    .description(
      "What a brand's cadence and samples buy: the expected mention-rate interval per engine over 7, 30 and 90 days.",
    )
    .requiredOption('--org <slug>', 'organization')
    .requiredOption('--brand <brand>', 'brand id or key', parseRefOption)
    .option('--engines <list>', "engines to plan for (default: the brand's)", parseEngines)
    .addOption(
      new Option('--cadence <cadence>', "cadence to plan for (default: the brand's)").choices([
        'daily',
        'weekly',
      ]),
    )
    .option('--samples <n>', "asks per prompt and engine to plan for (default: the brand's)", parseSamples)
    .action(plan);

  monitor
    .command('settings')
    .description(
      "Show or change an organization's monthly ask budget and whether runs wait for review; shows each brand's schedule.",
    )
    .requiredOption('--org <slug>', 'organization')
    .addOption(
      new Option('--budget <asks>', 'asks per calendar month in the org time zone, or "none"').argParser(
        parseBudget,
      ),
    )
    .addOption(
      new Option('--review <state>', 'completed runs wait for `sightline runs publish`').choices([
        'on',
        'off',
      ]),
    )
    .action(settings);
}
