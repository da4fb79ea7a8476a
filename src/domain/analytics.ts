import { sourceOf } from './analyzer/sources.ts';
import { compare, type Delta } from './deltas.ts';
import { compareEntities, type EntityStats, type EntityTally, statsOf } from './entities.ts';
import {
  type Exclusion,
  exclusionOf,
  isLegacy,
  type ObservationStatus,
  promptsWithCurrentData,
} from './scoring.ts';
import {
  type Estimate,
  type PromptSums,
  proportionInterval,
  rankInterval,
  type Significance,
  significance,
} from './uncertainty.ts';

// The analytics blocks (metrics, share of voice, sources, platforms, coverage) from window sums
// of the stored aggregates, and each figure's interval from the same sums kept apart per prompt
// (uncertainty.ts). Pure: the data layer only fetches sums; every rule lives here.

/** Answers of one prompt with one methodology and outcome in a window: what coverage counts. */
export interface PromptGroup {
  promptId: number;
  methodology: string;
  outcome: string;
  hasMentionData: boolean;
  /** Response rows. */
  answers: number;
  /** Σ sampleCount. */
  weight: number;
}

/**
 * Summed observations of one model × surface × methodology × outcome in a window, over the
 * scope's eligible prompts, with legacy answers only for the prompts that fall back to them.
 */
export interface ObservationGroup {
  model: string;
  modelLabel: string;
  surface: string;
  methodology: string;
  outcome: string;
  hasMentionData: boolean;
  answers: number;
  weight: number;
  mentionedWeight: number;
  rankedWeight: number;
  /** Σ weight·rank over ranked mentions. */
  rankWeighted: number;
  /** Σ weight·observation value. */
  valueWeighted: number;
  positiveWeight: number;
  neutralWeight: number;
  negativeWeight: number;
}

/** Which answers of a window count, and why the others do not. */
export interface Classification<T extends PromptGroup = PromptGroup> {
  usable: T[];
  /** Prompts whose usable answers are legacy ones (no current data in the window). */
  legacyPrompts: number[];
  coverage: CoverageCounts;
}

export interface CoverageCounts {
  usableSampleCount: number;
  legacyFallbackCount: number;
  excludedMethodologyCount: number;
  excludedErrorCount: number;
  excludedEmptyCount: number;
  excludedNoResultCount: number;
  unreconstructableLegacyAnswerCount: number;
  sampleWeightTotal: number;
  promptCoverageCount: number;
}

const EXCLUSION_FIELD: Record<Exclusion, keyof CoverageCounts> = {
  error: 'excludedErrorCount',
  empty: 'excludedEmptyCount',
  no_result: 'excludedNoResultCount',
  methodology: 'excludedMethodologyCount',
  unreconstructable: 'unreconstructableLegacyAnswerCount',
};

/**
 * Applies the scoring rules per prompt over the whole window: a prompt with current-methodology
 * data uses only that; otherwise its legacy answers with mention data stand in (legacy fallback).
 * Coverage counts answers (rows), except sampleWeightTotal (Σ sampleCount of usable answers).
 */
export function classify<T extends PromptGroup>(groups: readonly T[]): Classification<T> {
  const current = promptsWithCurrentData(groups.filter((g) => g.answers > 0));
  const coverage: CoverageCounts = {
    usableSampleCount: 0,
    legacyFallbackCount: 0,
    excludedMethodologyCount: 0,
    excludedErrorCount: 0,
    excludedEmptyCount: 0,
    excludedNoResultCount: 0,
    unreconstructableLegacyAnswerCount: 0,
    sampleWeightTotal: 0,
    promptCoverageCount: 0,
  };
  const usable: T[] = [];
  const covered = new Set<number>();
  const legacyPrompts = new Set<number>();
  for (const group of groups) {
    const exclusion = exclusionOf(group, current.has(group.promptId));
    if (exclusion) {
      coverage[EXCLUSION_FIELD[exclusion]] += group.answers;
      continue;
    }
    usable.push(group);
    covered.add(group.promptId);
    coverage.usableSampleCount += group.answers;
    coverage.sampleWeightTotal += group.weight;
    if (isLegacy(group.methodology)) {
      coverage.legacyFallbackCount += group.answers;
      legacyPrompts.add(group.promptId);
    }
  }
  coverage.promptCoverageCount = covered.size;
  return { usable, legacyPrompts: [...legacyPrompts].sort((a, b) => a - b), coverage };
}

