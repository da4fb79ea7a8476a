// Writes a brand's monitoring history the way all monitoring data gets in: every captured answer
// becomes an answer line (docs/ingest.md) and goes through the import, which runs the analyzer
// (mentions, ranks, sentiment, sources), describes the runs from their answers and refreshes the
// scores and analytics aggregates. Nothing derived from an answer is written here.
import type { Static } from 'typebox';
import type { Db } from '../db/connect.ts';
import type { AnswerLineSchema } from '../domain/answer-line.ts';
import { importAnswers } from '../ingest/import.ts';
import { answerKey, type HistoryRun } from './history.ts';
import type { CatalogIds } from './write-catalog.ts';

type Brand = CatalogIds['brands'][number];
type AnswerLine = Static<typeof AnswerLineSchema>;

function linesOf(brand: Brand, { plan, observations }: HistoryRun): AnswerLine[] {
  const category = brand.categories[plan.categoryIndex];
  if (!category) throw new Error(`run ${plan.externalId} has no category`);
  return observations.map((o) => ({
    organization: brand.spec.org,
    prompt: category.prompts[o.ask.promptIndex] as number,
    run: plan.externalId,
    runStatus: plan.status,
    methodology: plan.methodology,
    externalKey: answerKey(plan, o.ask),
    model: o.model.model,
    modelLabel: o.model.label,
    surface: o.model.surface,
    outcome: o.outcome,
    sampleCount: o.sampleCount,
    capturedAt: new Date(o.ask.capturedAt).toISOString(),
    // A legacy answer whose mention data was lost comes without its text: the import then stores
    // it as one without mention data.
    answerText: o.text,
    answerHtml: o.html,
    citations: o.citationUrls,
  }));
}

/**
 * Imports every run of a brand, oldest first, as of `now`. Consecutive runs that share the publish
 * decision go in one import, so run ids stay in time order: an import with `publish` publishes its
 * completed current-methodology runs, and the held-back ones go in imports without it (legacy runs
 * are visible anyway; failed and in-flight ones cannot be published).
 */
export async function writeBrandHistory(
  db: Db,
  brand: Brand,
  history: readonly HistoryRun[],
  now: Date,
): Promise<void> {
  let start = 0;
  while (start < history.length) {
    const heldBack = history[start]?.plan.heldBack;
    let end = start + 1;
    while (end < history.length && history[end]?.plan.heldBack === heldBack) end++;
    const lines = history.slice(start, end).flatMap((run) => linesOf(brand, run));
    await importAnswers(db, lines, { now, publish: !heldBack });
    start = end;
  }
}
