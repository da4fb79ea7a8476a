import { quote as quoteShort } from '../quote.ts';
import type { CitationOutreachEvidence, ContentGapEvidence } from '../recommendation-evidence.ts';
import { roundRate, roundTo } from '../scoring.ts';
import { type Estimate, sampleProportionInterval } from '../uncertainty.ts';
import { addRanked, averageRank, type EngineFacts, emptyRanked, type Facts, type Ranked } from './facts.ts';

// The recommendation rules (docs/recommendations.md): each reads the analytics facts of one
// window and returns the findings that hold, with the numbers they rest on (evidence) and a
// rationale quoting them. Every threshold is a named constant here; the score is one function of
// impact, effort and confidence; confidence comes from the same 95 % intervals the analytics serve.

export const REC_TYPES = [
  'content_gap',
  'citation_outreach',
  'sentiment_risk',
  'engine_gap',
  'competitor_displacement',
] as const;
export type RecType = (typeof REC_TYPES)[number];
export type SubjectKind = 'prompt' | 'domain' | 'platform' | 'competitor';
export type Priority = 'high' | 'medium' | 'low';

// ---- Thresholds ----

/** content_gap: a prompt needs this many samples in the window before its rates say anything. */
export const CONTENT_GAP_MIN_SAMPLES = 4;
/** content_gap: the most-named competitor appears in at least this share of the prompt's answers. */
export const CONTENT_GAP_MIN_COMPETITOR_RATE = 0.3;
/** content_gap: the brand's rate on the prompt is at most this fraction of its rate over all prompts. */
export const CONTENT_GAP_FAR_BELOW = 0.5;

/** citation_outreach: the domain is cited at least this often in answers naming a competitor. */
export const OUTREACH_MIN_CITATIONS = 3;
/** citation_outreach: …and holds at least this share of those answers' citations ("often"). */
export const OUTREACH_MIN_SHARE = 0.1;
/** citation_outreach: its share in answers naming the brand is at most this fraction of that ("rarely"). */
export const OUTREACH_RARE_FRACTION = 0.25;
/** citation_outreach: a share gap this large is full impact (1). */
export const OUTREACH_FULL_IMPACT_SHARE = 0.5;

/** sentiment_risk: mentions with a sentiment an engine needs in each window. */
export const SENTIMENT_MIN_MENTIONS = 5;
/** sentiment_risk: the negative share now is at least this… */
export const SENTIMENT_MIN_NEGATIVE_SHARE = 0.2;
/** sentiment_risk: …and has risen by at least this since the previous window. */
export const SENTIMENT_MIN_RISE = 0.1;

/** engine_gap: samples the engine, and the other engines together, need in the window. */
export const ENGINE_GAP_MIN_SAMPLES = 10;
/** engine_gap: the other engines mention the brand at least this often (else there is no gap to close). */
export const ENGINE_GAP_MIN_OTHER_RATE = 0.2;
/** engine_gap: the engine's rate is at most this fraction of the others' ("far worse"). */
export const ENGINE_GAP_FAR_BELOW = 0.5;
/** engine_gap: ranked mentions the engine, and the others together, need for the rank test. */
export const ENGINE_GAP_MIN_RANKED = 5;
/** engine_gap: the engine's average rank is at least this many places behind the others'. */
export const ENGINE_GAP_RANK_GAP = 2;
/** engine_gap: a rank gap this large is full impact (1). */
export const ENGINE_GAP_FULL_IMPACT_RANKS = 5;

/** competitor_displacement: ranked mentions each side of a prompt's comparison needs. */
export const DISPLACEMENT_MIN_RANKED = 2;
/** competitor_displacement: impact per prompt taken, up to 1. */
export const DISPLACEMENT_IMPACT_PER_PROMPT = 0.35;

/** What acting on a type costs, 0 (nothing) to 1 (a project): judged once per type. */
export const EFFORT: Record<RecType, number> = {
  content_gap: 0.4,
  citation_outreach: 0.6,
  sentiment_risk: 0.5,
  engine_gap: 0.5,
  competitor_displacement: 0.5,
};