/** A window side rests on legacy observations (it lies, at least partly, before the cutover). */
export const usesLegacy = (side: Classification) => side.coverage.legacyFallbackCount > 0;

/** One prompt's observations of one model × surface × methodology × outcome in a window. */
export interface PromptObservationGroup extends ObservationStatus {
  promptId: number;
  model: string;
  surface: string;
  weight: number;
  mentionedWeight: number;
  rankedWeight: number;
  rankWeighted: number;
}

/** One prompt's mentions of one competitor in a window, and the ranks they had. */
export interface PromptCompetitorMentions {
  promptId: number;
  competitorId: number;
  mentions: number;
  rankedWeight: number;
  /** Σ weight·rank over ranked mentions. */
  rankWeighted: number;
}

/** One prompt's citations of one registrable domain in a window. */
export interface PromptDomainCitations {
  promptId: number;
  domain: string;
  citations: number;
}

/**
 * A side's sums kept apart per prompt, over the same rows as its window sums: prompts are the
 * independent units an interval counts (methodology.md "Uncertainty").
 */
export interface PerPrompt {
  observations: readonly PromptObservationGroup[];
  mentions: readonly PromptCompetitorMentions[];
  citations: readonly PromptDomainCitations[];
}

/**
 * One side of a comparison: its classification, its observation groups (the data layer has
 * already kept only eligible prompts, and legacy answers only of the prompts that fall back) and
 * its per-prompt sums.
 */
export interface Side {
  classification: Classification;
  observations: readonly ObservationGroup[];
  perPrompt: PerPrompt;
}

/**
 * The usable observation groups of a side. Its legacy groups belong to fallback prompts only, so
 * an answer is usable exactly when it succeeded and its mention data was recorded.
 */
export function usable<T extends ObservationStatus>(groups: readonly T[]): T[] {
  return groups.filter((g) => exclusionOf(g, false) === null);
}

/** Σ numerator and Σ denominator of each prompt over some rows. */
function byPrompt<T extends { promptId: number }>(
  rows: Iterable<T>,
  numerator: (row: T) => number,
  denominator: (row: T) => number,
): PromptSums[] {
  const prompts = new Map<number, PromptSums>();
  for (const row of rows) {
    const sums = prompts.get(row.promptId) ?? { numerator: 0, denominator: 0 };
    sums.numerator += numerator(row);
    sums.denominator += denominator(row);
    prompts.set(row.promptId, sums);
  }
  return [...prompts.values()];
}

/** The mention rate of some usable groups with its interval over their prompts. */
const mentionRateEstimate = (groups: readonly PromptObservationGroup[]) =>
  proportionInterval(
    byPrompt(
      groups,
      (g) => g.mentionedWeight,
      (g) => g.weight,
    ),
  );

/** The average rank of some usable groups with its interval over their prompts. */
const rankEstimate = (groups: readonly PromptObservationGroup[]) =>
  rankInterval(
    byPrompt(
      groups,
      (g) => g.rankWeighted,
      (g) => g.rankedWeight,
    ),
  );

interface Totals {
  answers: number;
  weight: number;
  mentionedWeight: number;
  rankedWeight: number;
  rankWeighted: number;
  valueWeighted: number;
  positiveWeight: number;
  neutralWeight: number;
  negativeWeight: number;
}

function totals(groups: Iterable<ObservationGroup>): Totals {
  const t: Totals = {
    answers: 0,
    weight: 0,
    mentionedWeight: 0,
    rankedWeight: 0,
    rankWeighted: 0,
    valueWeighted: 0,
    positiveWeight: 0,
    neutralWeight: 0,
    negativeWeight: 0,
  };
  for (const g of groups) for (const key of Object.keys(t) as (keyof Totals)[]) t[key] += g[key];
  return t;
}

const mentionRateOf = (t: Totals) => (t.weight > 0 ? t.mentionedWeight / t.weight : null);
const averageRankOf = (t: Totals) => (t.rankedWeight > 0 ? t.rankWeighted / t.rankedWeight : null);
const scoreOfTotals = (t: Totals) => (t.weight > 0 ? (100 * t.valueWeighted) / t.weight : null);

