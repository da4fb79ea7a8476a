// One planned ask, from claim to stored answer: claim it under a lease (and against the month's
// budget), ask the engine, then in one transaction mark it done and write the answer through the
// import's own path (the analyzer and ingest/writer.ts), so a monitored answer's derived fields
// are exactly an imported one's. The last ask of a run completes it: publish (unless the
// organization reviews first) and refresh the scores and aggregates.
import { refreshRunAggregates } from '../analytics/refresh.ts';
import type { EngineName } from '../config.ts';
import type { Db } from '../db/connect.ts';
import {
  type AskFacts,
  budgetSpent,
  categoryCompetitorNames,
  claimAsk,
  deferAsk,
  endMonitorRun,
  findOrgMonitoring,
  findPlannedAsk,
  findResponseId,
  finishAsk,
  type PlannedAsk,
  runAskCounts,
  runsLeftUnended,
  setAskResponse,
  unfinishedAsks,
  updateRunProgress,
} from '../db/monitoring.ts';
import { inTransaction } from '../db/transaction.ts';
import { sourceOf } from '../domain/analyzer/index.ts';
import { normalizeAnswerLine, type Outcome } from '../domain/answer-line.ts';
import { budgetMonth } from '../domain/schedule.ts';
import { storableText } from '../domain/storable-text.ts';
import { Lookups } from '../ingest/lookups.ts';
import { setRunPublished } from '../ingest/runs.ts';
import { AnswerWriter } from '../ingest/writer.ts';
import { type AskRequest, type AskResult, type Engine, NO_TURN, type Turn } from './engines/index.ts';

/** The part of a pino logger the monitoring engine writes to: one line per run event. */
export interface MonitorLog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export interface AskDeps {
  db: Db;
  engines: ReadonlyMap<EngineName, Engine>;
  /** This worker's name on the leases it holds. */
  owner: string;
  leaseMs: number;
  clock: () => Date;
  log: MonitorLog;
  /**
   * What follows a run that published itself (the CLI passes the recommendations' follow-up). It
   * must not throw: the run is published whatever becomes of it.
   */
  afterPublish?: (run: { orgId: number; brandId: number; runId: number }) => Promise<void>;
}

/**
 * `elsewhere`: an ask of an engine this process lacks, left unclaimed for a process that has it;
 * `deferred`: refused by the engine's open circuit, handed back until it closes; `stopped`: the
 * process was stopping before the engine gave it a turn, so it was left unclaimed.
 */
export type AskEnding = 'answered' | 'taken' | 'lost' | 'budget' | 'elsewhere' | 'deferred' | 'stopped';

// What the engine said, as the import's outcomes: a refusal or block is no_result, never "not
// mentioned"; only an answer is analysed.
const OUTCOMES: Record<AskResult['outcome'], Outcome> = {
  answered: 'ok',
  empty: 'empty',
  no_result: 'no_result',
  error: 'error',
};

// Labels for the engines the import's label table does not know.
const LABELS: Partial<Record<EngineName, string>> = {
  openai_compatible: 'OpenAI-compatible',
  simulated: 'Simulated',
};

// The import's limits on one answer (domain/answer-line.ts).
const MAX_TEXT = 200_000;
const MAX_CITATIONS = 500;

/** The answer's stable key: the same planned ask can only ever store one answer. */
export const answerKey = (ask: Pick<PlannedAsk, 'runId' | 'promptId' | 'engine' | 'sample'>) =>
  `monitor:${ask.runId}:${ask.promptId}:${ask.engine}:${ask.sample}`;

/**
 * Times one ask may be taken before it is ended without asking: each taking sends it once, and one
 * whose answer is never stored (its workers keep dying, or the store keeps failing) would otherwise
 * be sent, and paid for, at every lease.
 */
const MAX_ASK_ATTEMPTS = 3;

/** An ask ended as an error without a word from the engine. */
function unasked(engine: string, error: string): AskResult {
  return {
    engine: engine as EngineName,
    outcome: 'error',
    text: '',
    sources: [],
    vendorModel: null,
    latencyMs: 0,
    usage: { inputTokens: 0, outputTokens: 0 },
    estimatedCostUsd: null,
    error,
  };
}

async function askEngine(deps: AskDeps, ask: PlannedAsk, engine: Engine, turn: Turn): Promise<AskResult> {
  // The vendor is sent the prompt's own text and nothing else. Only the simulated engine, which
  // never leaves the process, is told whom to mention.
  const request: AskRequest = { prompt: ask.promptText, seed: `${ask.runId}/${ask.sample}` };
  if (engine.name === 'simulated') {
    const lookups = new Lookups(deps.db);
    request.context = {
      brandName: (await lookups.context(ask.orgId, ask.categoryId)).brandName,
      competitorNames: await categoryCompetitorNames(deps.db, ask.orgId, ask.categoryId),
    };
  }
  return engine.ask(request, { turn });
}

/**
 * The answer line of a result whose outcome and text are as given. The vendor's text is made
 * storable first: the answer line refuses a NUL and a lone surrogate (docs/ingest.md), which would
 * turn a paid-for answer into an error.
 */
