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
type Column = string | number | boolean | null;
/** One level of the groups: a column's value to the next level, or (the last column) to a group's index. */
type Level = Map<Column, Level | number>;

/**
 * The rows of several parts with equal `columns` added up, measure by measure; in first-seen
 * order. Grouped through one Map per column rather than by a key string joined from the columns,
 * and a row copied (by `copy`) only when another is added to it, since a part's rows may be kept
 * in the analytics cache: a new string per row and the copy of every row were most of the time
 * (docs/performance.md, "Parts added up"). Each caller passes its own `(row) => ({ ...row })`: one
 * copy site shared by the seven kinds of row ran about twice as slow as one per kind.
 */
function addUp<T extends object>(
  parts: readonly (readonly T[])[],
  columns: readonly (keyof T)[],
  measures: readonly Numeric<T>[],
  copy: (row: T) => T,
): T[] {
  const groups: Level = new Map();
  const added: T[] = [];
  const copied: boolean[] = [];
  const last = columns.length - 1;
  for (const rows of parts) {
    for (const row of rows) {
      const values = row as Record<keyof T, Column>;
      let level = groups;
      for (let i = 0; i < last; i++) {
        const value = values[columns[i] as keyof T];
        let next = level.get(value) as Level | undefined;
        if (!next) {
          next = new Map();
          level.set(value, next);
        }
        level = next;
      }
      const value = values[columns[last] as keyof T];
      const index = level.get(value) as number | undefined;
      if (index === undefined) {
        level.set(value, added.length);
        added.push(row);
        copied.push(false);
        continue;
      }
      if (!copied[index]) {
        added[index] = copy(added[index] as T);
        copied[index] = true;
      }
      const sums = added[index] as Record<Numeric<T>, number>;
      for (const m of measures) sums[m] += (row as Record<Numeric<T>, number>)[m];
    }
  }
  return added;
}

/** Coverage groups of several parts added up. */
export const coverageOf = (parts: readonly (readonly PromptGroup[])[]) =>
  addUp(parts, ['promptId', 'methodology', 'outcome', 'hasMentionData'], ['answers', 'weight'], (g) => ({
    ...g,
  }));

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
      ['model', 'modelLabel', 'surface', 'methodology', 'outcome', 'hasMentionData'],
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
      (row) => ({ ...row }),
    ),
    mentions: addUp(
      each((p) => p.mentions),
      ['competitorId'],
      ['mentions', 'rankedWeight', 'rankWeighted', 'valueWeighted'],
      (row) => ({ ...row }),
    ),
    citations: domainCitations(
      addUp(
        each((p) => p.urls),
        ['domain', 'url'],
        ['citations'],
        (row) => ({ ...row }),
      ),
    ),
    domains: addUp(
      each((p) => p.domains),
      ['competitorId', 'domain'],
      ['citations'],
      (row) => ({ ...row }),
    ),
    perPrompt: {
      observations: addUp(
        each((p) => p.perPrompt.observations),
        ['promptId', 'model', 'surface', 'methodology', 'outcome', 'hasMentionData'],
        ['weight', 'mentionedWeight', 'rankedWeight', 'rankWeighted'],
        (row) => ({ ...row }),
      ),
      mentions: addUp(
        each((p) => p.perPrompt.mentions),
        ['promptId', 'competitorId'],
        ['mentions', 'rankedWeight', 'rankWeighted'],
        (row) => ({ ...row }),
      ),
      citations: addUp(
        each((p) => p.perPrompt.citations),
        ['promptId', 'domain'],
        ['citations'],
        (row) => ({ ...row }),
      ),
    },
  };
}