export interface Ratio extends Delta {
  value: number | null;
  previousValue: number | null;
  numerator: number;
  denominator: number;
  /** The value's 95 % interval, or why it has none. */
  estimate: Estimate;
  /** Whether the delta stands out from the sampling noise; null when it is suppressed. */
  significance: Significance | null;
}

export interface SentimentCounts {
  positive: number;
  neutral: number;
  negative: number;
}

export interface Metrics {
  sampleCount: number;
  mentionRate: Ratio;
  avgRank: Ratio;
  sentiment: SentimentCounts & { previous: SentimentCounts | null };
}

/** The previous window, or null when the window has none (range=all). */
export type Previous = Side | null;

/** cross_era: the compared side rests on legacy answers while the current side does not. */
function crossEra(current: Side, previous: Previous): boolean {
  return previous !== null && usesLegacy(previous.classification) && !usesLegacy(current.classification);
}

function ratio(
  value: number | null,
  previousValue: number | null,
  sides: { current: Side; previous: Previous },
  estimates: { current: Estimate; previous: Estimate | null },
) {
  const delta = compare(value, previousValue, { crossEra: crossEra(sides.current, sides.previous) });
  return {
    value,
    previousValue,
    ...delta,
    estimate: estimates.current,
    significance: significance(estimates.current, estimates.previous, delta.suppressedReason),
  };
}

const sentimentOf = (t: Totals): SentimentCounts => ({
  positive: t.positiveWeight,
  neutral: t.neutralWeight,
  negative: t.negativeWeight,
});

/** Mention rate, average rank and sentiment over usable observations, weighted by sampleCount. */
export function metrics(current: Side, previous: Previous): Metrics {
  const now = totals(usable(current.observations));
  const before = previous ? totals(usable(previous.observations)) : null;
  const sides = { current, previous };
  const estimates = (estimate: (groups: readonly PromptObservationGroup[]) => Estimate) => ({
    current: estimate(usable(current.perPrompt.observations)),
    previous: previous && estimate(usable(previous.perPrompt.observations)),
  });
  return {
    sampleCount: now.weight,
    mentionRate: {
      ...ratio(mentionRateOf(now), before && mentionRateOf(before), sides, estimates(mentionRateEstimate)),
      numerator: now.mentionedWeight,
      denominator: now.weight,
    },
    avgRank: {
      ...ratio(averageRankOf(now), before && averageRankOf(before), sides, estimates(rankEstimate)),
      numerator: now.rankWeighted,
      denominator: now.rankedWeight,
    },
    sentiment: { ...sentimentOf(now), previous: before && before.weight > 0 ? sentimentOf(before) : null },
  };
}

export interface Platform {
  key: string;
  label: string;
  score: number | null;
  mentionRate: number | null;
  /** The mention rate's 95 % interval over the platform's prompts, or why it has none. */
  mentionRateEstimate: Estimate;
  totalAnswers: number;
  totalSamples: number;
}

const SURFACE_LABELS: Record<string, string> = {
  api: 'API',
  ui_scrape: 'Web app',
  ai_overview: 'AI Overview',
};

/** A readable name for a surface identifier: known ones by name, others title-cased. */
export function surfaceLabel(surface: string): string {
  return (
    SURFACE_LABELS[surface] ??
    surface
      .split(/[_\s-]+/)
      .filter(Boolean)
      .map((word) => word[0]?.toUpperCase() + word.slice(1))
      .join(' ')
  );
}