/** Confidence never falls below this: a finding that passed its thresholds is still a lead. */
export const CONFIDENCE_FLOOR = 0.1;
/** Priority buckets of the score. */
export const HIGH_PRIORITY_SCORE = 40;
export const MEDIUM_PRIORITY_SCORE = 20;
/** Days of data an outcome compares on each side of the implementation day. */
export const MEASUREMENT_WINDOW_DAYS = 30;

// ---- Score ----

/**
 * Confidence from a 95 % interval: 1 − 2 × its half-width (in the rate's 0–1 unit), so ±10
 * points give 0.8 and ±25 points 0.5; no interval (no data) gives the floor. Two decimals.
 */
export function confidenceOf(estimate: Estimate): number {
  if (!estimate.limits) return CONFIDENCE_FLOOR;
  const halfWidth = (estimate.limits.high - estimate.limits.low) / 2;
  return roundTo(Math.max(CONFIDENCE_FLOOR, 1 - 2 * halfWidth), 2);
}

/** Confidence of a figure whose value is not a rate (a rank): the widest interval n samples can give (p = ½). */
const worstCaseConfidence = (samples: number) => confidenceOf(sampleProportionInterval(samples / 2, samples));

/**
 * score = 100 × impact × confidence × (1 − effort / 2), one decimal: impact and confidence scale
 * it fully, effort at most halves it (a costly fix of a large, sure gap still ranks).
 */
export function scoreOf(parts: { impact: number; effort: number; confidence: number }): number {
  return roundTo(100 * parts.impact * parts.confidence * (1 - parts.effort / 2), 1);
}

export function priorityOf(score: number): Priority {
  if (score >= HIGH_PRIORITY_SCORE) return 'high';
  return score >= MEDIUM_PRIORITY_SCORE ? 'medium' : 'low';
}

// ---- Findings ----

export interface RuleContext {
  brandName: string;
  /** The brand's own registrable domain ('' when unknown): never an outreach target. */
  ownDomain: string;
  window: { start: string; end: string };
  prompts: ReadonlyMap<number, { text: string; categoryId: number }>;
}

export interface Finding {
  recType: RecType;
  subjectKind: SubjectKind;
  subject: string;
  /** `type:kind:subject`: one live recommendation per key. */
  findingKey: string;
  categoryId: number | null;
  title: string;
  why: string;
  suggestedAction: string;
  expectedImpact: string;
  measurementPlan: string;
  impact: number;
  effort: number;
  confidence: number;
  score: number;
  priority: Priority;
  evidence: Record<string, unknown>;
}

type Draft = Omit<Finding, 'findingKey' | 'effort' | 'score' | 'priority' | 'measurementPlan' | 'impact'> & {
  impact: number;
};

/** The metric an outcome follows for each type, in words. */
const METRIC_WORDS: Record<RecType, string> = {
  content_gap: "the prompt's brand mention rate",
  citation_outreach: "the domain's share of the citations in answers naming the brand",
  sentiment_risk: "the engine's share of negative mentions of the brand",
  engine_gap: "the brand's mention rate (or average rank) on the engine",
  competitor_displacement: 'the share of the prompts on which the brand ranks ahead of the competitor',
};

function finish(draft: Draft): Finding {
  const effort = EFFORT[draft.recType];
  const impact = roundTo(Math.min(1, Math.max(0, draft.impact)), 2);
  const score = scoreOf({ impact, effort, confidence: draft.confidence });
  return {
    ...draft,
    findingKey: `${draft.recType}:${draft.subjectKind}:${draft.subject}`,
    impact,
    effort,
    score,
    priority: priorityOf(score),
    measurementPlan: `When implemented, ${METRIC_WORDS[draft.recType]} over the ${MEASUREMENT_WINDOW_DAYS} days before the implementation day is the baseline; it is measured again over the ${MEASUREMENT_WINDOW_DAYS} days after it, with both sample sizes.`,
  };
}

const pct = (x: number) => `${roundTo(x * 100, 1)}%`;
const rate = roundRate;
const days = (w: { start: string; end: string }) =>
  Math.round((Date.parse(w.end) - Date.parse(w.start)) / 86_400_000);
const windowWords = (ctx: RuleContext) => `the ${days(ctx.window)} days to ${ctx.window.end.slice(0, 10)}`;
const quote = (text: string) => quoteShort(text, 80, '...');
const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The competitors named in a prompt's answers, most mentioned first (ties: by key). */
function namedCompetitors(competitors: ReadonlyMap<string, Ranked>): [string, Ranked][] {
  return [...competitors]
    .filter(([, r]) => r.mentions > 0)
    .sort(([ka, a], [kb, b]) => b.mentions - a.mentions || byKey(ka, kb));
}

