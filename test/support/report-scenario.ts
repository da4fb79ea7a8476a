import type { Db } from '../../src/db/connect.ts';
import {
  BrandFixture,
  insertBrand,
  insertOrg,
  insertRecommendationArtifact,
  insertRecommendationOutcome,
  insertUser,
  type Answer as StoredAnswer,
} from './fixtures.ts';

// A small brand whose report figures are worked out by hand (test/reports-generate*.test.ts), built
// on the fixture builder:
// Brightdesk, two categories, three prompts, two answer engines, five published runs.
//
// Observation value v: not mentioned 0; mentioned without rank 0.5; rank r → 1 − 0.15(r − 1).
// Every answer has weight 1 except R4's ChatGPT answer (weight 2).
//
//   run  category  finished          prompt  ChatGPT                    Perplexity
//   R1   c1        2026-02-01 12:00  p1      not mentioned              rank 3 neutral
//                                    p2      rank 2 neutral             not mentioned
//   R2   c2        2026-02-01 12:00  p3      rank 1 positive            not mentioned
//   R3   c1        2026-03-01 12:00  p1      rank 2 positive            rank 1 positive
//                                    p2      rank 3 neutral             not mentioned
//   R4   c2        2026-03-05 12:00  p3      rank 1 positive (w2)       mentioned, no rank, negative
//   R5   c1        2026-03-15 12:00  p1      rank 1 positive            rank 1 positive
//                                    p2      rank 2 neutral             rank 4 negative
//
// Competitors named (rank): Zendesk and Freshdesk in c1, Intercom in c2 — see RUNS below.

export const NOW = new Date('2026-03-16T12:00:00.000Z');
/** When generation finishes: the download file names carry this date. */
export const DONE = new Date('2026-03-16T12:05:00.000Z');

type Model = 'gpt-4o' | 'sonar';
const LABELS: Record<Model, string> = { 'gpt-4o': 'ChatGPT', sonar: 'Perplexity' };

interface Answer {
  prompt: 'p1' | 'p2' | 'p3';
  model: Model;
  rank?: number | null;
  sentiment?: 'positive' | 'neutral' | 'negative';
  weight?: number;
  competitors?: Record<string, number>;
  urls?: string[];
}

interface RunSpec {
  name: string;
  category: 'c1' | 'c2';
  finishedAt: string;
  answers: Answer[];
}

// `rank` undefined: not mentioned; null: mentioned without a rank.
const RUNS: RunSpec[] = [
  {
    name: 'R1',
    category: 'c1',
    finishedAt: '2026-02-01T12:00:00.000Z',
    answers: [
      { prompt: 'p1', model: 'gpt-4o', competitors: { Zendesk: 1 }, urls: ['https://www.g2.com/a'] },
      {
        prompt: 'p1',
        model: 'sonar',
        rank: 3,
        sentiment: 'neutral',
        competitors: { Zendesk: 1 },
        urls: ['https://g2.com/b'],
      },
      {
        prompt: 'p2',
        model: 'gpt-4o',
        rank: 2,
        sentiment: 'neutral',
        competitors: { Zendesk: 1, Freshdesk: 3 },
        urls: ['https://capterra.com/x'],
      },
      { prompt: 'p2', model: 'sonar', competitors: { Zendesk: 1 } },
    ],
  },
  {
    name: 'R2',
    category: 'c2',
    finishedAt: '2026-02-01T12:00:00.000Z',
    answers: [
      { prompt: 'p3', model: 'gpt-4o', rank: 1, sentiment: 'positive', competitors: { Intercom: 2 } },
      { prompt: 'p3', model: 'sonar', competitors: { Intercom: 1 } },
    ],
  },
  {
    name: 'R3',
    category: 'c1',
    finishedAt: '2026-03-01T12:00:00.000Z',
    answers: [
      {
        prompt: 'p1',
        model: 'gpt-4o',
        rank: 2,
        sentiment: 'positive',
        competitors: { Zendesk: 1 },
        urls: ['https://www.g2.com/a', 'https://brightdesk.io/pricing'],
      },
      {
        prompt: 'p1',
        model: 'sonar',
        rank: 1,
        sentiment: 'positive',
        competitors: { Zendesk: 2 },
        urls: ['https://reddit.com/r/helpdesk'],
      },
      {
        prompt: 'p2',
        model: 'gpt-4o',
        rank: 3,
        sentiment: 'neutral',
        competitors: { Zendesk: 1, Freshdesk: 2 },
        urls: ['https://capterra.com/x'],
      },
      { prompt: 'p2', model: 'sonar', competitors: { Zendesk: 1, Freshdesk: 2 }, urls: ['https://g2.com/b'] },
    ],
  },
  {
    name: 'R4',
    category: 'c2',
    finishedAt: '2026-03-05T12:00:00.000Z',
    answers: [
      {
        prompt: 'p3',
        model: 'gpt-4o',
        rank: 1,
        sentiment: 'positive',
        weight: 2,
        competitors: { Intercom: 2 },
      },
      {
        prompt: 'p3',
        model: 'sonar',
        rank: null,
        sentiment: 'negative',
        competitors: { Intercom: 1 },
        urls: ['https://g2.com/c'],
      },
    ],
  },
  {
    name: 'R5',
    category: 'c1',
    finishedAt: '2026-03-15T12:00:00.000Z',
    answers: [
      {
        prompt: 'p1',
        model: 'gpt-4o',
        rank: 1,
        sentiment: 'positive',
        competitors: { Zendesk: 2 },
        urls: ['https://www.g2.com/a'],
      },
      {
        prompt: 'p1',
        model: 'sonar',
        rank: 1,
        sentiment: 'positive',
        urls: ['https://news.ycombinator.com/item'],
      },
      { prompt: 'p2', model: 'gpt-4o', rank: 2, sentiment: 'neutral', competitors: { Zendesk: 1 } },
      {
        prompt: 'p2',
        model: 'sonar',
        rank: 4,
        sentiment: 'negative',
        competitors: { Zendesk: 1, Freshdesk: 2 },
      },
    ],
  },
];

