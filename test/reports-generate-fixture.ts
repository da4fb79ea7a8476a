import { refreshRunAggregates } from '../src/analytics/refresh.ts';
import type { Db } from '../src/db/connect.ts';
import { brandRow } from './support/brand-fixtures.ts';

// A small brand whose report figures are worked out by hand (test/reports-generate.test.ts):
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
const CREATED = '2026-01-01T00:00:00.000Z';

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

export async function seedReportFixture(db: Db): Promise<Fixture> {
  const org = await db
    .insertInto('organizations')
    .values({
      slug: 'acme',
      name: 'Acme Marketing',
      plan: 'pro',
      api_access: 1,
      timezone: 'UTC',
      free_report_used: 0,
      created_at: CREATED,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const orgId = org.id;
  const userEmail = 'alice@acme.example';
  const user = await db
    .insertInto('users')
    .values({ email: userEmail, name: 'Alice', created_at: CREATED })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('memberships')
    .values({ org_id: orgId, user_id: user.id, role: 'admin', created_at: CREATED })
    .execute();

  const brandOf = (name: string) => brandRow(orgId, { name, website: `https://${name.toLowerCase()}.io` });
  const brand = await db
    .insertInto('brands')
    .values(brandOf('Brightdesk'))
    .returning('id')
    .executeTakeFirstOrThrow();
  const empty = await db
    .insertInto('brands')
    .values(brandOf('Quietdesk'))
    .returning('id')
    .executeTakeFirstOrThrow();
  const brandId = brand.id;

  const categories = { c1: 0, c2: 0 };
  for (const [key, name] of [
    ['c1', 'Help desk software'],
    ['c2', 'Live chat'],
  ] as const) {
    const row = await db
      .insertInto('categories')
      .values({
        org_id: orgId,
        brand_id: brandId,
        name,
        description: '',
        is_archived: 0,
        created_at: CREATED,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    categories[key] = row.id;
  }
  const prompts = { p1: 0, p2: 0, p3: 0 };
  for (const [key, category, text] of [
    ['p1', 'c1', 'Best help desk for startups?'],
    ['p2', 'c1', 'Zendesk alternatives?'],
    ['p3', 'c2', 'Best live chat widget?'],
  ] as const) {
    const row = await db
      .insertInto('prompts')
      .values({
        org_id: orgId,
        brand_id: brandId,
        category_id: categories[category],
        text,
        is_monitored: 1,
        is_archived: 0,
        created_at: CREATED,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    prompts[key] = row.id;
  }
  const competitorIds = new Map<string, number>();
  for (const [name, category] of Object.entries(COMPETITORS)) {
    const row = await db
      .insertInto('competitors')
      .values({
        org_id: orgId,
        brand_id: brandId,
        category_id: categories[category],
        name,
        canonical_key: name.toLowerCase(),
        canonical_name: name,
        aliases: '[]',
        created_at: CREATED,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    competitorIds.set(name, row.id);
  }

  const runs: Record<string, number> = {};
  for (const spec of RUNS) {
    const run = await db
      .insertInto('runs')
      .values({
        org_id: orgId,
        brand_id: brandId,
        category_id: categories[spec.category],
        status: 'completed',
        methodology: 'sample_v1',
        is_legacy: 0,
        published_at: spec.finishedAt,
        started_at: spec.finishedAt,
        finished_at: spec.finishedAt,
        completed_prompts: 0,
        total_prompts: 0,
        created_at: spec.finishedAt,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    runs[spec.name] = run.id;
    for (const answer of spec.answers) {
      const mentioned = answer.rank !== undefined;
      const response = await db
        .insertInto('responses')
        .values({
          org_id: orgId,
          brand_id: brandId,
          category_id: categories[spec.category],
          run_id: run.id,
          prompt_id: prompts[answer.prompt],
          model: answer.model,
          model_label: LABELS[answer.model],
          surface: 'api',
          outcome: 'ok',
          methodology: 'sample_v1',
          has_mention_data: 1,
          sample_count: answer.weight ?? 1,
          mentioned: mentioned ? 1 : 0,
          rank: answer.rank ?? null,
          sentiment: mentioned ? (answer.sentiment ?? 'neutral') : null,
          answer_text: 'An answer.',
          answer_html: null,
          text_length: 10,
          captured_at: spec.finishedAt,
          created_at: spec.finishedAt,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      for (const [name, rank] of Object.entries(answer.competitors ?? {})) {
        await db
          .insertInto('response_mentions')
          .values({
            org_id: orgId,
            run_id: run.id,
            response_id: response.id,
            competitor_id: competitorIds.get(name) ?? null,
            is_brand: 0,
            name,
            rank,
          })
          .execute();
      }
      for (const [position, url] of (answer.urls ?? []).entries()) {
        await db
          .insertInto('response_citations')
          .values({
            org_id: orgId,
            run_id: run.id,
            response_id: response.id,
            url,
            domain: domainOf(url),
            position,
          })
          .execute();
      }
    }
  }
  await refreshRunAggregates(db, orgId, Object.values(runs));
  await seedRecommendations(db, orgId, brandId);

  return {
    orgId,
    brandId,
    emptyBrandId: empty.id,
    categories,
    prompts,
    runs,
    userId: user.id,
    userEmail,
  };
}

async function seedRecommendations(db: Db, orgId: number, brandId: number): Promise<void> {
  const rec = (id: string, title: string, status: string, priority: string, score: number) => ({
    id,
    org_id: orgId,
    brand_id: brandId,
    category_id: null,
    rec_type: 'content',
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
    dismissed_reason: '',
    created_at: CREATED,
    updated_at: CREATED,
  });
  await db
    .insertInto('recommendations')
    .values([
      rec('rec-compare', 'Publish a Brightdesk vs Zendesk comparison page', 'open', 'high', 88),
      rec('rec-g2', 'Collect reviews on G2', 'in_progress', 'medium', 70),
      rec('rec-schema', 'Add pricing structured data', 'open', 'low', 40),
      rec('rec-done', 'Launch the help centre', 'implemented', 'high', 95),
    ])
    .execute();
  await db
    .insertInto('recommendation_artifacts')
    .values({
      id: 'art-compare',
      org_id: orgId,
      recommendation_id: 'rec-compare',
      artifact_type: 'page_brief',
      title: 'Comparison page brief',
      body: 'Outline.',
      target_url: '',
      status: 'ready',
      generated_by_model: '',
      generation_prompt_version: '',
      published_at: null,
      created_at: CREATED,
      updated_at: CREATED,
    })
    .execute();
  await db
    .insertInto('recommendation_outcomes')
    .values({
      id: 'out-g2',
      org_id: orgId,
      recommendation_id: 'rec-g2',
      metric_name: 'mention_rate',
      metric_subject: 'g2.com',
      baseline_value: 0.4,
      current_value: 0.55,
      baseline_at: CREATED,
      measured_at: '2026-03-01T00:00:00.000Z',
      measurement_window_days: 28,
      attribution_confidence: 'medium',
      is_measured: 1,
      notes: '',
    })
    .execute();
}