/**
 * A monitored prompt where competitors are named and the brand is not, or far below its usual
 * rate: its rate over the brand's other prompts with data (none: only 0 % is "far below").
 */
export function contentGaps(facts: Facts, ctx: RuleContext): Finding[] {
  const prompts = [...facts.current.prompts.values()];
  // Answers and mentions are counts (sums of integer sample counts), so the other prompts' totals
  // are the brand's totals less this prompt's, exactly, in one pass rather than one per prompt.
  const allAnswers = prompts.reduce((sum, o) => sum + o.samples, 0);
  const allMentions = prompts.reduce((sum, o) => sum + o.brand.mentions, 0);
  const findings: Finding[] = [];
  for (const p of prompts) {
    const prompt = ctx.prompts.get(p.promptId);
    const competitors = namedCompetitors(p.competitors);
    const top = competitors[0];
    if (!prompt || !top || p.samples < CONTENT_GAP_MIN_SAMPLES) continue;
    const usualAnswers = allAnswers - p.samples;
    const usualMentions = allMentions - p.brand.mentions;
    const usual = usualAnswers > 0 ? usualMentions / usualAnswers : null;
    const brandRate = p.brand.mentions / p.samples;
    const competitorRate = top[1].mentions / p.samples;
    const competitorName = facts.competitors.get(top[0])?.name ?? top[0];
    if (competitorRate < CONTENT_GAP_MIN_COMPETITOR_RATE || competitorRate <= brandRate) continue;
    if (brandRate > CONTENT_GAP_FAR_BELOW * (usual ?? 0)) continue;
    const named = competitors.map(([key, r]) => ({
      name: facts.competitors.get(key)?.name ?? key,
      answers: r.mentions,
    }));
    findings.push(
      finish({
        recType: 'content_gap',
        subjectKind: 'prompt',
        subject: String(p.promptId),
        categoryId: prompt.categoryId,
        title: `Answer ${quote(prompt.text)} where ${competitorName} is named and ${ctx.brandName} is not`,
        why:
          `In ${windowWords(ctx)}, ${competitorName} was named in ${top[1].mentions} of ${p.samples} answers ` +
          `(${pct(competitorRate)}) to ${quote(prompt.text)} and ${ctx.brandName} in ${p.brand.mentions} ` +
          `(${pct(brandRate)}), ` +
          (usual === null
            ? 'and no other prompt of the brand has answers in the window.'
            : `against ${pct(usual)} across its other prompts (${usualMentions} of ${usualAnswers} answers).`),
        suggestedAction: `Publish or refresh a page that answers ${quote(prompt.text)} directly, naming ${ctx.brandName} and what sets it apart from ${competitorName}.`,
        expectedImpact: `${ctx.brandName}'s mention rate on this prompt rises towards ${competitorName}'s ${pct(competitorRate)}.`,
        impact: competitorRate - brandRate,
        confidence: confidenceOf(sampleProportionInterval(p.brand.mentions, p.samples)),
        // The artifact drafter reads promptText, answers, brandAnswers, usualMentionRate and
        // competitors (domain/recommendation-evidence.ts).
        evidence: {
          window: ctx.window,
          promptId: p.promptId,
          promptText: prompt.text,
          answers: p.samples,
          brandAnswers: p.brand.mentions,
          brandRate: rate(brandRate),
          usualMentionRate: usual === null ? null : rate(usual),
          usualAnswers,
          competitor: top[0],
          competitorAnswers: top[1].mentions,
          competitorRate: rate(competitorRate),
          competitors: named,
        } satisfies ContentGapEvidence & Record<string, unknown>,
      }),
    );
  }
  return findings;
}

