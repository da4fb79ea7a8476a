// Synthetic answers: what an answer engine would have said, as markdown text plus the URLs it
// cites, in the varied formats real engines use. This file only writes text from a script; what
// the text means (mentions, ranks, sentiment, sources) is read back by the real analyzer when the
// answers are imported, so the wording must say what the script intends: a neutral line carries
// no evaluative word, and nothing else in the brand's list item or table row leans either way.
import type { CitationStyle } from './catalog.ts';
import type { Prng } from './prng.ts';

export type Tone = 'positive' | 'neutral' | 'negative';
export type AnswerFormat = 'numbered' | 'bullets' | 'table' | 'sections' | 'prose';

export interface ScriptEntity {
  /** The name as the answer writes it. */
  name: string;
  isBrand: boolean;
  /** For competitors, their canonical key; null for the monitored brand. */
  canonicalKey: string | null;
  /** A page of the entity the answer links to, if it links one. */
  url: string | null;
  strength: string;
}

/** What an answer says, in order: the recipe the text is written from. */
export interface AnswerScript {
  topic: string;
  format: AnswerFormat;
  /** In order of appearance; list formats rank them in this order. */
  entities: readonly ScriptEntity[];
  /** How the answer speaks of the monitored brand, when it names it. */
  brandTone: Tone | null;
  citationStyle: CitationStyle;
  /** Editorial pages cited besides the entities' own pages. */
  sources: readonly string[];
}

export interface SyntheticAnswer {
  text: string;
  /** Every cited URL, in order of first appearance in the text. */
  citationUrls: string[];
}

const INTROS = [
  'Here are the {topic} that come up most often for this question:',
  'Short answer: it depends on team size and budget, but these are the strongest options.',
  'Based on recent reviews and pricing pages, these {topic} are worth shortlisting:',
  'There is no single winner, but a few {topic} consistently rank well.',
];

const CLOSINGS = [
  'If you share your budget and team size, I can narrow this down further.',
  'Most of these offer free trials, so test two or three with real use cases before deciding.',
  'Prices and features change often, so check the vendors’ pages for current plans.',
  '',
];

const BEST_FOR = [
  'Small teams',
  'Growing teams',
  'Enterprises',
  'Tight budgets',
  'Mid-sized teams',
  'Power users',
];

const BRAND_LINES: Record<Tone, readonly string[]> = {
  positive: [
    '{name} stands out for {strength}, and reviewers praise how quickly teams get value from it.',
    '{name} is a strong pick: {strength}, and users rate it highly for reliability.',
    '{name} is often recommended for {strength}; customers describe it as easy to love.',
  ],
  // The strengths are praise ("a clean interface", "strong automation"): a neutral line names
  // none, only plain facts.
  neutral: [
    '{name} is another option among {topic}.',
    '{name} covers the core features most teams look for.',
    '{name} offers the standard feature set, with plans for teams of different sizes.',
    '{name} appears on many shortlists of {topic}.',
  ],
  negative: [
    '{name} has {strength}, but users report a clunky interface and slow support replies.',
    '{name} is an option, though reviewers complain about frequent outages and confusing pricing.',
    '{name} looks good on paper, but several users say it is frustrating to set up and buggy.',
  ],
};

const PROSE_LINKS = [
  '{name} is known for {strength}.',
  'Another option is {name}, with {strength}.',
  '{name} is also worth a look thanks to {strength}.',
  'Teams that want {strength} often choose {name}.',
];

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, key: string) => values[key] ?? '');
}

function sourceLabel(url: string): string {
  return new URL(url).hostname.replace(/^www\./, '');
}

/** Writes an answer from its script. Citation markers are numbered in order of appearance. */
export function writeAnswer(script: AnswerScript, prng: Prng): SyntheticAnswer {
  const cited: string[] = [];
  const cite = (url: string): number => {
    const at = cited.indexOf(url);
    if (at >= 0) return at + 1;
    cited.push(url);
    return cited.length;
  };
  // How an entity's own page is referenced, by citation style.
  // ('sources' lists entity pages at the end with the rest; 'none' cites nothing.)
  const entityRef = (entity: ScriptEntity): string => {
    if (!entity.url || script.citationStyle === 'none') return '';
    const n = cite(entity.url);
    if (script.citationStyle === 'links') return ` ([${sourceLabel(entity.url)}](${entity.url}))`;
    if (script.citationStyle === 'footnotes') return ` [${n}]`;
    return '';
  };
  const describe = (entity: ScriptEntity): string =>
    entity.isBrand && script.brandTone
      ? fill(prng.pick(BRAND_LINES[script.brandTone]), {
          name: entity.name,
          strength: entity.strength,
          topic: script.topic,
        })
      : `${capitalise(entity.strength)}.`;

  const parts: string[] = [];
  const intro = fill(prng.pick(INTROS), { topic: script.topic });
  if (script.citationStyle === 'footnotes' && script.sources.length > 0) {
    parts.push(`${intro} ${script.sources.map((s) => `[${cite(s)}]`).join('')}`);
  } else {
    parts.push(intro);
  }

  const entities = script.entities;
  switch (script.format) {
    case 'numbered':
      parts.push(
        entities.map((e, i) => `${i + 1}. **${e.name}** – ${describe(e)}${entityRef(e)}`).join('\n'),
      );
      break;
    case 'bullets':
      parts.push(entities.map((e) => `- **${e.name}**: ${describe(e)}${entityRef(e)}`).join('\n'));
      break;
    case 'table': {
      const rows = entities.map(
        (e) => `| ${e.name} | ${prng.pick(BEST_FOR)} | ${describe(e)}${entityRef(e)} |`,
      );
      parts.push(['| Tool | Best for | Notes |', '|---|---|---|', ...rows].join('\n'));
      break;
    }
    case 'sections':
      parts.push(
        entities.map((e, i) => `### ${i + 1}. ${e.name}\n\n${describe(e)}${entityRef(e)}`).join('\n\n'),
      );
      break;
    case 'prose':
      parts.push(
        entities
          .map((e) =>
            e.isBrand && script.brandTone
              ? `${describe(e)}${entityRef(e)}`
              : `${fill(prng.pick(PROSE_LINKS), { name: e.name, strength: e.strength })}${entityRef(e)}`,
          )
          .join(' '),
      );
      break;
  }

  const closing = prng.pick(CLOSINGS);
  if (closing) parts.push(closing);

  if (script.citationStyle === 'links' && script.sources.length > 0) {
    for (const s of script.sources) cite(s);
    parts.push(`Sources: ${script.sources.map((s) => `[${sourceLabel(s)}](${s})`).join(', ')}`);
  } else if (script.citationStyle === 'sources') {
    for (const s of script.sources) cite(s);
    if (cited.length > 0) parts.push(['Sources:', ...cited.map((url) => `- ${url}`)].join('\n'));
  } else if (script.citationStyle === 'footnotes' && cited.length > 0) {
    parts.push(['Sources:', ...cited.map((url, i) => `[${i + 1}] ${url}`)].join('\n'));
  }
  return { text: parts.join('\n\n'), citationUrls: cited };
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
