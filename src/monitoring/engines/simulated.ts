// A deterministic engine for the demo and tests: no network, and the same prompt and seed always
// give the same answer. It writes with the demo's answer writer: a markdown list ranking the
// brand and competitors named in the ask's context (sometimes without the brand, as real engines
// do), with cited pages. Asked for a draft, it writes a fixed-form brief or note from the draft's
// context, with no randomness at all, so a test can state the whole text.
import type { EngineConfig } from '../../config.ts';
import { type AnswerScript, type ScriptEntity, type Tone, writeAnswer } from '../../demo/answers.ts';
import { Prng } from '../../demo/prng.ts';
import type { AskRequest, DraftContext, EngineAdapter, VendorReply } from './types.ts';

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

const SIMULATED_NOTICE = "Simulated draft: written by Sightline's simulated engine, not by a language model.";
const list = new Intl.ListFormat('en', { type: 'conjunction' });

function draftText({ artifactType, brandName, subject, competitorNames }: DraftContext): string {
  const rivals = competitorNames.slice(0, 3);
  if (artifactType === 'outreach_note') {
    const coverage = rivals.length > 0 ? `Your coverage of ${list.format(rivals)}` : 'Your coverage';
    return [
      `Subject: ${brandName} for ${subject}`,
      '',
      SIMULATED_NOTICE,
      '',
      'Hello,',
      '',
      `${coverage} on ${subject} is one of the sources buyers read when they compare tools. We would like to offer ${brandName} for your next update: a demo account, current pricing and a customer you can speak to.`,
      '',
      'Best regards,',
      `The ${brandName} team`,
    ].join('\n');
  }
  const compared = rivals.length > 0 ? list.format(rivals) : 'the alternatives';
  return [
    `# ${subject}`,
    '',
    SIMULATED_NOTICE,
    '',
    '## Direct answer',
    `Open with a two-sentence answer to "${subject}" that names ${brandName} and the situation it fits best.`,
    '',
    '## Outline',
    '1. What to look for: the criteria buyers weigh.',
    `2. ${brandName} compared with ${compared}: a table of price, set-up time and integrations.`,
    '3. Questions buyers ask next, each answered in two sentences.',
    '',
    '## Evidence to add',
    'Dated figures, customer examples and independent reviews that engines can cite.',
  ].join('\n');
}

export function simulatedDraft(request: AskRequest & { draft: DraftContext }): VendorReply {
  const text = draftText(request.draft);
  return {
    kind: 'answer',
    text,
    sources: [],
    vendorModel: 'simulated',
    usage: { inputTokens: Math.ceil(request.prompt.length / 4), outputTokens: Math.ceil(text.length / 4) },
    webSearches: 0,
  };
}

export function simulatedAdapter(config: EngineConfig): EngineAdapter {
  return {
    name: 'simulated',
    model: config.model,
    call: async (request) =>
      request.draft ? simulatedDraft({ ...request, draft: request.draft }) : simulatedAnswer(request),
  };
}