/** A domain cited often in answers naming competitors and rarely or never in answers naming the brand. */
export function citationOutreach(facts: Facts, ctx: RuleContext): Finding[] {
  const d = facts.current.domains;
  const findings: Finding[] = [];
  for (const [domain, count] of d.competitors) {
    if (count < OUTREACH_MIN_CITATIONS || domain === ctx.ownDomain) continue;
    const competitorShare = count / d.competitorTotal;
    const brandCount = d.brand.get(domain) ?? 0;
    const brandShare = d.brandTotal > 0 ? brandCount / d.brandTotal : 0;
    if (competitorShare < OUTREACH_MIN_SHARE || brandShare > OUTREACH_RARE_FRACTION * competitorShare)
      continue;
    findings.push(
      finish({
        recType: 'citation_outreach',
        subjectKind: 'domain',
        subject: domain,
        categoryId: null,
        title: `Get ${ctx.brandName} cited on ${domain}`,
        why:
          `In ${windowWords(ctx)}, ${domain} had ${count} of the ${d.competitorTotal} citations (${pct(competitorShare)}) ` +
          `in answers naming a competitor (a citation counted once for each competitor its answer names), ` +
          (d.brandTotal > 0
            ? `but ${brandCount} of ${d.brandTotal} (${pct(brandShare)}) in answers naming ${ctx.brandName}.`
            : `and answers naming ${ctx.brandName} cited no source.`),
        suggestedAction: `Reach out to ${domain} (editors, listings, reviews) so that its pages engines cite cover ${ctx.brandName}.`,
        expectedImpact: `${domain}'s share of the citations in answers naming ${ctx.brandName} rises towards ${pct(competitorShare)}.`,
        impact: (competitorShare - brandShare) / OUTREACH_FULL_IMPACT_SHARE,
        confidence: confidenceOf(sampleProportionInterval(count, d.competitorTotal)),
        // The artifact drafter reads all of it (domain/recommendation-evidence.ts).
        evidence: {
          window: ctx.window,
          domain,
          competitorCitations: count,
          competitorCitationTotal: d.competitorTotal,
          competitorShare: rate(competitorShare),
          brandCitations: brandCount,
          brandCitationTotal: d.brandTotal,
          brandShare: rate(brandShare),
          competitors: [...(d.byCompetitor.get(domain) ?? [])]
            .filter(([, citations]) => citations > 0)
            .sort(([ka, a], [kb, b]) => b - a || byKey(ka, kb))
            .map(([key, citations]) => ({ name: facts.competitors.get(key)?.name ?? key, citations })),
        } satisfies CitationOutreachEvidence,
      }),
    );
  }
  return findings;
}

const sentimentTotal = (e: EngineFacts) => e.sentiment.positive + e.sentiment.neutral + e.sentiment.negative;

/**
 * An engine tied to a rising share of negative mentions. Engines only: the aggregates keep
 * sentiment per engine, not per cited source.
 */
export function sentimentRisks(facts: Facts, ctx: RuleContext): Finding[] {
  const findings: Finding[] = [];
  for (const e of facts.current.engines.values()) {
    const before = facts.previous?.engines.get(e.model);
    const [n, nBefore] = [sentimentTotal(e), before ? sentimentTotal(before) : 0];
    if (!before || n < SENTIMENT_MIN_MENTIONS || nBefore < SENTIMENT_MIN_MENTIONS) continue;
    const share = e.sentiment.negative / n;
    const previousShare = before.sentiment.negative / nBefore;
    if (share < SENTIMENT_MIN_NEGATIVE_SHARE || share - previousShare < SENTIMENT_MIN_RISE) continue;
    findings.push(
      finish({
        recType: 'sentiment_risk',
        subjectKind: 'platform',
        subject: e.model,
        categoryId: null,
        title: `Negative mentions of ${ctx.brandName} are rising on ${e.label}`,
        why:
          `In ${windowWords(ctx)}, ${e.sentiment.negative} of ${n} mentions of ${ctx.brandName} on ${e.label} ` +
          `were negative (${pct(share)}), up from ${before.sentiment.negative} of ${nBefore} (${pct(previousShare)}) ` +
          'in the window before.',
        suggestedAction: `Read ${e.label}'s negative answers, find the claims and sources behind them, and correct or answer them on pages it cites.`,
        expectedImpact: `The negative share on ${e.label} falls back towards ${pct(previousShare)}.`,
        impact: share,
        confidence: confidenceOf(sampleProportionInterval(e.sentiment.negative, n)),
        evidence: {
          window: ctx.window,
          model: e.model,
          mentions: n,
          negative: e.sentiment.negative,
          negativeShare: rate(share),
          previousMentions: nBefore,
          previousNegative: before.sentiment.negative,
          previousNegativeShare: rate(previousShare),
        },
      }),
    );
  }
  return findings;
}

