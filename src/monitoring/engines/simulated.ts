// A deterministic engine for the demo and tests: no network, and the same prompt and seed always
// give the same answer. It writes with the demo's answer writer: a markdown list ranking the
// brand and competitors named in the ask's context (sometimes without the brand, as real engines
// do), with cited pages.
import type { EngineConfig } from '../../config.ts';
import { type AnswerScript, type ScriptEntity, type Tone, writeAnswer } from '../../demo/answers.ts';
import { Prng } from '../../demo/prng.ts';
import type { AskRequest, EngineAdapter, VendorReply } from './types.ts';

const STRENGTHS = [
  'a clean interface',
  'strong automation',
  'flexible pricing',
  'solid integrations',
  'fast onboarding',
  'detailed reporting',
];
const TONES: readonly Tone[] = ['positive', 'positive', 'neutral', 'neutral', 'negative'];
const EDITORIAL = [
  'https://www.g2.com/categories/',
  'https://www.capterra.com/',
  'https://www.techradar.com/best/',
  'https://www.pcmag.com/picks/',
  'https://www.reddit.com/r/software/',
];

function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'tools'
  );
}

export function simulatedAnswer(request: AskRequest): VendorReply {
  const prng = new Prng(`simulated/${request.seed ?? ''}/${request.prompt}`);
  const brand = request.context?.brandName?.trim();
  const competitors = (request.context?.competitorNames ?? []).map((n) => n.trim()).filter(Boolean);
  const names = [
    ...(brand && !prng.chance(0.25) ? [{ name: brand, isBrand: true }] : []),
    ...competitors.map((name) => ({ name, isBrand: false })),
  ];
  const entities: ScriptEntity[] = prng
    .shuffle(names)
    .slice(0, 5)
    .map((e) => ({
      name: e.name,
      isBrand: e.isBrand,
      canonicalKey: e.isBrand ? null : slug(e.name),
      url: prng.chance(0.5) ? `https://www.${slug(e.name)}.com/` : null,
      strength: prng.pick(STRENGTHS),
    }));
  const topic = slug(request.prompt).split('-').slice(0, 6).join('-');
  const script: AnswerScript = {
    topic: 'tools',
    format: prng.pick(['numbered', 'bullets'] as const),
    entities,
    brandTone: entities.some((e) => e.isBrand) ? prng.pick(TONES) : null,
    citationStyle: prng.pick(['footnotes', 'sources', 'links'] as const),
    sources: prng
      .shuffle(EDITORIAL)
      .slice(0, prng.int(1, 2))
      .map((page) => `${page}${topic}`),
  };
  const answer = writeAnswer(script, prng);
  return {
    kind: 'answer',
    text: answer.text,
    sources: answer.citationUrls.map((url) => ({ url, title: new URL(url).hostname.replace(/^www\./, '') })),
    vendorModel: 'simulated',
    // Roughly four characters a token, so the token limits and cost have something to count.
    usage: {
      inputTokens: Math.ceil(request.prompt.length / 4),
      outputTokens: Math.ceil(answer.text.length / 4),
    },
    webSearches: 1,
  };
}

export function simulatedAdapter(config: EngineConfig): EngineAdapter {
  return {
    name: 'simulated',
    model: config.model,
    call: async (request) => simulatedAnswer(request),
  };
}