function platformsBy(
  groups: readonly ObservationGroup[],
  promptGroups: readonly PromptObservationGroup[],
  keyOf: (g: { model: string; surface: string }) => string,
  labelOf: (g: ObservationGroup) => string,
) {
  const byKey = new Map<string, { label: string; members: ObservationGroup[] }>();
  for (const g of groups) {
    const key = keyOf(g);
    const entry = byKey.get(key) ?? { label: labelOf(g), members: [] };
    entry.members.push(g);
    byKey.set(key, entry);
  }
  return [...byKey]
    .map(([key, { label, members }]): Platform => {
      const t = totals(members);
      return {
        key,
        label,
        score: scoreOfTotals(t),
        mentionRate: mentionRateOf(t),
        mentionRateEstimate: mentionRateEstimate(promptGroups.filter((g) => keyOf(g) === key)),
        totalAnswers: t.answers,
        totalSamples: t.weight,
      };
    })
    .sort((a, b) => b.totalSamples - a.totalSamples || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** Score and mention rate per answer engine (model) and per surface, largest first. */
export function platforms(current: Side): { byModel: Platform[]; bySurface: Platform[] } {
  const groups = usable(current.observations);
  const promptGroups = usable(current.perPrompt.observations);
  return {
    byModel: platformsBy(
      groups,
      promptGroups,
      (g) => g.model,
      (g) => g.modelLabel,
    ),
    bySurface: platformsBy(
      groups,
      promptGroups,
      (g) => g.surface,
      (g) => surfaceLabel(g.surface),
    ),
  };
}

// ---- Shares ----

/** Per prompt, each key's count and the count of all keys: the clusters of a share's interval. */
interface Split {
  parts: Map<string, Map<number, number>>;
  wholes: Map<number, number>;
}

/** Rows of an unknown key (undefined) count nowhere, as in the window sums. */
function split(rows: Iterable<{ key: string | undefined; promptId: number; count: number }>): Split {
  const parts = new Map<string, Map<number, number>>();
  const wholes = new Map<number, number>();
  for (const { key, promptId, count } of rows) {
    if (key === undefined) continue;
    const part = parts.get(key) ?? new Map<number, number>();
    part.set(promptId, (part.get(promptId) ?? 0) + count);
    parts.set(key, part);
    wholes.set(promptId, (wholes.get(promptId) ?? 0) + count);
  }
  return { parts, wholes };
}

/** A key's share (its count / all counts) with its interval over the prompts. */
function shareEstimate(split: Split, key: string): Estimate {
  const part = split.parts.get(key);
  return proportionInterval(
    [...split.wholes].map(([promptId, whole]) => ({
      numerator: part?.get(promptId) ?? 0,
      denominator: whole,
    })),
  );
}

// ---- Share of voice ----

/** One competitor's summed mentions in a window (the brand's come from the observations). */
export interface CompetitorMentions {
  competitorId: number;
  mentions: number;
  rankedWeight: number;
  rankWeighted: number;
  valueWeighted: number;
}

/** Citations of a domain in the answers mentioning an entity; competitorId null is the brand. */
export interface MentionDomain {
  competitorId: number | null;
  domain: string;
  citations: number;
}

export interface CompetitorInfo {
  id: number;
  categoryId: number;
  name: string;
  canonicalKey: string;
  /** Whether its category is live (an archived category's competitors are tracked no more). */
  live: boolean;
}

export interface ShareItem extends EntityStats {
  id: number;
  categoryId: number | null;
  name: string;
  isUserBrand: boolean;
  share: number | null;
  previousShare: number | null;
  shareDelta: number | null;
  shareDeltaSuppressedReason: Delta['suppressedReason'];
  /** The share's 95 % interval, or why it has none. */
  estimate: Estimate;
  shareDeltaSignificance: Significance | null;
}

export interface ShareOfVoiceInput {
  brand: { id: number; name: string; categoryId: number | null };
  competitors: readonly CompetitorInfo[];
  current: Side & { mentions: readonly CompetitorMentions[]; domains: readonly MentionDomain[] };
  /** Competitor mentions in the previous window (null: no previous window). */
  previous: (Side & { mentions: readonly CompetitorMentions[] }) | null;
}

/** Entities shown by name; the rest of the competitors go to `hidden`. */
export const VISIBLE_COMPETITORS = 10;

interface Entity {
  key: string;
  id: number;
  categoryIds: Set<number>;
  name: string;
  isUserBrand: boolean;
  tally: EntityTally;
  previousMentions: number;
}

const BRAND_KEY = '\u0000brand';

function addTally(
  into: EntityTally,
  m: { mentions: number; rankedWeight: number; rankWeighted: number; valueWeighted: number },
) {
  into.mentions += m.mentions;
  into.rankWeight += m.rankedWeight;
  into.rankWeighted += m.rankWeighted;
  into.valueWeighted += m.valueWeighted;
}

/**
 * Mentions of the brand and of each competitor in usable observations; share = an entity's
 * mentions / all entities' mentions. Competitors are one entity per canonical key, so a competitor
 * tracked in several categories counts once at brand scope. Visible: the brand and the top 10
 * competitors by mentions; hidden: the other competitors mentioned in the window.
 */
export function shareOfVoice(input: ShareOfVoiceInput): { visible: ShareItem[]; hidden: ShareItem[] } {
  const info = new Map(input.competitors.map((c) => [c.id, c]));
  // The entries that track a competitor: at brand scope those of live categories, at category
  // scope the category's own.
  const scope = input.brand.categoryId;
  const tracked = Map.groupBy(
    input.competitors.filter((c) => (scope === null ? c.live : c.categoryId === scope)),
    (c) => c.canonicalKey,
  );
  const entities = new Map<string, Entity>();
  const entityOf = (competitorId: number | null): Entity | undefined => {
    if (competitorId === null) return entities.get(BRAND_KEY);
    const competitor = info.get(competitorId);
    if (!competitor) return undefined;
    let entity = entities.get(competitor.canonicalKey);
    if (!entity) {
      // Named by the lowest id of all its categories' entries, and in them all, whichever of them
      // the window's answers mention: an entry's id and category do not move with the window.
      const all = tracked.get(competitor.canonicalKey) ?? [competitor];
      const first = all.reduce((a, b) => (b.id < a.id ? b : a));
      entity = {
        key: competitor.canonicalKey,
        id: first.id,
        categoryIds: new Set(all.map((c) => c.categoryId)),
        name: first.name,
        isUserBrand: false,
        tally: { mentions: 0, valueWeighted: 0, rankWeighted: 0, rankWeight: 0, domains: new Map() },
        previousMentions: 0,
      };
      entities.set(competitor.canonicalKey, entity);
    }
    return entity;
  };

  const brandTotals = totals(usable(input.current.observations));
  const brand: Entity = {
    key: BRAND_KEY,
    id: input.brand.id,
    categoryIds: new Set(input.brand.categoryId === null ? [] : [input.brand.categoryId]),
    name: input.brand.name,
    isUserBrand: true,
    tally: {
      mentions: brandTotals.mentionedWeight,
      rankWeight: brandTotals.rankedWeight,
      rankWeighted: brandTotals.rankWeighted,
      valueWeighted: brandTotals.valueWeighted,
      domains: new Map(),
    },
    previousMentions: input.previous ? totals(usable(input.previous.observations)).mentionedWeight : 0,
  };
  entities.set(BRAND_KEY, brand);
  for (const m of input.current.mentions) {
    const entity = entityOf(m.competitorId);
    if (entity) addTally(entity.tally, m);
  }
  for (const d of input.current.domains) {
    const domains = entityOf(d.competitorId)?.tally.domains;
    domains?.set(d.domain, (domains.get(d.domain) ?? 0) + d.citations);
  }
  for (const m of input.previous?.mentions ?? []) {
    const entity = entities.get(info.get(m.competitorId)?.canonicalKey ?? '');
    if (entity) entity.previousMentions += m.mentions;
  }

  const all = [...entities.values()].filter((e) => e.isUserBrand || e.tally.mentions > 0);
  const total = all.reduce((sum, e) => sum + e.tally.mentions, 0);
  const previousTotal = input.previous
    ? brand.previousMentions +
      input.previous.mentions.reduce((sum, m) => sum + (info.has(m.competitorId) ? m.mentions : 0), 0)
    : 0;
  const era = crossEra(input.current, input.previous);
  const weight = input.current.classification.coverage.sampleWeightTotal;
  // Each entity's mentions per prompt: the brand's from its own observations, as above.
  const voices = (side: Side) =>
    split([
      ...usable(side.perPrompt.observations).map((g) => ({
        key: BRAND_KEY,
        promptId: g.promptId,
        count: g.mentionedWeight,
      })),
      ...side.perPrompt.mentions.map((m) => ({
        key: info.get(m.competitorId)?.canonicalKey,
        promptId: m.promptId,
        count: m.mentions,
      })),
    ]);
  const [voicesNow, voicesBefore] = [voices(input.current), input.previous && voices(input.previous)];

  const items = all.map((e): ShareItem => {
    const share = total > 0 ? e.tally.mentions / total : null;
    const previousShare = previousTotal > 0 ? e.previousMentions / previousTotal : null;
    const { delta, suppressedReason } = compare(share, previousShare, { crossEra: era });
    const estimate = shareEstimate(voicesNow, e.key);
    const before = voicesBefore && shareEstimate(voicesBefore, e.key);
    return {
      id: e.id,
      categoryId: e.categoryIds.size === 1 ? ([...e.categoryIds][0] as number) : null,
      name: e.name,
      isUserBrand: e.isUserBrand,
      ...statsOf(e.tally, weight),
      share,
      previousShare,
      shareDelta: delta,
      shareDeltaSuppressedReason: suppressedReason,
      estimate,
      shareDeltaSignificance: significance(estimate, before, suppressedReason),
    };
  });
  const competitors = items.filter((i) => !i.isUserBrand).sort(compareEntities);
  const brandItem = items.find((i) => i.isUserBrand) as ShareItem;
  return {
    visible: [brandItem, ...competitors.slice(0, VISIBLE_COMPETITORS)].sort(compareEntities),
    hidden: competitors.slice(VISIBLE_COMPETITORS),
  };
}

// ---- Sources ----

/** Citations of one domain in a window, and how many distinct URLs they point at. */
export interface DomainCitations {
  domain: string;
  citations: number;
  urls: number;
}

export interface SourceItem {
  domain: string;
  count: number;
  share: number;
  previousShare: number | null;
  shareDelta: number | null;
  shareDeltaSuppressedReason: Delta['suppressedReason'];
  urlCount: number;
  /** The share's 95 % interval, or why it has none. */
  estimate: Estimate;
  shareDeltaSignificance: Significance | null;
}

export interface Sources {
  totalDomains: number;
  totalCitations: number;
  items: SourceItem[];
}

/** A side with its citations per registrable domain. */
export type CitedSide = Side & { citations: readonly DomainCitations[] };

/**
 * Each cited URL in a usable observation is one citation of its registrable domain; share = the
 * domain's citations / all citations; urlCount = distinct URLs. Most cited first, then by domain.
 */
export function sources(current: CitedSide, previous: CitedSide | null): Sources {
  const total = current.citations.reduce((sum, d) => sum + d.citations, 0);
  const previousTotal = previous?.citations.reduce((sum, d) => sum + d.citations, 0) ?? 0;
  const before = new Map(previous?.citations.map((d) => [d.domain, d.citations]));
  const cited = (side: Side) =>
    split(side.perPrompt.citations.map((c) => ({ key: c.domain, promptId: c.promptId, count: c.citations })));
  const [citedNow, citedBefore] = [cited(current), previous && cited(previous)];
  const items = current.citations
    .filter((d) => d.citations > 0)
    .map((d): SourceItem => {
      const share = d.citations / total;
      const previousShare = previousTotal > 0 ? (before.get(d.domain) ?? 0) / previousTotal : null;
      const { delta, suppressedReason } = compare(share, previousShare, {
        crossEra: crossEra(current, previous),
      });
      const estimate = shareEstimate(citedNow, d.domain);
      return {
        domain: d.domain,
        count: d.citations,
        share,
        previousShare,
        shareDelta: delta,
        shareDeltaSuppressedReason: suppressedReason,
        urlCount: d.urls,
        estimate,
        shareDeltaSignificance: significance(
          estimate,
          citedBefore && shareEstimate(citedBefore, d.domain),
          suppressedReason,
        ),
      };
    })
    .sort((a, b) => b.count - a.count || (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0));
  return { totalDomains: items.length, totalCitations: total, items };
}

/**
 * The registrable domain of a cited URL, exactly as the answer analyzer records it (public-suffix
 * aware, `www.` and other subdomains folded: blog.example.co.uk → example.co.uk), so sources agree
 * everywhere they appear. A URL the analyzer would not take keeps its text, lower-cased.
 */
export function registrableDomain(url: string): string {
  return sourceOf(url)?.domain ?? url.toLowerCase();
}