/** An engine on which the brand's mention rate or rank is far worse than on the others together. */
export function engineGaps(facts: Facts, ctx: RuleContext): Finding[] {
  const engines = [...facts.current.engines.values()];
  const findings: Finding[] = [];
  for (const e of engines) {
    const others = engines.filter((o) => o !== e);
    if (others.length === 0) continue;
    const otherSamples = others.reduce((sum, o) => sum + o.samples, 0);
    const otherBrand = emptyRanked();
    for (const o of others) addRanked(otherBrand, o.brand);
    const engineRate = e.samples > 0 ? e.brand.mentions / e.samples : 0;
    const otherRate = otherSamples > 0 ? otherBrand.mentions / otherSamples : 0;
    const [engineRank, otherRank] = [averageRank(e.brand), averageRank(otherBrand)];
    const byRate =
      e.samples >= ENGINE_GAP_MIN_SAMPLES &&
      otherSamples >= ENGINE_GAP_MIN_SAMPLES &&
      otherRate >= ENGINE_GAP_MIN_OTHER_RATE &&
      engineRate <= ENGINE_GAP_FAR_BELOW * otherRate;
    const byRank =
      engineRank !== null &&
      otherRank !== null &&
      e.brand.rankedWeight >= ENGINE_GAP_MIN_RANKED &&
      otherBrand.rankedWeight >= ENGINE_GAP_MIN_RANKED &&
      engineRank - otherRank >= ENGINE_GAP_RANK_GAP;
    if (!byRate && !byRank) continue;
    const otherLabels = others.map((o) => o.label).join(', ');
    const rateWords =
      `${ctx.brandName} was named in ${e.brand.mentions} of ${e.samples} answers (${pct(engineRate)}) on ${e.label} ` +
      `against ${otherBrand.mentions} of ${otherSamples} (${pct(otherRate)}) on ${otherLabels}`;
    const rankWords =
      engineRank !== null && otherRank !== null
        ? `${ctx.brandName}'s average rank was ${roundTo(engineRank, 2)} over ${e.brand.rankedWeight} ranked mentions on ${e.label} against ${roundTo(otherRank, 2)} over ${otherBrand.rankedWeight} elsewhere`
        : '';
    findings.push(
      finish({
        recType: 'engine_gap',
        subjectKind: 'platform',
        subject: e.model,
        categoryId: null,
        title: `${ctx.brandName} trails on ${e.label}`,
        why: `In ${windowWords(ctx)}, ${byRate ? rateWords : rankWords}${byRate && rankWords ? `; ${rankWords}` : ''}.`,
        suggestedAction: `Check which sources ${e.label} cites for these prompts and make sure they describe ${ctx.brandName}; ${e.label} favours what it can retrieve.`,
        expectedImpact: byRate
          ? `The mention rate on ${e.label} moves towards the ${pct(otherRate)} of the other engines.`
          : `The average rank on ${e.label} moves towards ${roundTo(otherRank ?? 0, 2)}.`,
        impact: byRate
          ? otherRate - engineRate
          : ((engineRank ?? 0) - (otherRank ?? 0)) / ENGINE_GAP_FULL_IMPACT_RANKS,
        confidence: byRate
          ? confidenceOf(
              e.mentionRate.limits ? e.mentionRate : sampleProportionInterval(e.brand.mentions, e.samples),
            )
          : worstCaseConfidence(e.brand.rankedWeight),
        evidence: {
          window: ctx.window,
          model: e.model,
          basis: byRate ? 'mention_rate' : 'rank',
          samples: e.samples,
          mentions: e.brand.mentions,
          mentionRate: rate(engineRate),
          otherSamples,
          otherMentions: otherBrand.mentions,
          otherMentionRate: rate(otherRate),
          averageRank: engineRank === null ? null : roundTo(engineRank, 2),
          rankedMentions: e.brand.rankedWeight,
          otherAverageRank: otherRank === null ? null : roundTo(otherRank, 2),
          otherRankedMentions: otherBrand.rankedWeight,
        },
      }),
    );
  }
  return findings;
}

