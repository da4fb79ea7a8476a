// Writes a brand's monitoring history: runs, their responses, the fields derived from each answer
// (mentions and citations), then has the scores and analytics aggregates refreshed from them.
import type { Insertable } from 'kysely';
import type { Db } from '../db/connect.ts';
import { refreshRunAggregates } from '../db/run-scores.ts';
import type { ResponseCitationsTable, ResponseMentionsTable, ResponsesTable } from '../db/types.ts';
import { BATCH_ROWS, insertRows } from './batch.ts';
import { HISTORY_DAYS } from './brands.ts';
import { type DerivedFields, deriveFields } from './derive.ts';
import { biasesOf, observeRun } from './observations.ts';
import type { Prng } from './prng.ts';
import { planRuns, type RunPlan } from './timeline.ts';
import type { CatalogIds } from './write-catalog.ts';

type Brand = CatalogIds['brands'][number];

interface Draft {
  row: Insertable<ResponsesTable>;
  derived: DerivedFields | null;
  competitors: Map<string, number>;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Buffers responses and writes them with their mentions and citations, 500 rows a statement. */
class ResponseWriter {
  private readonly db: Db;
  private drafts: Draft[] = [];
  private mentions: Insertable<ResponseMentionsTable>[] = [];
  private citations: Insertable<ResponseCitationsTable>[] = [];

  constructor(db: Db) {
    this.db = db;
  }

  async add(draft: Draft): Promise<void> {
    this.drafts.push(draft);
    if (this.drafts.length >= BATCH_ROWS) await this.flushResponses();
  }

  async flush(): Promise<void> {
    await this.flushResponses();
    await insertRows(this.db, 'response_mentions', this.mentions);
    await insertRows(this.db, 'response_citations', this.citations);
    this.mentions = [];
    this.citations = [];
  }

  private async flushResponses(): Promise<void> {
    if (this.drafts.length === 0) return;
    const drafts = this.drafts;
    this.drafts = [];
    // Ids come back keyed by each response's external key: the order RETURNING lists rows in is
    // not something either database promises.
    const inserted = await this.db
      .insertInto('responses')
      .values(drafts.map((d) => d.row))
      .returning(['id', 'external_key'])
      .execute();
    const ids = new Map(inserted.map((r) => [r.external_key, r.id]));
    for (const { row, derived, competitors } of drafts) {
      if (!derived) continue;
      const responseId = ids.get(row.external_key ?? null) as number;
      for (const m of derived.mentions) {
        this.mentions.push({
          org_id: row.org_id,
          run_id: row.run_id,
          response_id: responseId,
          competitor_id: m.canonicalKey === null ? null : (competitors.get(m.canonicalKey) ?? null),
          is_brand: m.isBrand ? 1 : 0,
          name: m.name,
          rank: m.rank,
        });
      }
      for (const c of derived.citations) {
        this.citations.push({
          org_id: row.org_id,
          run_id: row.run_id,
          response_id: responseId,
          url: c.url,
          domain: c.domain,
          position: c.position,
        });
      }
    }
    if (this.mentions.length >= BATCH_ROWS * 4 || this.citations.length >= BATCH_ROWS * 4) {
      await insertRows(this.db, 'response_mentions', this.mentions);
      await insertRows(this.db, 'response_citations', this.citations);
      this.mentions = [];
      this.citations = [];
    }
  }
}

async function insertRuns(db: Db, brand: Brand, plans: readonly RunPlan[]): Promise<number[]> {
  const rows = plans.map((plan) => {
    const category = brand.categories[plan.categoryIndex];
    if (!category) throw new Error(`run ${plan.externalId} has no category`);
    return {
      org_id: brand.orgId,
      brand_id: brand.id,
      category_id: category.id,
      external_id: plan.externalId,
      status: plan.status,
      methodology: plan.methodology,
      is_legacy: plan.methodology === 'legacy' ? 1 : 0,
      published_at: plan.publishedAt === null ? null : iso(plan.publishedAt),
      started_at: iso(plan.startedAt),
      finished_at: plan.finishedAt === null ? null : iso(plan.finishedAt),
      completed_prompts: plan.completedPrompts,
      total_prompts: plan.promptIndexes.length,
      created_at: iso(plan.startedAt - 60_000),
    };
  });
  const ids = new Map<string | null, number>();
  for (let i = 0; i < rows.length; i += BATCH_ROWS) {
    const inserted = await db
      .insertInto('runs')
      .values(rows.slice(i, i + BATCH_ROWS))
      .returning(['id', 'external_id'])
      .execute();
    for (const r of inserted) ids.set(r.external_id, r.id);
  }
  return plans.map((plan) => ids.get(plan.externalId) as number);
}

/** Writes every run of a brand, its responses and their scores. */
export async function writeBrandHistory(
  db: Db,
  brand: Brand,
  brandIndex: number,
  anchor: number,
  prng: Prng,
): Promise<void> {
  const plans = planRuns(brand.spec, brandIndex, anchor, prng.derive('timeline'));
  const runIds = await insertRuns(db, brand, plans);
  await insertRows(
    db,
    'run_prompts',
    plans.flatMap((plan, i) =>
      plan.promptIndexes.map((promptIndex) => ({
        org_id: brand.orgId,
        run_id: runIds[i] as number,
        prompt_id: brand.categories[plan.categoryIndex]?.prompts[promptIndex] as number,
      })),
    ),
  );

  const bias = biasesOf(brand.spec, prng.derive('bias'));
  const answers = prng.derive('answers');
  const writer = new ResponseWriter(db);
  for (const [i, plan] of plans.entries()) {
    const runId = runIds[i] as number;
    const category = brand.categories[plan.categoryIndex];
    if (!category) throw new Error(`run ${plan.externalId} has no category`);
    for (const o of observeRun(brand.spec, plan, HISTORY_DAYS, bias, answers)) {
      const derived =
        o.script && o.text !== null
          ? deriveFields(
              o.script,
              { text: o.text, citationUrls: o.citationUrls },
              {
                recordsRank: plan.methodology !== 'legacy',
              },
            )
          : null;
      await writer.add({
        competitors: category.competitors,
        derived,
        row: {
          org_id: brand.orgId,
          brand_id: brand.id,
          category_id: category.id,
          run_id: runId,
          prompt_id: category.prompts[o.ask.promptIndex] as number,
          external_key: `${plan.externalId}/p${o.ask.promptIndex + 1}/${o.model.model}/${o.ask.repeat + 1}`,
          model: o.model.model,
          model_label: o.model.label,
          surface: o.model.surface,
          outcome: o.outcome,
          methodology: plan.methodology,
          has_mention_data: o.hasMentionData ? 1 : 0,
          sample_count: o.sampleCount,
          mentioned: derived?.mentioned ? 1 : 0,
          rank: derived?.rank ?? null,
          sentiment: derived?.sentiment ?? null,
          answer_text: o.text,
          answer_html: o.html,
          text_length: o.text?.length ?? 0,
          captured_at: iso(o.ask.capturedAt),
          created_at: iso(o.ask.capturedAt + 1000),
        },
      });
    }
  }
  await writer.flush();

  // Scores and analytics aggregates of every completed run, in one batch (they share block work).
  await refreshRunAggregates(
    db,
    brand.orgId,
    runIds.filter((_, i) => plans[i]?.status === 'completed'),
  );
}
