import { prepareAnswer } from './document.ts';
import { type CompiledEntities, compileEntities, findMentions } from './matcher.ts';
import { rankEntities } from './ranking.ts';
import { sentimentToward } from './sentiment.ts';
import { collectSources } from './sources.ts';
import { parseStructure } from './structure.ts';
import type { Analysis, AnalyzerSubject, AnswerInput } from './types.ts';

// The answer analyzer: turns one captured answer into the derived fields the API serves. Pure and
// deterministic; docs/analyzer.md explains every rule. Build one analyzer per brand and category
// (compiling the names is the costly part) and run it over every answer of that category.

export { brandNames } from './matcher.ts';
export { canonicalKey } from './names.ts';
export { sourceOf } from './sources.ts';
export type {
  Analysis,
  AnalyzerSubject,
  AnswerInput,
  BrandSpec,
  Candidate,
  CompetitorMention,
  CompetitorSpec,
  Sentiment,
  Source,
} from './types.ts';

export interface Analyzer {
  analyze(answer: AnswerInput): Analysis;
}

const BRAND = 0;

function analyzeWith(
  compiled: CompiledEntities,
  knownKeys: ReadonlySet<string>,
  answer: AnswerInput,
): Analysis {
  const prepared = prepareAnswer(answer.text, answer.html);
  const structure = parseStructure(prepared.masked, compiled.longestNameWords);
  const mentions = findMentions(compiled, prepared.masked, prepared.folded, structure);
  const ranking = rankEntities(structure, mentions, knownKeys, prepared.masked);
  const mentioned = ranking.entities.has(BRAND);
  const competitors = compiled.entities
    .map((entity, index) => ({ entity, rank: ranking.entities.get(index) }))
    .filter(
      (c): c is { entity: (typeof compiled.entities)[number]; rank: number } =>
        c.entity.kind === 'competitor' && c.rank !== undefined,
    )
    .sort((a, b) => a.rank - b.rank)
    .map(({ entity, rank }) => ({ key: entity.key, name: entity.name, rank }));
  return {
    mentioned,
    rank: ranking.entities.get(BRAND) ?? null,
    sentiment: mentioned ? sentimentToward(BRAND, prepared.folded, structure, mentions, ranking) : null,
    competitors,
    candidates: ranking.candidates,
    sources: collectSources(answer.citations ?? [], prepared.urls),
  };
}

export function createAnalyzer(subject: AnalyzerSubject): Analyzer {
  const compiled = compileEntities(subject);
  const knownKeys = new Set(compiled.entities.map((e) => e.key));
  return { analyze: (answer) => analyzeWith(compiled, knownKeys, answer) };
}

export function analyzeAnswer(subject: AnalyzerSubject, answer: AnswerInput): Analysis {
  return createAnalyzer(subject).analyze(answer);
}
