import { observationValue } from './scoring.ts';

// Per-entity statistics (the user's brand and each competitor) over a set of usable observations.
// The run detail's competitors and the analytics share of voice both read them from here, so an
// entity's mentions, rank and score mean the same thing everywhere. Pure: callers fetch the inputs.

export interface DomainCount {
  domain: string;
  count: number;
}

/** One usable observation (a response row with outcome ok), reduced to what entity figures need. */
export interface EntityObservation<K> {
  /** sampleCount: identical asks merged into the row. */
  weight: number;
  /** Each entity the answer mentions, with its rank (null when mentioned without one). */
  mentions: ReadonlyMap<K, number | null>;
  /** Registrable domain of every cited URL, one entry per citation. */
  domains: readonly string[];
}

/** Unrounded figures; rounding happens where they are serialised. */
export interface EntityStats {
  /** Σ weight of the observations mentioning the entity. */
  mentions: number;
  /** Weighted mean rank over the entity's ranked mentions; null when it was never ranked. */
  averageRank: number | null;
  /** The scoring formula applied with the entity's own mention and rank; null without observations. */
  score: number | null;
  /** Top domains cited in answers mentioning the entity. */
  sourceBreakdown: DomainCount[];
}

export const SOURCE_BREAKDOWN_SIZE = 5;

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Most cited first; ties by domain so that the order never depends on input order. */
function sortedCounts(counts: ReadonlyMap<string, number>): DomainCount[] {
  return [...counts]
    .map(([domain, count]) => ({ domain, count }))
    .sort((a, b) => b.count - a.count || compareText(a.domain, b.domain));
}

function tally(counts: Map<string, number>, domains: Iterable<string>): void {
  for (const domain of domains) counts.set(domain, (counts.get(domain) ?? 0) + 1);
}

/** Citations per domain, most cited first, then by domain. */
export function domainCounts(domains: Iterable<string>): DomainCount[] {
  const counts = new Map<string, number>();
  tally(counts, domains);
  return sortedCounts(counts);
}

/**
 * The additive part of an entity's statistics: tallies of disjoint sets of observations add up
 * field by field, which is how the analytics aggregates store them (stats come from `statsOf`).
 */
export interface EntityTally {
  mentions: number;
  valueWeighted: number;
  rankWeighted: number;
  rankWeight: number;
  domains: Map<string, number>;
}

export function emptyTally(): EntityTally {
  return { mentions: 0, valueWeighted: 0, rankWeighted: 0, rankWeight: 0, domains: new Map() };
}

/**
 * Adds one observation's mentions to the tallies. With `open`, an entity not tallied yet gets a
 * tally; otherwise mentions of entities without one are ignored.
 */
export function addToTallies<K>(
  tallies: Map<K, EntityTally>,
  observation: EntityObservation<K>,
  open: boolean,
): void {
  const w = observation.weight;
  for (const [key, rank] of observation.mentions) {
    let acc = tallies.get(key);
    if (!acc && open) {
      acc = emptyTally();
      tallies.set(key, acc);
    }
    if (!acc) continue;
    acc.mentions += w;
    // Observations not mentioning the entity add weight to the denominator only (value 0).
    acc.valueWeighted += w * observationValue({ mentioned: true, rank });
    if (rank !== null) {
      acc.rankWeighted += w * rank;
      acc.rankWeight += w;
    }
    tally(acc.domains, observation.domains);
  }
}

/** An entity's statistics from its tally and the total weight of all observations in scope. */
export function statsOf(acc: EntityTally, totalWeight: number): EntityStats {
  return {
    mentions: acc.mentions,
    averageRank: acc.rankWeight > 0 ? acc.rankWeighted / acc.rankWeight : null,
    score: totalWeight > 0 ? (100 * acc.valueWeighted) / totalWeight : null,
    sourceBreakdown: sortedCounts(acc.domains).slice(0, SOURCE_BREAKDOWN_SIZE),
  };
}

/**
 * Statistics of exactly the given entities over the observations (mentions of other entities are
 * ignored). An entity never mentioned still gets an entry: 0 mentions, and a score of 0 when there
 * are observations at all.
 */
export function entityStats<K>(
  entities: readonly K[],
  observations: Iterable<EntityObservation<K>>,
): Map<K, EntityStats> {
  const tallies = new Map<K, EntityTally>(entities.map((key) => [key, emptyTally()]));
  let totalWeight = 0;
  for (const observation of observations) {
    totalWeight += observation.weight;
    addToTallies(tallies, observation, false);
  }
  return new Map([...tallies].map(([key, acc]) => [key, statsOf(acc, totalWeight)]));
}

/** Display order of entities: most mentioned first, then by name (case-insensitive). */
export function compareEntities(
  a: { mentions: number; name: string },
  b: { mentions: number; name: string },
) {
  return (
    b.mentions - a.mentions ||
    compareText(a.name.toLowerCase(), b.name.toLowerCase()) ||
    compareText(a.name, b.name)
  );
}

/**
 * The rank of an entity named several times in one answer: its best (lowest) rank; null only when
 * none of its mentions is ranked.
 */
export function bestRank(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.min(a, b);
}
