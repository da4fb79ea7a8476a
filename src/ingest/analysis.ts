import { availableParallelism, loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Analysis, AnalyzerSubject, AnswerInput } from '../domain/analyzer/index.ts';
import type { AnswerLine } from '../domain/answer-line.ts';
import type { CategoryContext } from './lookups.ts';

// Analysing an import's answers. The analyzer is pure CPU work and, on one core, slower than the
// rest of the import put together (docs/performance.md "Import"), so a large import spreads it
// over a few worker threads while its own thread parses, checks and writes. Each batch is cut into
// contiguous slices, one per thread, and the slices' analyses are put back together in order: a
// batch's analyses are exactly what analysing it in the import's thread gives, only sooner.

/** An answer to analyse, with its category's analyzer. */
export interface AnalysableAnswer {
  categoryId: number;
  line: AnswerLine;
  context: Pick<CategoryContext, 'analyzer' | 'subject'>;
}

/** What one answer needs analysed, or null when it has nothing to read. */
function analysisInput(answer: AnalysableAnswer): AnswerInput | null {
  const { line } = answer;
  // Only an answer with text can be read; a legacy answer without it keeps no mention data.
  if (line.outcome !== 'ok' || !line.answerText?.trim()) return null;
  return { text: line.answerText, html: line.answerHtml, citations: line.citations };
}

/** Analyses a batch in the calling thread. */
export function analyseHere(batch: readonly AnalysableAnswer[]): (Analysis | null)[] {
  return batch.map((answer) => {
    const input = analysisInput(answer);
    return input && answer.context.analyzer.analyze(input);
  });
}

export interface AnalysisTask {
  id: number;
  /** Analyzer subjects by category, for the categories this thread has not been sent yet. */
  subjects: [number, AnalyzerSubject][];
  answers: ({ categoryId: number; input: AnswerInput } | null)[];
}

interface Reply {
  id: number;
  analyses: (Analysis | null)[];
}

class AnalysisThread {
  readonly categories = new Set<number>();
  private readonly worker = new Worker(new URL('./analysis-worker.ts', import.meta.url));
  private readonly pending = new Map<number, PromiseWithResolvers<(Analysis | null)[]>>();
  private failure: Error | undefined;

  constructor() {
    this.worker.on('message', (reply: Reply) => {
      this.pending.get(reply.id)?.resolve(reply.analyses);
      this.pending.delete(reply.id);
    });
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => this.fail(new Error(`an analysis thread stopped (exit code ${code})`)));
  }

  run(task: AnalysisTask): Promise<(Analysis | null)[]> {
    if (this.failure) return Promise.reject(this.failure);
    const reply = Promise.withResolvers<(Analysis | null)[]>();
    this.pending.set(task.id, reply);
    this.worker.postMessage(task);
    return reply.promise;
  }

  async close(): Promise<void> {
    this.failure ??= new Error('the analysis threads were closed');
    await this.worker.terminate();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const reply of this.pending.values()) reply.reject(this.failure);
    this.pending.clear();
  }
}

/** Analyses batches of answers, in order; `close` when done, whatever happened. */
export interface AnswerAnalysis {
  analyse(batch: readonly AnalysableAnswer[]): Promise<(Analysis | null)[]>;
  close(): Promise<void>;
}

/** Below this many answers a thread costs more than it saves (starting it, warming it up). */
const ANSWERS_PER_THREAD = 2000;

/**
 * The import's own thread parses, checks and writes, so analysis gets the other cores, but only
 * those not already busy: on a machine whose cores are all taken (load average at or above their
 * number) a thread only adds its start-up and copying to the same CPU time, and the import was
 * measured slower with one than without (docs/performance.md "Import").
 */
export function defaultAnalysisThreads(answers: number): number {
  const spare = Math.floor(availableParallelism() - (loadavg()[0] ?? 0));
  return Math.max(0, Math.min(availableParallelism() - 1, spare, Math.floor(answers / ANSWERS_PER_THREAD)));
}

/** `threads` worker threads, or none (0): the analyses are the same either way. */
export function answerAnalysis(threads: number): AnswerAnalysis {
  if (threads <= 0) return { analyse: async (batch) => analyseHere(batch), close: async () => {} };
  const pool = Array.from({ length: threads }, () => new AnalysisThread());
  let tasks = 0;
  return {
    async analyse(batch) {
      const size = Math.ceil(batch.length / pool.length);
      const slices = pool.map((thread, t) => {
        const slice = batch.slice(t * size, (t + 1) * size);
        const subjects: AnalysisTask['subjects'] = [];
        const answers = slice.map((answer) => {
          const input = analysisInput(answer);
          if (!input) return null;
          if (!thread.categories.has(answer.categoryId)) {
            thread.categories.add(answer.categoryId);
            subjects.push([answer.categoryId, answer.context.subject]);
          }
          return { categoryId: answer.categoryId, input };
        });
        return slice.length === 0 ? Promise.resolve([]) : thread.run({ id: ++tasks, subjects, answers });
      });
      return (await Promise.all(slices)).flat();
    },
    async close() {
      await Promise.all(pool.map((thread) => thread.close()));
    },
  };
}
