// What each answer engine said for each ask of a run: the outcome, the answer text and HTML, and
// the script behind the text. The brand's prominence drifts upward over the history and varies by
// prompt, model and category, so charts and comparisons have something to show.
import {
  type AnswerFormat,
  type AnswerScript,
  type ScriptEntity,
  type Tone,
  writeAnswer,
} from './answers.ts';
import type { BrandSpec, CategorySpec, ModelSpec } from './catalog.ts';
import { modelSpec } from './catalog.ts';
import { markdownToHtml } from './markdown.ts';
import type { Prng } from './prng.ts';
import type { Ask, RunPlan } from './timeline.ts';

export type Outcome = 'ok' | 'error' | 'empty' | 'no_result';

export interface Observation {
  ask: Ask;
  model: ModelSpec;
  outcome: Outcome;
  sampleCount: number;
  text: string | null;
  html: string | null;
  /** The recipe the text was written from: what it means to say. Null for answers without text. */
  script: AnswerScript | null;
  citationUrls: string[];
}

const FORMATS: Record<string, readonly AnswerFormat[]> = {
  chatgpt: ['numbered', 'numbered', 'table', 'sections', 'bullets'],
  perplexity: ['numbered', 'numbered', 'bullets', 'prose'],
  gemini: ['bullets', 'table', 'numbered'],
  claude: ['prose', 'numbered', 'numbered', 'sections'],
  copilot: ['bullets', 'bullets', 'numbered', 'prose'],
  google_ai_overview: ['bullets', 'prose', 'bullets'],
};

const PAGES = ['', 'pricing', 'features', 'customers', 'compare'];

/** Triangular noise in [-width, width]. */
function noise(prng: Prng, width: number): number {
  return (prng.next() + prng.next() - 1) * width;
}

function pageOf(website: string, prng: Prng): string {
  const page = prng.pick(PAGES);
  return page ? `${website.replace(/\/$/, '')}/${page}` : website;
}

/** Stable per-brand offsets of a category, a prompt and a model (each in [-0.15, 0.15]), summed. */
export function biasesOf(
  brand: BrandSpec,
  prng: Prng,
): (category: number, prompt: number, model: string) => number {
  const cache = new Map<string, number>();
  const bias = (label: string) => {
    let value = cache.get(label);
    if (value === undefined) {
      value = prng.derive(label).next() * 0.3 - 0.15;
      cache.set(label, value);
    }
    return value;
  };
  return (category, prompt, model) =>
    bias(`${brand.name}/category/${category}`) +
    bias(`${brand.name}/prompt/${category}/${prompt}`) +
    bias(`${brand.name}/model/${model}`);
}

function toneOf(rank: number, prng: Prng): Tone {
  const r = prng.next();
  if (r < 0.12) return 'negative';
  return r < (rank <= 2 ? 0.62 : 0.45) ? 'positive' : 'neutral';
}

function scriptFor(
  brand: BrandSpec,
  category: CategorySpec,
  model: ModelSpec,
  legacy: boolean,
  brandStrength: number,
  prng: Prng,
): AnswerScript {
  const citationStyle = legacy ? 'none' : model.citationStyle;
  const candidates = [
    {
      strength: brandStrength + noise(prng, 0.35),
      isBrand: true,
      name: brand.name,
      key: null,
      website: brand.website,
    },
    ...category.competitors.map((c, i) => ({
      strength: 1 - 0.07 * i + noise(prng, 0.35),
      isBrand: false,
      name: c.name,
      key: c.canonicalKey,
      website: c.website,
    })),
  ].sort((a, b) => b.strength - a.strength);
  const count = model.surface === 'ai_overview' ? prng.int(2, 4) : prng.int(3, 5);
  const entities: ScriptEntity[] = candidates.slice(0, count).map((c) => ({
    name: c.name,
    isBrand: c.isBrand,
    canonicalKey: c.key,
    url: citationStyle !== 'none' && prng.chance(0.4) ? pageOf(c.website, prng) : null,
    strength: prng.pick(category.strengths),
  }));
  const brandAt = entities.findIndex((e) => e.isBrand);
  const sources =
    citationStyle === 'none'
      ? []
      : prng.shuffle(category.sources).slice(0, prng.int(1, Math.min(2, category.sources.length)));
  return {
    topic: category.topic,
    format: legacy ? 'prose' : prng.pick(FORMATS[model.model] ?? ['numbered']),
    entities,
    brandTone: brandAt >= 0 ? toneOf(brandAt + 1, prng) : null,
    citationStyle,
    sources,
  };
}

/** One run's observations, in ask order. */
export function observeRun(
  brand: BrandSpec,
  run: RunPlan,
  historyDays: number,
  bias: (category: number, prompt: number, model: string) => number,
  prng: Prng,
): Observation[] {
  const category = brand.categories[run.categoryIndex];
  if (!category) throw new Error(`run ${run.externalId} has no category`);
  const legacy = run.methodology === 'legacy';
  const progress = Math.min(1, Math.max(0, (historyDays - run.daysAgo) / historyDays));
  return run.asks.map((ask) => {
    const model = modelSpec(ask.model);
    const r = prng.derive(`${run.externalId}/${ask.promptIndex}/${ask.model}/${ask.repeat}`);
    const roll = r.next();
    const outcome: Outcome =
      roll < model.noResultRate
        ? 'no_result'
        : roll < model.noResultRate + 0.02
          ? 'error'
          : roll < model.noResultRate + 0.032
            ? 'empty'
            : 'ok';
    const sampleCount = run.repeats > 1 ? 1 : r.int(1, model.maxSamples);
    const base = {
      ask,
      model,
      sampleCount,
      script: null,
      citationUrls: [],
    };
    if (outcome === 'empty') return { ...base, outcome, text: '', html: model.surface === 'api' ? null : '' };
    if (outcome !== 'ok' || ask.lostMentionData) return { ...base, outcome, text: null, html: null };
    const strength =
      brand.visibility + brand.trend * progress + bias(run.categoryIndex, ask.promptIndex, ask.model);
    const script = scriptFor(brand, category, model, legacy, strength, r);
    const answer = writeAnswer(script, r);
    return {
      ...base,
      outcome,
      text: answer.text,
      // Only answers read off a web page come with its HTML; API answers are plain markdown.
      html: model.surface === 'api' ? null : markdownToHtml(answer.text),
      script,
      citationUrls: answer.citationUrls,
    };
  });
}
