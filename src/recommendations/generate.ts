import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Db } from '../db/connect.ts';
import {
  findRecommendationSubject,
  insertFinding,
  liveFindings,
  lockBrandRecommendations,
  refreshFinding,
  supersedeFindings,
} from '../db/recommendations.ts';
import { inTransaction } from '../db/transaction.ts';
import type { RecommendationsTable } from '../db/types.ts';
import { registrableDomain } from '../domain/analytics.ts';
import { type Finding, findings as runRules } from '../domain/recommendations/rules.ts';
import { NotFound } from '../errors.ts';
import { loadFacts } from './facts.ts';

// The recommendation generator (docs/recommendations.md): one brand's analytics over the last 30
// days (the analytics endpoint's `range=30d` as of `at`), the rules, then one transaction that
// makes the stored recommendations match the findings:
// - a new finding inserts a recommendation (a UUID), unless a live one holds its finding key;
// - a finding that still holds keeps its recommendation; while that one is still open its figures
//   (score, priority, why, evidence, ...) follow the latest analytics, since they are what it
//   claims now (a window that merely moved, with the same numbers and words, is no change); once
//   acted on (started, implemented, dismissed) it keeps the rationale it was acted on;
// - an open recommendation whose finding no longer holds is superseded (status superseded,
//   supersededAt). Acted-on ones stay: an implemented one's gap closing is its outcome, not news.
// Repeating it with the same data changes nothing; two generators at once are serialised by the
// brand lock (each reads the analytics under it), and the partial unique index refuses a twin
// whatever happens.

/** The analytics window a generation reads: the API's default range. */
const GENERATION_RANGE = '30d';

/**
 * A recommendation a generation created, in its stored columns: what the artifact drafter
 * (`draftArtifacts`) takes as it is.
 */
export type GeneratedRecommendation = Pick<
  Selectable<RecommendationsTable>,
  'id' | 'org_id' | 'brand_id' | 'rec_type' | 'subject_kind' | 'subject' | 'title' | 'evidence'
>;

export interface Generation {
  /** Recommendations this run inserted, highest score first. */
  created: GeneratedRecommendation[];
  /** Live recommendations whose finding still holds (refreshed or not). */
  kept: string[];
  superseded: string[];
}

const FIGURES = ['title', 'why', 'score', 'priority'] as const;

/** The evidence's numbers without its window, which moves with every run of a rolling range. */
const numbers = (evidence: string) => JSON.stringify({ ...JSON.parse(evidence), window: null });

function columnsOf(f: Finding) {
  return {
    category_id: f.categoryId,
    rec_type: f.recType,
    title: f.title,
    priority: f.priority,
    score: f.score,
    why: f.why,
    suggested_action: f.suggestedAction,
    expected_impact: f.expectedImpact,
    measurement_plan: f.measurementPlan,
    impact: f.impact,
    effort: f.effort,
    confidence: f.confidence,
    subject_kind: f.subjectKind,
    subject: f.subject,
    evidence: JSON.stringify(f.evidence),
  };
}

export interface GenerationOptions {
  /**
   * Ids of new recommendations: random UUIDs unless given (the demo passes its seeded stream, so
   * the same seeding day writes the same ids).
   */
  newId?: () => string;
}

/** A generation dated before what it would change. */
export class GenerationBackdated extends Error {
  override name = 'GenerationBackdated';
}

export async function generateRecommendations(
  db: Db,
  scope: { orgId: number; brandId: number },
  at: Date,
  options: GenerationOptions = {},
): Promise<Generation> {
  const newId = options.newId ?? randomUUID;
  const { orgId, brandId } = scope;
  const now = at.toISOString();

  const work = async (trx: Db): Promise<Generation> => {
    // The analytics are read under the brand's lock: read before it, a generator that waited on
    // another's lock wrote its older figures over the newer ones (and superseded or kept by them).
    await lockBrandRecommendations(trx, orgId, brandId);
    const subject = await findRecommendationSubject(trx, orgId, brandId);
    if (!subject) throw new NotFound();
    const { window, facts } = await loadFacts(
      trx,
      { orgId, brandId },
      { range: GENERATION_RANGE },
      at,
      subject.timezone,
    );
    const found = runRules(facts, {
      brandName: subject.name,
      ownDomain: subject.website ? registrableDomain(subject.website) : '',
      window: { start: window.start.toISOString(), end: window.end.toISOString() },
      prompts: new Map(subject.prompts.map((p) => [p.id, { text: p.text, categoryId: p.categoryId }])),
    });
    const live = new Map((await liveFindings(trx, orgId, brandId)).map((r) => [r.finding_key, r]));
    // A generation dated (--at) before a live recommendation was created would supersede it before
    // it existed, or write older figures over it: superseded is final, so its history was lost.
    const newest = Math.max(...[...live.values()].map((r) => new Date(r.created_at).getTime()));
    if (at.getTime() < newest)
      throw new GenerationBackdated(
        `the brand has a recommendation created at ${new Date(newest).toISOString()}; a generation cannot be dated ${now}, before it`,
      );
    const generation: Generation = { created: [], kept: [], superseded: [] };
    for (const f of found) {
      const existing = live.get(f.findingKey);
      const columns = columnsOf(f);
      if (existing) {
        generation.kept.push(existing.id);
        // An acted-on recommendation keeps the figures it was acted on (refreshFinding would
        // change nothing): no need to compare them.
        if (existing.status !== 'open') continue;
        const changed =
          FIGURES.some((k) => existing[k] !== columns[k]) ||
          numbers(existing.evidence) !== numbers(columns.evidence);
        if (changed) await refreshFinding(trx, orgId, existing.id, { ...columns, updated_at: now });
        continue;
      }
      const id = newId();
      const inserted = await insertFinding(trx, {
        id,
        org_id: orgId,
        brand_id: brandId,
        ...columns,
        finding_key: f.findingKey,
        status: 'open',
        dismissed_reason: '',
        created_at: now,
        updated_at: now,
      });
      if (inserted) {
        generation.created.push({
          id,
          org_id: orgId,
          brand_id: brandId,
          rec_type: columns.rec_type,
          subject_kind: columns.subject_kind,
          subject: columns.subject,
          title: columns.title,
          evidence: columns.evidence,
        });
      }
    }
    const holding = new Set(found.map((f) => f.findingKey));
    const stale = [...live.values()].filter((r) => !holding.has(r.finding_key) && r.status === 'open');
    await supersedeFindings(
      trx,
      orgId,
      stale.map((r) => r.id),
      now,
    );
    generation.superseded = stale.map((r) => r.id);
    return generation;
  };
  return inTransaction(db, work);
}