function lineOf(ask: PlannedAsk, result: AskResult, outcome: Outcome, capturedAt: string) {
  const citations =
    outcome === 'ok'
      ? result.sources
          .map((s) => storableText(s.url))
          .filter((url) => url.length <= 2048 && sourceOf(url) !== null)
          .slice(0, MAX_CITATIONS)
      : [];
  return normalizeAnswerLine(
    {
      organization: ask.orgId,
      prompt: ask.promptId,
      run: `monitor-${ask.runId}`,
      runStatus: 'running',
      externalKey: answerKey(ask),
      model: ask.engine,
      ...(LABELS[ask.engine as EngineName] ? { modelLabel: LABELS[ask.engine as EngineName] } : {}),
      surface: 'api',
      outcome,
      capturedAt,
      answerText: outcome === 'empty' || outcome === 'error' ? null : storableText(result.text, MAX_TEXT),
      citations,
    },
    new Date(capturedAt),
  );
}

/**
 * The answer line of a result and the outcome the ask ends with. An answer the line refuses (a
 * text that is blank once its NULs are dropped, say) is stored as an error with the reason: thrown,
 * the ask would stay open and be asked, and paid for, again at every lease.
 */
function answerLine(ask: PlannedAsk, result: AskResult, capturedAt: string) {
  const outcome = OUTCOMES[result.outcome];
  const normalized = lineOf(ask, result, outcome, capturedAt);
  if ('line' in normalized) return { line: normalized.line, outcome, error: result.error ?? null };
  const error = `the answer could not be stored: ${normalized.errors[0]}`;
  const fallback = lineOf(ask, result, 'error', capturedAt);
  if ('errors' in fallback) throw new Error(`answer of ask ${ask.id} not storable: ${fallback.errors[0]}`);
  return { line: fallback.line, outcome: 'error' as const, error };
}

/** Writes the answer and marks the ask done, together; false when the lease was lost meanwhile. */
async function store(deps: AskDeps, ask: PlannedAsk, result: AskResult, at: string): Promise<boolean> {
  const { line, outcome, error } = answerLine(ask, result, at);
  const facts: AskFacts = {
    outcome,
    finishedAt: at,
    // Kept with a NUL, the model name failed the store at every attempt.
    vendorModel: result.vendorModel === null ? null : storableText(result.vendorModel),
    latencyMs: result.latencyMs,
    inputTokens: result.usage.inputTokens,
    outputTokens: result.usage.outputTokens,
    estimatedCostUsd: result.estimatedCostUsd,
    error,
  };
  return inTransaction(deps.db, async (trx) => {
    if (!(await finishAsk(trx, { id: ask.id, runId: ask.runId }, deps.owner, facts))) return false;
    const writer = new AnswerWriter(trx, at);
    await writer.write([
      {
        orgId: ask.orgId,
        brandId: ask.brandId,
        categoryId: ask.categoryId,
        runId: ask.runId,
        promptId: ask.promptId,
        key: answerKey(ask),
        line,
        context: await new Lookups(trx).context(ask.orgId, ask.categoryId),
      },
    ]);
    await writer.finish();
    await setAskResponse(trx, ask.id, await findResponseId(trx, ask.orgId, answerKey(ask)));
    await updateRunProgress(trx, ask.runId);
    return true;
  });
}

/**
 * Completes the running runs whose asks are all done (of `runIds`, or all): a process that stored
 * a run's last answer and died, or failed, before completing it left it running for good, and the
 * category's next runs only resumed it.
 */
export async function completeLeftRuns(deps: AskDeps, runIds?: readonly number[]): Promise<void> {
  for (const run of await runsLeftUnended(deps.db, runIds)) {
    await completeRun(deps, run).catch((error: unknown) =>
      deps.log.error(
        {
          event: 'run_completion_failed',
          runId: run.runId,
          err: error instanceof Error ? error.message : String(error),
        },
        `run ${run.runId} has every answer but could not be completed; trying again at the next poll`,
      ),
    );
  }
}

/** Completes a run whose asks are all done; only one caller wins, and it publishes and refreshes. */
async function completeRun(
  deps: AskDeps,
  ask: Pick<PlannedAsk, 'runId' | 'orgId' | 'brandId' | 'categoryId'>,
): Promise<void> {
  const org = await findOrgMonitoring(deps.db, ask.orgId);
  const at = deps.clock().toISOString();
  const won = await inTransaction(deps.db, async (trx) => {
    if (!(await endMonitorRun(trx, ask.runId, { status: 'completed', finishedAt: at, reason: null })))
      return false;
    if (org?.reviewBeforePublish) await refreshRunAggregates(trx, ask.orgId, ask.runId);
    else await setRunPublished(trx, ask.orgId, ask.runId, at);
    return true;
  });
  if (!won) return;
  const counts = await runAskCounts(deps.db, ask.runId);
  deps.log.info(
    {
      event: 'run_completed',
      runId: ask.runId,
      orgId: ask.orgId,
      categoryId: ask.categoryId,
      asks: counts.planned,
      outcomes: counts.outcomes,
      estimatedCostUsd: Math.round(counts.estimatedCostUsd * 1_000_000) / 1_000_000,
      published: !org?.reviewBeforePublish,
    },
    org?.reviewBeforePublish
      ? `run ${ask.runId} completed; awaiting review (sightline runs publish ${ask.runId})`
      : `run ${ask.runId} completed and published`,
  );
  if (!org?.reviewBeforePublish)
    await deps.afterPublish?.({ orgId: ask.orgId, brandId: ask.brandId, runId: ask.runId });
}

