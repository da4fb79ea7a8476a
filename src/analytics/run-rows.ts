import {
  AGGREGATE_KINDS,
  type AggregateKind,
  ALL_PROMPTS,
  KINDS,
  type RunRows,
} from '../db/aggregate-kinds.ts';
import { visibleRunFacts } from '../db/aggregates.ts';
import type { Db } from '../db/connect.ts';
import { registrableDomain } from '../domain/analytics.ts';
import { dayOf } from '../domain/blocks.ts';
import { addToTallies, bestRank, type EntityTally } from '../domain/entities.ts';
import { isLegacy, observationValue } from '../domain/scoring.ts';

// A run's aggregate rows, computed from its responses, mentions and citations. Nothing here
// decides what a figure means: values, ranks and domains come from the domain layer; this module
// only adds them up per prompt, and per category for the category-total rows.

interface RunHeader {
  id: number;
  brand_id: number;
  category_id: number;
  finished_at: string;
}

interface RawResponse {
  id: number;
  run_id: number;
  prompt_id: number;
  model: string;
  model_label: string;
  surface: string;
  outcome: string;
  methodology: string;
  has_mention_data: number;
  sample_count: number;
  mentioned: number;
  rank: number | null;
  sentiment: string | null;
}

/** A URL an answer cites, with its registrable domain. */
interface CitedUrl {
  url: string;
  domain: string;
}

export interface RawRun {
  header: RunHeader;
  responses: RawResponse[];
}

/** The value under a key of a map, created when missing. */
export function entry<K, T>(map: Map<K, T>, key: K, create: () => T): T {
  let value = map.get(key);
  if (value === undefined) {
    value = create();
    map.set(key, value);
  }
  return value;
}

const SENTIMENT_COLUMN = {
  positive: 'positive_weight',
  neutral: 'neutral_weight',
  negative: 'negative_weight',
} as const;

/**
 * A run's aggregate rows. Every answer counts in the observation rows (coverage needs the failed
 * ones too); only answers that could be usable (outcome ok, mention data recorded) feed the
 * entity and citation rows.
 */
export function runRows(
  orgId: number,
  run: RawRun,
  competitorsOf: Map<number, Map<number, number | null>>,
  urlsOf: Map<number, CitedUrl[]>,
): RunRows {
  const dated = {
    org_id: orgId,
    brand_id: run.header.brand_id,
    category_id: run.header.category_id,
    run_id: run.header.id,
    finished_at: new Date(run.header.finished_at).toISOString(),
    day: dayOf(Date.parse(run.header.finished_at)),
  };
  const observations = new Map<string, RunRows['observations'][number]>();
  const entities = new Map<
    string,
    { promptId: number; methodology: string; tallies: Map<number | null, EntityTally> }
  >();
  const citations = new Map<string, RunRows['citations'][number]>();

  for (const r of run.responses) {
    const key = [
      r.prompt_id,
      r.model,
      r.model_label,
      r.surface,
      r.methodology,
      r.outcome,
      r.has_mention_data,
    ].join('\u0001');
    const o = entry(observations, key, () => ({
      ...dated,
      prompt_id: r.prompt_id,
      methodology: r.methodology,
      model: r.model,
      model_label: r.model_label,
      surface: r.surface,
      outcome: r.outcome,
      has_mention_data: r.has_mention_data,
      answers: 0,
      weight: 0,
      mentioned_weight: 0,
      ranked_weight: 0,
      rank_weighted: 0,
      value_weighted: 0,
      positive_weight: 0,
      neutral_weight: 0,
      negative_weight: 0,
    }));
    const w = r.sample_count;
    const mentioned = r.mentioned === 1;
    o.answers += 1;
    o.weight += w;
    o.value_weighted += w * observationValue({ mentioned, rank: r.rank });
    if (mentioned) {
      o.mentioned_weight += w;
      if (r.rank !== null) {
        o.ranked_weight += w;
        o.rank_weighted += w * r.rank;
      }
      const sentiment = SENTIMENT_COLUMN[r.sentiment as keyof typeof SENTIMENT_COLUMN];
      if (sentiment) o[sentiment] += w;
    }

    if (r.outcome !== 'ok' || r.has_mention_data !== 1) continue;
    const cited = urlsOf.get(r.id) ?? [];
    const domains = cited.map((c) => c.domain);
    // The brand's own mention is the response row's, as in its score; null keys the brand.
    const mentions = new Map<number | null, number | null>(competitorsOf.get(r.id));
    if (mentioned) mentions.set(null, r.rank);
    const scope = entry(entities, `${r.prompt_id}\u0001${r.methodology}`, () => ({
      promptId: r.prompt_id,
      methodology: r.methodology,
      tallies: new Map(),
    }));
    addToTallies(scope.tallies, { weight: w, mentions, domains }, true);
    for (const { url, domain } of cited) {
      const c = entry(citations, [r.prompt_id, r.methodology, url].join('\u0001'), () => ({
        ...dated,
        prompt_id: r.prompt_id,
        methodology: r.methodology,
        domain,
        url,
        citations: 0,
      }));
      c.citations += 1;
    }
  }

  const rows: RunRows = {
    coverage: [],
    observations: [...observations.values()],
    mentions: [],
    mention_domains: [],
    citations: [...citations.values()],
  };
  for (const { promptId, methodology, tallies } of entities.values()) {
    const keyed = { ...dated, prompt_id: promptId, methodology };
    for (const [competitorId, t] of tallies) {
      if (competitorId !== null) {
        rows.mentions.push({
          ...keyed,
          competitor_id: competitorId,
          mentions: t.mentions,
          ranked_weight: t.rankWeight,
          rank_weighted: t.rankWeighted,
          value_weighted: t.valueWeighted,
        });
      }
      for (const [domain, count] of t.domains) {
        rows.mention_domains.push({ ...keyed, competitor_id: competitorId, domain, citations: count });
      }
    }
  }
  rows.coverage = summed('coverage', rows.observations, false);
  for (const kind of KINDS) {
    if (kind === 'coverage') continue;
    const into = rows[kind] as unknown[];
    // Row by row, as refresh.ts appends them: a spread of 100,000-odd rows overflows the stack.
    for (const row of summed(kind, rows[kind] as Row[], true)) into.push(row);
  }
  return rows;
}