/**
 * `a` ranks ahead of `b`: ranked, and `b` unranked or behind, at the two decimals a finding shows
 * its ranks with (a difference below them made a finding that read "2.00 vs 2.00").
 */
export function ahead(a: Ranked | undefined, b: Ranked | undefined): boolean {
  const shown = (r: Ranked | undefined) => {
    const rank = r ? averageRank(r) : null;
    return rank === null ? null : roundTo(rank, 2);
  };
  const [rankA, rankB] = [shown(a), shown(b)];
  return rankA !== null && (rankB === null || rankA < rankB);
}

/** Prompts where a named competitor took the brand's rank since the previous window, one finding per competitor. */
export function competitorDisplacements(facts: Facts, ctx: RuleContext): Finding[] {
  const previous = facts.previous;
  if (!previous) return [];
  const taken = new Map<
    string,
    { promptId: number; before: [number, number | null]; now: [number | null, number] }[]
  >();
  for (const p of facts.current.prompts.values()) {
    const before = previous.prompts.get(p.promptId);
    if (!before || !ctx.prompts.has(p.promptId) || before.brand.rankedWeight < DISPLACEMENT_MIN_RANKED)
      continue;
    for (const [key, now] of p.competitors) {
      const then = before.competitors.get(key);
      if (now.rankedWeight < DISPLACEMENT_MIN_RANKED) continue;
      if (!ahead(before.brand, then) || !ahead(now, p.brand)) continue;
      const list = taken.get(key) ?? [];
      list.push({
        promptId: p.promptId,
        before: [averageRank(before.brand) as number, then ? averageRank(then) : null],
        now: [averageRank(p.brand), averageRank(now) as number],
      });
      taken.set(key, list);
    }
  }
  const findings: Finding[] = [];
  for (const [key, prompts] of [...taken].sort(([a], [b]) => byKey(a, b))) {
    const name = facts.competitors.get(key)?.name ?? key;
    const ranked = prompts.reduce(
      (sum, p) => sum + (facts.current.prompts.get(p.promptId)?.competitors.get(key)?.rankedWeight ?? 0),
      0,
    );
    const rank = (r: number | null) => (r === null ? 'unranked' : String(roundTo(r, 2)));
    const cases = prompts
      .map(
        (p) =>
          `${quote(ctx.prompts.get(p.promptId)?.text ?? '')}: ${ctx.brandName} ${rank(p.before[0])} vs ${rank(p.before[1])} before, ${rank(p.now[0])} vs ${rank(p.now[1])} now`,
      )
      .join('; ');
    findings.push(
      finish({
        recType: 'competitor_displacement',
        subjectKind: 'competitor',
        subject: key,
        categoryId: null,
        title: `${name} took ${ctx.brandName}'s rank on ${prompts.length} prompt${prompts.length === 1 ? '' : 's'}`,
        why: `Average rank, ${ctx.brandName} vs ${name}, in the window before and in ${windowWords(ctx)} (${ranked} ranked mentions of ${name}): ${cases}.`,
        suggestedAction: `Compare what the answers say about ${name} on these prompts with ${ctx.brandName}'s pages, and cover the reasons they give for ranking ${name} first.`,
        expectedImpact: `${ctx.brandName} ranks ahead of ${name} again on these prompts.`,
        impact: DISPLACEMENT_IMPACT_PER_PROMPT * prompts.length,
        confidence: worstCaseConfidence(ranked),
        evidence: {
          window: ctx.window,
          competitor: key,
          competitorRankedMentions: ranked,
          prompts: prompts.map((p) => ({
            promptId: p.promptId,
            previousBrandRank: roundTo(p.before[0], 2),
            previousCompetitorRank: p.before[1] === null ? null : roundTo(p.before[1], 2),
            brandRank: p.now[0] === null ? null : roundTo(p.now[0], 2),
            competitorRank: roundTo(p.now[1], 2),
          })),
        },
      }),
    );
  }
  return findings;
}

/** Every rule over one window's facts, highest score first (then by key, so the order is stable). */
export function findings(facts: Facts, ctx: RuleContext): Finding[] {
  return [contentGaps, citationOutreach, sentimentRisks, engineGaps, competitorDisplacements]
    .flatMap((rule) => rule(facts, ctx))
    .sort((a, b) => b.score - a.score || byKey(a.findingKey, b.findingKey));
}