/** Stops a run at the organization's monthly budget; the asks it did not make stay unasked. */
export async function stopRunForBudget(
  deps: AskDeps,
  run: { id: number; orgId: number },
  budget: number | null,
  month: string,
  timezone: string,
): Promise<void> {
  const reason = `monthly ask budget reached: ${budget} asks in ${month} (${timezone})`;
  const at = deps.clock().toISOString();
  if (await endMonitorRun(deps.db, run.id, { status: 'failed', finishedAt: at, reason })) {
    deps.log.warn(
      { event: 'run_stopped', runId: run.id, orgId: run.orgId, reason },
      `run ${run.id} stopped: ${reason}`,
    );
  }
}

/**
 * Takes, asks and stores one planned ask. Never asks one that is done or held by another worker.
 * `signal` stops the wait for a turn at the engine: the ask is then left for later, unclaimed.
 */
export async function executeAsk(deps: AskDeps, askId: number, signal?: AbortSignal): Promise<AskEnding> {
  const ask = await findPlannedAsk(deps.db, askId);
  if (!ask) return 'taken';
  // Checked before the claim, which counts the ask against the month's budget: ended here as an
  // error, it was counted and its run finished without an answer from an engine that another
  // worker, or this one with its key back, could ask.
  const engine = deps.engines.get(ask.engine as EngineName);
  if (engine === undefined) return 'elsewhere';
  const org = await findOrgMonitoring(deps.db, ask.orgId);
  if (!org) return 'taken';
  const stopForBudget = async (month: string) => {
    await stopRunForBudget(
      deps,
      { id: ask.runId, orgId: ask.orgId },
      org.monthlyAskBudget,
      month,
      org.timezone,
    );
    return 'budget' as const;
  };
  // A month without asks left stops the run now, not after a wait for the engine's turn.
  const thisMonth = budgetMonth(deps.clock(), org.timezone);
  if (await budgetSpent(deps.db, org, thisMonth)) return stopForBudget(thisMonth);
  // Claimed only in a turn at the engine, so what the claim counts is sent at once: claimed and
  // then queued behind the engine's concurrency, an ask a killed process left was counted (and an
  // attempt spent) without having been sent.
  const taken = await engine.inTurn(
    ask.promptText,
    async (turn) => {
      const now = deps.clock();
      const month = budgetMonth(now, org.timezone);
      const claim = await claimAsk(
        deps.db,
        { id: ask.id, orgId: ask.orgId },
        {
          owner: deps.owner,
          now: now.toISOString(),
          leaseUntil: new Date(now.getTime() + deps.leaseMs).toISOString(),
          month,
          budget: org.monthlyAskBudget,
          maxAttempts: MAX_ASK_ATTEMPTS,
        },
      );
      if (claim === 'taken') return 'taken';
      if (claim === 'budget') return stopForBudget(month);
      const result =
        claim === 'exhausted'
          ? unasked(
              ask.engine,
              `taken ${MAX_ASK_ATTEMPTS} times without its answer being stored; not asked again`,
            )
          : await askEngine(deps, ask, engine, turn);
      return { result, month };
    },
    signal,
  );
  if (taken === NO_TURN) return 'stopped';
  if (typeof taken === 'string') return taken;
  const { result, month } = taken;
  // Stored, a circuit's refusal was a final error for every ask of the run taken while it was
  // open (a short burst of 429s ended whole runs as errors, each counted as sent).
  if (result.retryInMs !== undefined) {
    const until = new Date(deps.clock().getTime() + result.retryInMs).toISOString();
    if (await deferAsk(deps.db, ask, deps.owner, { until, month })) {
      deps.log.info(
        { event: 'ask_deferred', runId: ask.runId, askId: ask.id, engine: ask.engine, until },
        `ask ${ask.id} of run ${ask.runId} waits for ${ask.engine}'s circuit to close (until ${until}); not counted`,
      );
      return 'deferred';
    }
  }
  if (!(await store(deps, ask, result, deps.clock().toISOString()))) {
    deps.log.warn(
      { event: 'ask_lease_lost', runId: ask.runId, askId: ask.id },
      `ask ${ask.id} of run ${ask.runId} was taken over by another worker; its answer is not stored twice`,
    );
    return 'lost';
  }
  if ((await unfinishedAsks(deps.db, ask.runId)) === 0) await completeRun(deps, ask);
  return 'answered';
}