const COMPETITORS: Record<string, 'c1' | 'c2'> = { Zendesk: 'c1', Freshdesk: 'c1', Intercom: 'c2' };

export interface Fixture {
  orgId: number;
  brandId: number;
  /** A brand of the same organization with no monitoring data at all. */
  emptyBrandId: number;
  categories: { c1: number; c2: number };
  prompts: { p1: number; p2: number; p3: number };
  runs: Record<string, number>;
  userId: number;
  userEmail: string;
}

function domainOf(url: string): string {
  return new URL(url).hostname.replace(/^www\./, '').replace(/^news\./, '');
}

/** A RUNS answer as stored: `rank` undefined is no mention; a mention is neutral unless told. */
function stored(
  answer: Answer,
  prompts: Fixture['prompts'],
  competitorIds: Map<string, number>,
): StoredAnswer {
  const mentioned = answer.rank !== undefined;
  return {
    prompt: prompts[answer.prompt],
    model: answer.model,
    modelLabel: LABELS[answer.model],
    weight: answer.weight,
    mentioned,
    rank: answer.rank ?? null,
    sentiment: mentioned ? (answer.sentiment ?? 'neutral') : null,
    text: 'An answer.',
    mentions: Object.entries(answer.competitors ?? {}).map(([name, rank]) => ({
      competitor: competitorIds.get(name) ?? null,
      name,
      rank,
    })),
    citations: (answer.urls ?? []).map((url) => ({ url, domain: domainOf(url) })),
  };
}

export async function seedReportFixture(db: Db): Promise<Fixture> {
  const orgId = await insertOrg(db, 'acme', { name: 'Acme Marketing' });
  const userEmail = 'alice@acme.example';
  const userId = await insertUser(db, {
    email: userEmail,
    name: 'Alice',
    memberOf: { orgId, role: 'admin' },
  });

  const site = (name: string) => ({ name, website: `https://${name.toLowerCase()}.io` });
  const brand = await BrandFixture.insert(db, orgId, site('Brightdesk'));
  const emptyBrandId = await insertBrand(db, orgId, site('Quietdesk'));

  const categories = {
    c1: await brand.category('Help desk software'),
    c2: await brand.category('Live chat'),
  };
  const prompts = {
    p1: await brand.prompt(categories.c1, { text: 'Best help desk for startups?' }),
    p2: await brand.prompt(categories.c1, { text: 'Zendesk alternatives?' }),
    p3: await brand.prompt(categories.c2, { text: 'Best live chat widget?' }),
  };
  const competitorIds = new Map<string, number>();
  for (const [name, category] of Object.entries(COMPETITORS)) {
    competitorIds.set(name, await brand.competitor(categories[category], name));
  }

  const runs: Record<string, number> = {};
  for (const spec of RUNS) {
    runs[spec.name] = await brand.run({
      category: categories[spec.category],
      finishedAt: spec.finishedAt,
      answers: spec.answers.map((answer) => stored(answer, prompts, competitorIds)),
    });
  }
  await seedRecommendations(db, brand);

  return {
    orgId,
    brandId: brand.brandId,
    emptyBrandId,
    categories,
    prompts,
    runs,
    userId,
    userEmail,
  };
}

async function seedRecommendations(db: Db, brand: BrandFixture): Promise<void> {
  const rec = (id: string, title: string, status: string, priority: string, score: number) =>
    brand.recommendation(id, {
      title,
      status,
      priority,
      score,
      why: `Why: ${title}.`,
      suggested_action: `Do: ${title}.`,
      expected_impact: 'More mentions on comparison prompts.',
      measurement_plan: 'Mention rate on the comparison prompts, weekly.',
      impact: 0.8,
      effort: 0.3,
      confidence: 0.6,
    });
  await rec('rec-compare', 'Publish a Brightdesk vs Zendesk comparison page', 'open', 'high', 88);
  await rec('rec-g2', 'Collect reviews on G2', 'in_progress', 'medium', 70);
  await rec('rec-schema', 'Add pricing structured data', 'open', 'low', 40);
  await rec('rec-done', 'Launch the help centre', 'implemented', 'high', 95);
  await insertRecommendationArtifact(db, brand.orgId, {
    id: 'art-compare',
    recommendation_id: 'rec-compare',
    artifact_type: 'page_brief',
    title: 'Comparison page brief',
    body: 'Outline.',
    status: 'ready',
  });
  await insertRecommendationOutcome(db, brand.orgId, {
    id: 'out-g2',
    recommendation_id: 'rec-g2',
    metric_name: 'mention_rate',
    metric_subject: 'g2.com',
    baseline_value: 0.4,
    current_value: 0.55,
    baseline_at: '2026-01-01T00:00:00.000Z',
    measured_at: '2026-03-01T00:00:00.000Z',
    measurement_window_days: 28,
    attribution_confidence: 'medium',
    is_measured: 1,
    notes: '',
  });
}
