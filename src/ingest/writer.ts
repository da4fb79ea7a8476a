import type { Insertable } from 'kysely';
import { insertRows } from '../db/bulk-insert.ts';
import { tallyCandidates } from '../db/catalog/competitors.ts';
import type { Db } from '../db/connect.ts';
import { insertRunPrompts } from '../db/run-writes.ts';
import type {
  ResponseCitationsTable,
  ResponseMentionsTable,
  ResponsesTable,
  RunPromptsTable,
} from '../db/types.ts';
import { type Analysis, type Source, sourceOf } from '../domain/analyzer/index.ts';
import type { AnswerLine } from '../domain/answer-line.ts';
import { analyseHere } from './analysis.ts';
import type { CategoryContext } from './lookups.ts';

// Writes analysed answers: the response rows, the brand and competitor mentions with their ranks,
// the cited sources, the (run, prompt) pairs, and the category's candidate competitors. Batched:
// at most 500 rows a statement, which both databases take comfortably.

export interface PendingAnswer {
  orgId: number;
  brandId: number;
  categoryId: number;
  runId: number;
  promptId: number;
  key: string;
  line: AnswerLine;
  context: CategoryContext;
}

const ROWS = 500;

interface CandidateTally {
  orgId: number;
  brandId: number;
  name: string;
  answers: number;
  first: string;
  last: string;
}

export class AnswerWriter {
  private readonly db: Db;
  private readonly now: string;
  private readonly runPrompts = new Map<string, Insertable<RunPromptsTable>>();
  private readonly candidates = new Map<string, CandidateTally>();

  constructor(db: Db, now: string) {
    this.db = db;
    this.now = now;
  }

  /** Writes a batch with its analyses (ingest/analysis.ts), analysing it here when not given. */
  async write(
    batch: readonly PendingAnswer[],
    analyses: readonly (Analysis | null)[] = analyseHere(batch),
  ): Promise<void> {
    if (batch.length === 0) return;
    const rows: Insertable<ResponsesTable>[] = batch.map((a, i) => {
      const analysis = analyses[i] ?? null;
      const text = a.line.answerText;
      return {
        org_id: a.orgId,
        brand_id: a.brandId,
        category_id: a.categoryId,
        run_id: a.runId,
        prompt_id: a.promptId,
        external_key: a.key,
        model: a.line.model,
        model_label: a.line.modelLabel,
        surface: a.line.surface,
        outcome: a.line.outcome,
        methodology: a.line.methodology,
        has_mention_data: a.line.outcome === 'ok' && !analysis ? 0 : 1,
        sample_count: a.line.sampleCount,
        mentioned: analysis?.mentioned ? 1 : 0,
        rank: analysis?.rank ?? null,
        sentiment: analysis?.sentiment ?? null,
        answer_text: text,
        answer_html: a.line.answerHtml,
        text_length: text?.length ?? 0,
        captured_at: a.line.capturedAt,
        created_at: this.now,
      };
    });
    // Ids come back keyed by external key: neither database promises RETURNING's row order.
    const inserted = await insertRows(this.db, 'responses', rows, ['id', 'external_key']);
    const ids = new Map(inserted.map((r) => [r.external_key as string, Number(r.id)]));

    const mentions: Insertable<ResponseMentionsTable>[] = [];
    const citations: Insertable<ResponseCitationsTable>[] = [];
    batch.forEach((a, i) => {
      const responseId = ids.get(a.key) as number;
      const analysis = analyses[i] ?? null;
      const base = { org_id: a.orgId, run_id: a.runId, response_id: responseId };
      if (analysis?.mentioned)
        mentions.push({
          ...base,
          competitor_id: null,
          is_brand: 1,
          name: a.context.brandName,
          rank: analysis.rank,
        });
      for (const c of analysis?.competitors ?? []) {
        mentions.push({
          ...base,
          competitor_id: a.context.competitorIds.get(c.key) ?? null,
          is_brand: 0,
          name: c.name,
          rank: c.rank,
        });
      }
      const sources: Source[] = analysis?.sources ?? a.line.citations.flatMap((url) => sourceOf(url) ?? []);
      for (const [i, s] of sources.entries()) {
        citations.push({ ...base, url: s.url, domain: s.domain, position: i + 1 });
      }
      this.runPrompts.set(`${a.runId}:${a.promptId}`, {
        org_id: a.orgId,
        run_id: a.runId,
        prompt_id: a.promptId,
      });
      for (const c of analysis?.candidates ?? []) this.tally(a, c.key, c.name);
    });
    await insertRows(this.db, 'response_mentions', mentions);
    await insertRows(this.db, 'response_citations', citations);
  }

  private tally(answer: PendingAnswer, key: string, name: string): void {
    const id = `${answer.categoryId}:${key}`;
    const at = answer.line.capturedAt;
    const known = this.candidates.get(id);
    if (known) {
      known.answers++;
      if (at < known.first) known.first = at;
      if (at > known.last) known.last = at;
    } else
      this.candidates.set(id, {
        orgId: answer.orgId,
        brandId: answer.brandId,
        name,
        answers: 1,
        first: at,
        last: at,
      });
  }

  /** Writes what was gathered across batches; returns how many candidate names were seen. */
  async finish(): Promise<number> {
    const pairs = [...this.runPrompts.values()];
    for (let i = 0; i < pairs.length; i += ROWS) await insertRunPrompts(this.db, pairs.slice(i, i + ROWS));
    const tallies = [...this.candidates].map(([id, t]) => ({
      org_id: t.orgId,
      brand_id: t.brandId,
      category_id: Number(id.slice(0, id.indexOf(':'))),
      canonical_key: id.slice(id.indexOf(':') + 1),
      name: t.name,
      answers: t.answers,
      first_seen_at: t.first,
      last_seen_at: t.last,
    }));
    for (let i = 0; i < tallies.length; i += ROWS) await tallyCandidates(this.db, tallies.slice(i, i + ROWS));
    return tallies.length;
  }
}
