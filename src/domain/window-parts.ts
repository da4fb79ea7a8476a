import type {
  CompetitorMentions,
  DomainCitations,
  MentionDomain,
  ObservationGroup,
  PerPrompt,
  PromptCompetitorMentions,
  PromptDomainCitations,
  PromptGroup,
  PromptObservationGroup,
} from './analytics.ts';

// A window side's sums read in parts (the days before the day holding its end, and that day, so
// that a new run re-reads only the latter: docs/performance.md, "A window side kept in
// two parts") and added up here. Every sum is additive and every group a part keeps has a true
// count above zero, so adding the parts' groups gives the groups one read of the whole would.

/** Citations of one URL in a window: the grain at which `urls` of DomainCitations is counted. */
export interface UrlCitations {
  domain: string;
  url: string;
  citations: number;
}

/** What one part of a window side reads once its fallback prompts are known. */
export interface PartSums {
  observations: ObservationGroup[];
  mentions: CompetitorMentions[];
  urls: UrlCitations[];
  domains: MentionDomain[];
  perPrompt: {
    observations: PromptObservationGroup[];
    mentions: PromptCompetitorMentions[];
    citations: PromptDomainCitations[];
  };
}

type Numeric<T> = { [K in keyof T]: T[K] extends number ? K : never }[keyof T];

/** The rows of several parts with equal keys added up, measure by measure; in first-seen order. */
function addUp<T extends object>(
  parts: readonly (readonly T[])[],
  keyOf: (row: T) => string,
  measures: readonly Numeric<T>[],
): T[] {
  const byKey = new Map<string, T>();
  for (const rows of parts) {
    for (const row of rows) {
      const key = keyOf(row);
      const held = byKey.get(key);
      if (!held) {
        byKey.set(key, { ...row });
        continue;
      }
      const sums = held as Record<Numeric<T>, number>;
      for (const m of measures) sums[m] += (row as Record<Numeric<T>, number>)[m];
    }
  }
  return [...byKey.values()];
}

// Keys join their columns with a character no text column holds.
const key = (...columns: (string | number | boolean | null)[]) => columns.join('\u0000');

/** Coverage groups of several parts added up. */
export const coverageOf = (parts: readonly (readonly PromptGroup[])[]) =>
  addUp(parts, (g) => key(g.promptId, g.methodology, g.outcome, g.hasMentionData), ['answers', 'weight']);

/** Citations and distinct URLs per domain. */
export function domainCitations(urls: readonly UrlCitations[]): DomainCitations[] {
  const byDomain = new Map<string, DomainCitations>();
  for (const { domain, citations } of urls) {
    const held = byDomain.get(domain);
    if (held) {
      held.citations += citations;
      held.urls += 1;
    } else byDomain.set(domain, { domain, citations, urls: 1 });
  }
  return [...byDomain.values()];
}

/** The sums of several parts added up: a window side's, but for its classification. */
export function sumsOf(parts: readonly PartSums[]): {
  observations: ObservationGroup[];
  mentions: CompetitorMentions[];
  citations: DomainCitations[];
  domains: MentionDomain[];
  perPrompt: PerPrompt;
} {
  const each = <T>(of: (part: PartSums) => readonly T[]) => parts.map(of);
  return {
    observations: addUp(
      each((p) => p.observations),
      (g) => key(g.model, g.modelLabel, g.surface, g.methodology, g.outcome, g.hasMentionData),
      [
        'answers',
        'weight',
        'mentionedWeight',
        'rankedWeight',
        'rankWeighted',
        'valueWeighted',
        'positiveWeight',
        'neutralWeight',
        'negativeWeight',
      ],
    ),
    mentions: addUp(
      each((p) => p.mentions),
      (m) => key(m.competitorId),
      ['mentions', 'rankedWeight', 'rankWeighted', 'valueWeighted'],
    ),
    citations: domainCitations(
      addUp(
        each((p) => p.urls),
        (u) => key(u.domain, u.url),
        ['citations'],
      ),
    ),
    domains: addUp(
      each((p) => p.domains),
      (d) => key(d.competitorId, d.domain),
      ['citations'],
    ),
    perPrompt: {
      observations: addUp(
        each((p) => p.perPrompt.observations),
        (g) => key(g.promptId, g.model, g.surface, g.methodology, g.outcome, g.hasMentionData),
        ['weight', 'mentionedWeight', 'rankedWeight', 'rankWeighted'],
      ),
      mentions: addUp(
        each((p) => p.perPrompt.mentions),
        (m) => key(m.promptId, m.competitorId),
        ['mentions', 'rankedWeight', 'rankWeighted'],
      ),
      citations: addUp(
        each((p) => p.perPrompt.citations),
        (c) => key(c.promptId, c.domain),
        ['citations'],
      ),
    },
  };
}
