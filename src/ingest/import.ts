import { refreshRunAggregates } from '../analytics/refresh.ts';
import type { Db } from '../db/connect.ts';
import { publishRunsAt } from '../db/run-writes.ts';
import { inTransaction } from '../db/transaction.ts';
import type { RunStatus } from '../domain/answer-line.ts';
import { answerAnalysis, defaultAnalysisThreads } from './analysis.ts';
import { type CheckOptions, check } from './check.ts';
import { type AnswerSource, answerKey, readLines, resolve, runKey } from './lines.ts';
import { Lookups } from './lookups.ts';
import { createRuns, describeRuns, type RunPlan, runsChangedSinceCheck } from './runs.ts';
import { AnswerWriter, type PendingAnswer } from './writer.ts';

// Importing captured answers (docs/ingest.md). Two passes over the input: the first checks every
// line — its shape, and what it names, inside its organization — and collects every problem with
// its line number (ingest/check.ts); only input without a single problem gets the second pass,
// which analyses each answer and writes everything in one transaction, then refreshes the
// aggregates of the runs it touched. An answer already stored (same external key) is skipped, so
// importing a file again adds nothing. Memory stays flat: the second pass reads the input again
// instead of holding it.

export type { ImportProgress, LineError } from './check.ts';
export { ImportRejected } from './check.ts';
export type { AnswerSource } from './lines.ts';

export interface ImportOptions extends CheckOptions {
  /** Publish the completed runs the input touches. */
  publish?: boolean;
  /** The import's clock: created and published times, and the limit for capturedAt. */
  now?: Date;
  /**
   * Worker threads analysing the answers; 0 analyses them in the import's thread. The stored rows
   * are the same either way. Default: by the import's size and the cores (ingest/analysis.ts).
   */
  analysisThreads?: number;
}

export interface ImportedRun {
  id: number;
  orgId: number;
  brandId: number;
  externalId: string;
  status: RunStatus;
  created: boolean;
  /** Completed and published (or legacy): the API shows it. */
  visible: boolean;
  /** Published by this import (`publish`). */
  published: boolean;
  /** Answers this import added to it. */
  answers: number;
}

export interface ImportSummary {
  /** Answer lines read (blank lines aside). */
  answers: number;
  imported: number;
  alreadyPresent: number;
  runs: ImportedRun[];
  /** Untracked names the new answers ranked (see `sightline competitors candidates`). */
  candidates: number;
}

const BATCH = 500;

/** Another writer changed the same answers or runs between this import's check and its write. */
export class ImportRaced extends Error {
  constructor(cause?: unknown) {
    super(
      'another import, a publish or monitoring wrote some of the same runs or answers first; nothing was imported. Run it again: it is idempotent',
      { cause },
    );
    this.name = 'ImportRaced';
  }
}

// A unique constraint refused a row, as PostgreSQL (SQLSTATE 23505) and SQLite (the extended codes
// of UNIQUE and PRIMARY KEY) report it. The check pass found none of these rows, so only a
// concurrent import can have written them since.
function isUniqueViolation(error: unknown): boolean {
  const { code, errcode } = error as { code?: unknown; errcode?: unknown };
  return code === '23505' || errcode === 2067 || errcode === 1555;
}

