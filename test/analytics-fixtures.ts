import { refreshRunAggregates } from '../src/analytics/refresh.ts';
import { buildApp } from '../src/app.ts';
import type { Db } from '../src/db/connect.ts';
import type { App } from '../src/http/types.ts';
import { brandRow } from './support/brand-fixtures.ts';
import type { TestContext } from './support/context.ts';

// Small hand-built monitoring data for the analytics tests: every row is written directly, so each
// expected figure can be worked out by hand from what the test wrote.

const CREATED = '2025-01-01T00:00:00.000Z';

/** An app on the test database whose "now" is whatever the test sets `clock.now` to. */
export async function appWithClock(
  ctx: TestContext,
  now: string,
): Promise<{ app: App; clock: { now: Date } }> {
  const clock = { now: new Date(now) };
  const app = await buildApp(ctx.config, { databases: ctx.dbs, logger: false, clock: () => clock.now });
  await app.ready();
  return { app, clock };
}

export interface Answer {
  prompt: number;
  model?: string;
  modelLabel?: string;
  surface?: string;
  outcome?: 'ok' | 'error' | 'empty' | 'no_result';
  methodology?: string;
  hasMentionData?: boolean;
  weight?: number;
  mentioned?: boolean;
  rank?: number | null;
  sentiment?: 'positive' | 'neutral' | 'negative' | null;
  /** Competitor ids named in the answer, with their rank (null: unranked). */
  competitors?: [number, number | null][];
  urls?: string[];
}

export interface RunOptions {
  category: number;
  finishedAt: string;
  status?: string;
  legacy?: boolean;
  published?: boolean;
  answers: Answer[];
}

export class Fixture {
  readonly db: Db;
  readonly orgId: number;
  readonly brandId: number;

  constructor(db: Db, orgId: number, brandId: number) {
    this.db = db;
    this.orgId = orgId;
    this.brandId = brandId;
  }

  static async create(db: Db, orgId: number, brandName = 'Acme'): Promise<Fixture> {
    const brand = await db
      .insertInto('brands')
      .values(
        brandRow(orgId, {
          name: brandName,
          website: 'https://acme.example',
          created_at: CREATED,
          updated_at: CREATED,
        }),
      )
      .returning('id')
      .executeTakeFirstOrThrow();
    return new Fixture(db, orgId, brand.id);
  }

  async category(name = 'Category', archived = false): Promise<number> {
    const row = await this.db
      .insertInto('categories')
      .values({
        org_id: this.orgId,
        brand_id: this.brandId,
        name,
        description: '',
        is_archived: archived ? 1 : 0,
        created_at: CREATED,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async prompt(category: number, options: { monitored?: boolean; archived?: boolean } = {}): Promise<number> {
    const row = await this.db
      .insertInto('prompts')
      .values({
        org_id: this.orgId,
        brand_id: this.brandId,
        category_id: category,
        text: 'Which tool is best?',
        external_key: null,
        is_monitored: options.monitored === false ? 0 : 1,
        is_archived: options.archived ? 1 : 0,
        created_at: CREATED,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async competitor(category: number, name: string, canonicalKey = name.toLowerCase()): Promise<number> {
    const row = await this.db
      .insertInto('competitors')
      .values({
        org_id: this.orgId,
        brand_id: this.brandId,
        category_id: category,
        name,
        canonical_key: canonicalKey,
        canonical_name: name,
        aliases: '[]',
        created_at: CREATED,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  /** Writes a run with its answers, mentions and citations, then refreshes its aggregates. */
  async run(options: RunOptions): Promise<number> {
    const legacy = options.legacy ?? false;
    const run = await this.db
      .insertInto('runs')
      .values({
        org_id: this.orgId,
        brand_id: this.brandId,
        category_id: options.category,
        external_id: null,
        status: options.status ?? 'completed',
        methodology: legacy ? 'legacy' : 'sample_v1',
        is_legacy: legacy ? 1 : 0,
        published_at: options.published === false || legacy ? null : options.finishedAt,
        started_at: options.finishedAt,
        finished_at: options.finishedAt,
        completed_prompts: 0,
        total_prompts: 0,
        created_at: options.finishedAt,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const prompt of new Set(options.answers.map((a) => a.prompt))) {
      await this.db
        .insertInto('run_prompts')
        .values({ org_id: this.orgId, run_id: run.id, prompt_id: prompt })
        .execute();
    }
    for (const a of options.answers) {
      const mentioned = a.mentioned ?? false;
      const response = await this.db
        .insertInto('responses')
        .values({
          org_id: this.orgId,
          brand_id: this.brandId,
          category_id: options.category,
          run_id: run.id,
          prompt_id: a.prompt,
          external_key: null,
          model: a.model ?? 'chatgpt',
          model_label: a.modelLabel ?? 'ChatGPT',
          surface: a.surface ?? 'api',
          outcome: a.outcome ?? 'ok',
          methodology: a.methodology ?? (legacy ? 'legacy' : 'sample_v1'),
          has_mention_data: a.hasMentionData === false ? 0 : 1,
          sample_count: a.weight ?? 1,
          mentioned: mentioned ? 1 : 0,
          rank: mentioned ? (a.rank ?? null) : null,
          sentiment: mentioned ? (a.sentiment ?? null) : null,
          answer_text: 'answer',
          answer_html: null,
          text_length: 6,
          captured_at: options.finishedAt,
          created_at: options.finishedAt,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      for (const [competitor, rank] of a.competitors ?? []) {
        await this.db
          .insertInto('response_mentions')
          .values({
            org_id: this.orgId,
            run_id: run.id,
            response_id: response.id,
            competitor_id: competitor,
            is_brand: 0,
            name: 'competitor',
            rank,
          })
          .execute();
      }
      for (const [position, url] of (a.urls ?? []).entries()) {
        await this.db
          .insertInto('response_citations')
          .values({
            org_id: this.orgId,
            run_id: run.id,
            response_id: response.id,
            url,
            domain: new URL(url).hostname,
            position,
          })
          .execute();
      }
    }
    await refreshRunAggregates(this.db, this.orgId, run.id);
    return run.id;
  }
}
