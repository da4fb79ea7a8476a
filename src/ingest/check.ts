import type { Db } from '../db/connect.ts';
import { storedAnswerKeys } from '../db/responses.ts';
import type { Methodology, RunStatus } from '../domain/answer-line.ts';
import type { Ref } from '../domain/catalog.ts';
import { type AnswerSource, answerKey, type Resolved, readLines, resolve, runKey } from './lines.ts';
import type { Lookups } from './lookups.ts';
import { type RunPlan, runConflict } from './runs.ts';

// The import's first pass: every line checked — alone, against the database, and against the
// other lines (runs that agree, answers that appear once, keys that are not taken) — before
// anything is written. Any problem rejects the input, listing every problem with its line.

export interface ImportProgress {
  /** Checking the lines, then writing the answers, then refreshing the runs' scores and sums. */
  phase: 'checking' | 'writing' | 'refreshing';
  /** Answer lines while checking and writing; runs while refreshing. */
  done: number;
  /** Unknown while checking. */
  total: number | null;
}

export interface CheckOptions {
  /** The organization of lines that name none (a slug or id); lines naming another are refused. */
  organization?: Ref;
  /** How many problems to report before only counting them. */
  maxErrors?: number;
  onProgress?: (progress: ImportProgress) => void;
}

export interface LineError {
  /** 1-based; 0 for the input as a whole. */
  line: number;
  message: string;
}

export class ImportRejected extends Error {
  readonly errors: LineError[];
  readonly errorCount: number;
  constructor(errors: LineError[], errorCount: number, lines: number) {
    super(`${errorCount} problem(s) in ${lines} line(s); nothing was imported`);
    this.name = 'ImportRejected';
    this.errors = errors;
    this.errorCount = errorCount;
  }
}

const BATCH = 500;
const PROGRESS_EVERY = 1000;

export interface Checked {
  plans: Map<string, RunPlan>;
  /** Answers of the input already stored. */
  present: Set<string>;
  answers: number;
}

/** Pass one: every line checked; throws ImportRejected listing the problems. */
export async function check(
  db: Db,
  lookups: Lookups,
  source: AnswerSource,
  options: CheckOptions,
  now: Date,
): Promise<Checked> {
  const maxErrors = options.maxErrors ?? 100;
  const errors: LineError[] = [];
  let errorCount = 0;
  const fail = (line: number, message: string) => {
    errorCount++;
    if (errors.length < maxErrors) errors.push({ line, message });
  };
  const plans = new Map<string, RunPlan>();
  const keys = new Map<string, number>();
  const present = new Set<string>();
  let pending: Array<Resolved & { lineNo: number }> = [];

  // Keys already stored must belong to the same answer (same run and prompt), else the key is reused.
  const flush = async () => {
    const byOrg = Map.groupBy(pending, (p) => p.orgId);
    pending = [];
    for (const [orgId, entries] of byOrg) {
      const stored = await storedAnswerKeys(
        db,
        orgId,
        entries.map((e) => e.key),
      );
      const byKey = new Map(stored.map((s) => [s.external_key, s]));
      for (const entry of entries) {
        const found = byKey.get(entry.key);
        if (!found) continue;
        if (found.external_id === entry.line.run && found.prompt_id === entry.promptId)
          present.add(answerKey(orgId, entry.key));
        else
          fail(
            entry.lineNo,
            `externalKey "${entry.key}" is already used by an answer of run "${found.external_id}", prompt ${found.prompt_id}`,
          );
      }
    }
  };

  // Lines are read BATCH ahead, so that the runs they name are looked up in one query; each line is
  // then judged in order, exactly as if it had just been read.
  let ahead: Array<{ lineNo: number; resolved: Resolved | { errors: string[] } }> = [];
  const judge = async () => {
    const unseen = ahead.flatMap(({ resolved: r }) =>
      'errors' in r || plans.has(runKey(r.orgId, r.line.run)) ? [] : [r],
    );
    for (const [orgId, entries] of Map.groupBy(unseen, (r) => r.orgId)) {
      await lookups.prefetchRuns(
        orgId,
        entries.map((r) => r.line.run),
      );
    }
    for (const { lineNo, resolved } of ahead) {
      if ('errors' in resolved) {
        for (const message of resolved.errors) fail(lineNo, message);
        continue;
      }
      const { line, orgId, key } = resolved;
      const status = line.runStatus;
      const id = runKey(orgId, line.run);
      let plan = plans.get(id);
      if (!plan) {
        const existing = await lookups.run(orgId, line.run);
        const finished = existing && existing.status !== 'running' && existing.status !== 'queued';
        plan = {
          orgId,
          externalId: line.run,
          brandId: existing?.brandId ?? resolved.brandId,
          categoryId: existing?.categoryId ?? resolved.categoryId,
          status: finished ? (existing.status as RunStatus) : status,
          methodology: (existing?.methodology as Methodology | undefined) ?? line.methodology,
          existing,
          line: lineNo,
        };
        plans.set(id, plan);
      }
      const conflict = runConflict(plan, {
        categoryId: resolved.categoryId,
        status,
        methodology: line.methodology,
      });
      if (conflict) fail(lineNo, conflict);
      const first = keys.get(answerKey(orgId, key));
      if (first !== undefined) {
        fail(
          lineNo,
          line.externalKey
            ? `externalKey "${key}" repeats line ${first}`
            : `repeats the answer of line ${first} (same run, prompt, model, surface and capturedAt); give each an externalKey or merge them with sampleCount`,
        );
        continue;
      }
      keys.set(answerKey(orgId, key), lineNo);
      pending.push({ ...resolved, lineNo });
      if (pending.length >= BATCH) await flush();
    }
    ahead = [];
  };

  let answers = 0;
  for await (const { line: lineNo, parsed } of readLines(source)) {
    answers++;
    if (answers % PROGRESS_EVERY === 0)
      options.onProgress?.({ phase: 'checking', done: answers, total: null });
    const resolved =
      'error' in parsed ? { errors: [parsed.error] } : await resolve(lookups, parsed.value, options, now);
    ahead.push({ lineNo, resolved });
    if (ahead.length >= BATCH) await judge();
  }
  await judge();
  await flush();
  if (answers === 0) fail(0, 'the input has no answers');
  if (errorCount > 0) throw new ImportRejected(errors, errorCount, answers);
  return { plans, present, answers };
}