export async function importAnswers(
  db: Db,
  source: AnswerSource,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const now = options.now ?? new Date();
  const nowIso = now.toISOString();
  const lookups = new Lookups(db);
  const { plans, present, answers } = await check(db, lookups, source, options, now);
  const total = answers - present.size;

  const analysis = answerAnalysis(options.analysisThreads ?? defaultAnalysisThreads(total));
  const importing = inTransaction(db, async (trx) => {
    const scoped = lookups.on(trx);
    const runIds = await createRuns(trx, [...plans.values()], nowIso);
    const added = new Map<RunPlan, number>();
    const writer = new AnswerWriter(trx, nowIso);
    let batch: PendingAnswer[] = [];
    let written = 0;
    // A batch is analysed (on the analysis threads, when there are) while the one before it is
    // written and the one after it read, and written only once that one is: in input order.
    let writing: Promise<void> = Promise.resolve();
    const flush = async () => {
      const current = batch;
      batch = [];
      const previous = writing;
      writing = Promise.all([analysis.analyse(current), previous]).then(async ([analyses]) => {
        await writer.write(current, analyses);
        written += current.length;
        if (current.length > 0) options.onProgress?.({ phase: 'writing', done: written, total });
      });
      // Whoever awaits `writing` next sees its failure; this only keeps it from counting as unhandled.
      writing.catch(() => {});
      await previous;
    };
    // The check is over: the answers' writing starts (a bar starts at 0, a watch can time the phases).
    options.onProgress?.({ phase: 'writing', done: 0, total });
    try {
      for await (const { line: lineNo, parsed } of readLines(source)) {
        const resolved =
          'value' in parsed ? await resolve(scoped, parsed.value, options, now) : { errors: [parsed.error] };
        const changed = () => new Error(`line ${lineNo} changed while importing; nothing was imported`);
        if ('errors' in resolved) throw changed();
        if (present.has(answerKey(resolved.orgId, resolved.key))) continue;
        const plan = plans.get(runKey(resolved.orgId, resolved.line.run));
        // A run the check never met: the line names another run now.
        if (!plan) throw changed();
        added.set(plan, (added.get(plan) ?? 0) + 1);
        batch.push({
          orgId: resolved.orgId,
          brandId: resolved.brandId,
          categoryId: resolved.categoryId,
          runId: runIds.get(plan) as number,
          promptId: resolved.promptId,
          key: resolved.key,
          line: resolved.line,
          context: await scoped.context(resolved.orgId, resolved.categoryId),
        });
        if (batch.length >= BATCH) await flush();
      }
      await flush();
    } finally {
      // Nothing may still be writing when the transaction ends, whether it commits or rolls back.
      await writing.catch(() => {});
    }
    await writing;
    const candidates = await writer.finish();

    const runs: ImportedRun[] = [];
    const refreshes: { orgId: number; runIds: number[] }[] = [];
    for (const [orgId, orgPlans] of Map.groupBy(plans.values(), (p) => p.orgId)) {
      if (await runsChangedSinceCheck(trx, orgId, orgPlans)) throw new ImportRaced();
      // Only runs that gained answers or changed state need describing and re-aggregating.
      const changed = orgPlans.filter((p) => (added.get(p) ?? 0) > 0 || p.existing?.status !== p.status);
      await describeRuns(
        trx,
        orgId,
        changed.map((p) => ({ id: runIds.get(p) as number, categoryId: p.categoryId, status: p.status })),
      );
      const publish = options.publish
        ? orgPlans.filter(
            (p) => p.status === 'completed' && p.methodology !== 'legacy' && !p.existing?.publishedAt,
          )
        : [];
      await publishRunsAt(
        trx,
        orgId,
        publish.map((p) => runIds.get(p) as number),
        nowIso,
      );
      const refresh = [...new Set([...changed, ...publish])].map((p) => runIds.get(p) as number);
      if (refresh.length > 0) refreshes.push({ orgId, runIds: refresh });
      for (const p of orgPlans) {
        runs.push({
          id: runIds.get(p) as number,
          orgId,
          brandId: p.brandId,
          externalId: p.externalId,
          status: p.status,
          created: !p.existing,
          visible:
            p.status === 'completed' &&
            (p.methodology === 'legacy' || Boolean(p.existing?.publishedAt) || publish.includes(p)),
          published: publish.includes(p),
          answers: added.get(p) ?? 0,
        });
      }
    }
    // The refresh is a phase of its own for whoever watches: about a third of an import, a minute
    // or more for a million answers (docs/performance.md, "What 20,000 answers/s would take").
    const refreshing = refreshes.reduce((n, r) => n + r.runIds.length, 0);
    let before = 0;
    for (const { orgId, runIds: refresh } of refreshes) {
      await refreshRunAggregates(trx, orgId, refresh, (done) =>
        options.onProgress?.({ phase: 'refreshing', done: before + done, total: refreshing }),
      );
      before += refresh.length;
    }
    return { answers, imported: written, alreadyPresent: present.size, runs, candidates };
  });
  return importing
    .catch((error: unknown) => {
      throw isUniqueViolation(error) ? new ImportRaced(error) : error;
    })
    .finally(() => analysis.close());
}