type Row = Record<string, unknown> & { prompt_id: number; methodology: string };
const RUN_COLUMNS = ['org_id', 'brand_id', 'category_id', 'run_id', 'finished_at', 'day'] as const;

/**
 * Rows of `kind` summed from finer rows over its keys: per prompt, or (`categoryTotal`) over all
 * prompts for the current methodology only, as the category-total rows.
 */
function summed<R extends Row>(kind: AggregateKind, rows: readonly R[], categoryTotal: boolean): R[] {
  const { keys, sums } = AGGREGATE_KINDS[kind];
  const byKey = new Map<string, Row>();
  for (const row of rows) {
    if (categoryTotal && isLegacy(row.methodology)) continue;
    const key = [
      categoryTotal ? ALL_PROMPTS : row.prompt_id,
      row.methodology,
      ...keys.map((k) => row[k]),
    ].join('\u0001');
    const total = byKey.get(key);
    if (total) for (const column of sums) total[column] = (total[column] as number) + (row[column] as number);
    else {
      const fresh: Row = {
        prompt_id: categoryTotal ? ALL_PROMPTS : row.prompt_id,
        methodology: row.methodology,
      };
      for (const column of [...RUN_COLUMNS, ...keys, ...sums]) fresh[column] = row[column];
      byKey.set(key, fresh);
    }
  }
  return [...byKey.values()] as R[];
}

/** The visible runs among the ids, with their responses, competitor mentions and citations. */
export async function loadRuns(db: Db, orgId: number, runIds: readonly number[]) {
  const { headers, responses, mentions, citations } = await visibleRunFacts(db, orgId, runIds);
  const byRun = new Map<number, RawResponse[]>();
  for (const r of responses) entry(byRun, r.run_id, () => []).push(r);
  const competitorsOf = new Map<number, Map<number, number | null>>();
  for (const m of mentions) {
    const seen = entry(competitorsOf, m.response_id, () => new Map<number, number | null>());
    // A competitor named twice in one answer counts once, at its best rank.
    seen.set(
      m.competitor_id,
      seen.has(m.competitor_id) ? bestRank(seen.get(m.competitor_id) ?? null, m.rank) : m.rank,
    );
  }
  // A few sites make most citations: each URL's domain is worked out once.
  const domainOf = new Map<string, string>();
  const urlsOf = new Map<number, CitedUrl[]>();
  for (const { response_id, url } of citations) {
    const domain = entry(domainOf, url, () => registrableDomain(url));
    entry(urlsOf, response_id, () => []).push({ url, domain });
  }
  const runs: RawRun[] = headers.map((header) => ({ header, responses: byRun.get(header.id) ?? [] }));
  return { runs, competitorsOf, urlsOf };
}
