import { type CompetitorInfo, type MentionDomain, platforms, type Side, usable } from '../analytics.ts';
import type { Estimate } from '../uncertainty.ts';

// The analytics numbers the recommendation rules and the outcome metrics read, derived from the
// very window sums the analytics endpoint serves (analytics/window.ts loadWindow): the brand's
// mention rate from `metrics`, each engine's from `platforms`, and the per-prompt, per-engine and
// per-domain counts from the same usable rows. Pure: no rule lives here, only bookkeeping.

/** Mentions of one named thing (the brand or a competitor) with the ranks they had. */
export interface Ranked {
  mentions: number;
  rankedWeight: number;
  /** Σ weight·rank over ranked mentions. */
  rankWeighted: number;
}

export interface PromptFacts {
  promptId: number;
  /** Σ sampleCount of the prompt's usable answers. */
  samples: number;
  brand: Ranked;
  /** Competitors named in its answers, by canonical key (one entity however many categories). */
  competitors: Map<string, Ranked>;
}

export interface EngineFacts {
  model: string;
  label: string;
  samples: number;
  brand: Ranked;
  /** The engine's mention rate with its prompt-clustered interval, as `platforms` serves it. */
  mentionRate: Estimate;
  sentiment: { positive: number; neutral: number; negative: number };
}

/** Citations per registrable domain in the answers naming the brand, and in those naming a competitor. */
export interface DomainFacts {
  brand: Map<string, number>;
  brandTotal: number;
  /** Counted once per competitor named: an answer naming two counts its citations twice. */
  competitors: Map<string, number>;
  competitorTotal: number;
  /** The same competitor citations per domain, kept apart per competitor (canonical key). */
  byCompetitor: Map<string, Map<string, number>>;
}

export interface SideFacts {
  prompts: Map<number, PromptFacts>;
  engines: Map<string, EngineFacts>;
}

export interface Facts {
  /** Competitor entities by canonical key; the name is the lowest id's, as share of voice shows. */
  competitors: Map<string, { key: string; name: string }>;
  current: SideFacts & { domains: DomainFacts };
  previous: SideFacts | null;
}

export interface FactsInput {
  competitors: readonly CompetitorInfo[];
  current: Side & { domains: readonly MentionDomain[] };
  previous: Side | null;
}

export const emptyRanked = (): Ranked => ({ mentions: 0, rankedWeight: 0, rankWeighted: 0 });

/** Σ weight·rank / Σ weight over ranked mentions; null when none was ranked. */
export const averageRank = (r: Ranked): number | null =>
  r.rankedWeight > 0 ? r.rankWeighted / r.rankedWeight : null;

export function addRanked(into: Ranked, from: Ranked): void {
  into.mentions += from.mentions;
  into.rankedWeight += from.rankedWeight;
  into.rankWeighted += from.rankWeighted;
}

function sideFacts(side: Side, keyOf: (competitorId: number) => string | undefined): SideFacts {
  const prompts = new Map<number, PromptFacts>();
  const prompt = (promptId: number) => {
    let facts = prompts.get(promptId);
    if (!facts) {
      facts = { promptId, samples: 0, brand: emptyRanked(), competitors: new Map() };
      prompts.set(promptId, facts);
    }
    return facts;
  };
  for (const g of usable(side.perPrompt.observations)) {
    const facts = prompt(g.promptId);
    facts.samples += g.weight;
    addRanked(facts.brand, {
      mentions: g.mentionedWeight,
      rankedWeight: g.rankedWeight,
      rankWeighted: g.rankWeighted,
    });
  }
  for (const c of side.perPrompt.mentions) {
    const key = keyOf(c.competitorId);
    if (key === undefined) continue;
    const competitors = prompt(c.promptId).competitors;
    const ranked = competitors.get(key) ?? emptyRanked();
    addRanked(ranked, c);
    competitors.set(key, ranked);
  }

  const estimates = new Map(platforms(side).byModel.map((p) => [p.key, p]));
  const engines = new Map<string, EngineFacts>();
  for (const g of usable(side.observations)) {
    let engine = engines.get(g.model);
    if (!engine) {
      const platform = estimates.get(g.model);
      engine = {
        model: g.model,
        label: platform?.label ?? g.modelLabel,
        samples: 0,
        brand: emptyRanked(),
        mentionRate: platform?.mentionRateEstimate ?? {
          value: null,
          interval: null,
          reason: 'no_data',
          limits: null,
        },
        sentiment: { positive: 0, neutral: 0, negative: 0 },
      };
      engines.set(g.model, engine);
    }
    engine.samples += g.weight;
    addRanked(engine.brand, {
      mentions: g.mentionedWeight,
      rankedWeight: g.rankedWeight,
      rankWeighted: g.rankWeighted,
    });
    engine.sentiment.positive += g.positiveWeight;
    engine.sentiment.neutral += g.neutralWeight;
    engine.sentiment.negative += g.negativeWeight;
  }
  return { prompts, engines };
}

function domainFacts(domains: readonly MentionDomain[], keyOf: (id: number) => string | undefined) {
  const facts: DomainFacts = {
    brand: new Map(),
    brandTotal: 0,
    competitors: new Map(),
    competitorTotal: 0,
    byCompetitor: new Map(),
  };
  for (const d of domains) {
    const key = d.competitorId === null ? undefined : keyOf(d.competitorId);
    if (d.competitorId === null) {
      facts.brand.set(d.domain, (facts.brand.get(d.domain) ?? 0) + d.citations);
      facts.brandTotal += d.citations;
    } else if (key !== undefined) {
      facts.competitors.set(d.domain, (facts.competitors.get(d.domain) ?? 0) + d.citations);
      facts.competitorTotal += d.citations;
      const perCompetitor = facts.byCompetitor.get(d.domain) ?? new Map<string, number>();
      perCompetitor.set(key, (perCompetitor.get(key) ?? 0) + d.citations);
      facts.byCompetitor.set(d.domain, perCompetitor);
    }
  }
  return facts;
}

/** The recommendation inputs of a loaded analytics window (current side, and previous if any). */
export function analyticsFacts(input: FactsInput): Facts {
  const byId = new Map(input.competitors.map((c) => [c.id, c]));
  const competitors = new Map<string, { key: string; name: string; id: number }>();
  for (const c of input.competitors) {
    const known = competitors.get(c.canonicalKey);
    if (!known || c.id < known.id)
      competitors.set(c.canonicalKey, { key: c.canonicalKey, name: c.name, id: c.id });
  }
  const keyOf = (competitorId: number) => byId.get(competitorId)?.canonicalKey;
  return {
    competitors: new Map([...competitors].map(([key, c]) => [key, { key, name: c.name }])),
    current: { ...sideFacts(input.current, keyOf), domains: domainFacts(input.current.domains, keyOf) },
    previous: input.previous ? sideFacts(input.previous, keyOf) : null,
  };
}
