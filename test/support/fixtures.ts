import type { Insertable } from 'kysely';
import { refreshRunAggregates } from '../../src/analytics/refresh.ts';
import { generateKey, hashSecret } from '../../src/auth/keys.ts';
import { KINDS } from '../../src/db/aggregate-kinds.ts';
import { createBrand } from '../../src/db/catalog/brands.ts';
import { createCategory } from '../../src/db/catalog/categories.ts';
import { addCompetitor } from '../../src/db/catalog/competitors.ts';
import { createPrompt } from '../../src/db/catalog/prompts.ts';
import type { Db } from '../../src/db/connect.ts';
import type {
  BrandsTable,
  Database,
  RecommendationArtifactsTable,
  RecommendationOutcomesTable,
  RecommendationsTable,
  ReportArtifactsTable,
  RunsTable,
} from '../../src/db/types.ts';
import { SCOPES, type Scope } from '../../src/domain/scopes.ts';

// The one place tests write rows. Every helper fills the columns a test does not care about with
// neutral defaults and stores exactly what it is given (no derived or masked values), so a suite's
// hand-worked figures follow from the arguments it passes. Monitoring data hangs off a brand:
// `BrandFixture` writes its categories, prompts, competitors, runs and answers.

export const CREATED = '2026-01-01T00:00:00.000Z';

/** Every table an answer import writes: its runs and answers, and everything derived from them. */
export const IMPORT_TABLES: (keyof Database)[] = [
  'runs',
  'responses',
  'response_mentions',
  'response_citations',
  'run_prompts',
  'run_prompt_scores',
  'recent_prompt_scores',
  'competitor_candidates',
  ...KINDS.flatMap((kind) => [`agg_run_${kind}`, `agg_block_${kind}`] as (keyof Database)[]),
];

/**
 * What the answer-import tests import into, set up as an operator would (the catalog's own
 * functions): organizations acme and globex; acme's brand Acmeflow (key `acmeflow`) with the
 * categories CRM (`crm`: prompts `best-crm`, `cheap-crm` and the unmonitored `api-crm`; competitors
 * Globex and Initech Suite, alias Initech) and Email (`email`: prompt `email-tool`).
 */
export async function seedImportCatalog(
  db: Db,
): Promise<{ orgId: number; brandId: number; crm: number; email: number }> {
  const orgId = await insertOrg(db, 'acme');
  await insertOrg(db, 'globex');
  const brand = await createBrand(db, orgId, {
    name: 'Acmeflow',
    website: 'https://www.acmeflow.com',
    externalKey: 'acmeflow',
  });
  const crm = await createCategory(db, brand, { name: 'CRM', externalKey: 'crm' });
  const email = await createCategory(db, brand, { name: 'Email', externalKey: 'email' });
  await createPrompt(db, crm, { text: 'Best CRM for startups?', externalKey: 'best-crm' });
  await createPrompt(db, crm, { text: 'Cheapest good CRM?', externalKey: 'cheap-crm' });
  await createPrompt(db, crm, { text: 'CRM with the best API?', externalKey: 'api-crm', monitored: false });
  await createPrompt(db, email, { text: 'Best email tool?', externalKey: 'email-tool' });
  await addCompetitor(db, brand, crm, { name: 'Globex' });
  await addCompetitor(db, brand, crm, { name: 'Initech Suite', aliases: ['Initech'] });
  return { orgId, brandId: brand.id, crm: crm.id, email: email.id };
}

/** The rows each of `tables` holds, by table name. */
export async function countRows(
  db: Db,
  tables: readonly (keyof Database)[],
): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of tables) {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    counts[table] = Number(row.n);
  }
  return counts;
}

export async function insertOrg(
  db: Db,
  slug: string,
  values: {
    name?: string;
    plan?: string;
    apiAccess?: boolean;
    timezone?: string;
    freeReportUsed?: boolean;
  } = {},
): Promise<number> {
  const row = await db
    .insertInto('organizations')
    .values({
      slug,
      name: values.name ?? slug.toUpperCase(),
      plan: values.plan ?? 'pro',
      api_access: values.apiAccess === false ? 0 : 1,
      timezone: values.timezone ?? 'UTC',
      free_report_used: values.freeReportUsed ? 1 : 0,
      created_at: CREATED,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Mints a key for an organization and returns the full key text. */
export async function mintKey(
  db: Db,
  orgId: number,
  options: {
    scopes?: readonly Scope[];
    expiresAt?: string | null;
    revokedAt?: string | null;
    pepper?: string;
  } = {},
): Promise<string> {
  const { key, keyId, secret } = generateKey();
  await db
    .insertInto('api_keys')
    .values({
      org_id: orgId,
      key_id: keyId,
      name: 'test',
      secret_hash: hashSecret(secret, options.pepper),
      scopes: (options.scopes ?? SCOPES).join(' '),
      created_by_user_id: null,
      created_at: new Date().toISOString(),
      last_used_at: null,
      expires_at: options.expiresAt ?? null,
      revoked_at: options.revokedAt ?? null,
    })
    .execute();
  return key;
}

/** A user, optionally a member of an organization. */
export async function insertUser(
  db: Db,
  values: { email: string; name: string; memberOf?: { orgId: number; role: string } },
): Promise<number> {
  const user = await db
    .insertInto('users')
    .values({ email: values.email, name: values.name, created_at: CREATED })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (values.memberOf) {
    await db
      .insertInto('memberships')
      .values({
        org_id: values.memberOf.orgId,
        user_id: user.id,
        role: values.memberOf.role,
        created_at: CREATED,
      })
      .execute();
  }
  return user.id;
}

/** A brands row with neutral defaults; `values` override any column. */
export async function insertBrand(
  db: Db,
  orgId: number,
  values: Partial<Insertable<BrandsTable>> = {},
): Promise<number> {
  const row = await db
    .insertInto('brands')
    .values({
      org_id: orgId,
      name: 'Brand',
      website: '',
      aliases: '[]',
      status: 'active',
      is_demo: 0,
      executive_summary: '',
      monitoring_interval_hours: 24,
      created_at: CREATED,
      updated_at: CREATED,
      ...values,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** A competitor named in an answer; `competitor` null for a name matched to no competitor. */
export interface Mention {
  competitor: number | null;
  rank: number | null;
  isBrand?: boolean;
  name?: string;
}

/** A cited URL; its stored domain is the URL's host unless given. */
export type Citation = string | { url: string; domain: string };

/** One responses row: an answer of one model to one prompt. */
export interface Answer {
  prompt: number;
  model?: string;
  modelLabel?: string;
  surface?: string;
  outcome?: 'ok' | 'error' | 'empty' | 'no_result';
  /** The run's methodology unless given. */
  methodology?: string;
  hasMentionData?: boolean;
  /** sample_count; 1 by default. */
  weight?: number;
  mentioned?: boolean;
  rank?: number | null;
  sentiment?: string | null;
  text?: string | null;
  html?: string | null;
  /** The run's finish (or CREATED) unless given. */
  capturedAt?: string;
  createdAt?: string;
  mentions?: Mention[];
  citations?: Citation[];
}

/** The same answer `n` times: a prompt asked n times with the same result. */
export const times = (n: number, answer: Answer): Answer[] => Array.from({ length: n }, () => answer);

export interface RunSpec {
  category: number;
  status?: string;
  /** Also the run's start, creation and (unless legacy or unpublished) publication time. */
  finishedAt?: string | null;
  legacy?: boolean;
  /** true (the default): published at `finishedAt`; a string: published then. */
  published?: boolean | string;
  /** run_prompts rows; by default the prompts the answers are about. */
  prompts?: readonly number[];
  /** Written with the run, whose aggregates are then refreshed. */
  answers?: readonly Answer[];
  /** Columns stored as given (a queued run's creation, a running run's progress, ...). */
  columns?: Partial<Omit<Insertable<RunsTable>, 'org_id' | 'brand_id' | 'category_id'>>;
}

/** Monitoring data of one brand: categories, prompts, competitors, runs and their answers. */
export class BrandFixture {
  readonly db: Db;
  readonly orgId: number;
  readonly brandId: number;

  constructor(db: Db, orgId: number, brandId: number) {
    this.db = db;
    this.orgId = orgId;
    this.brandId = brandId;
  }

  static async insert(
    db: Db,
    orgId: number,
    values: Partial<Insertable<BrandsTable>> = {},
  ): Promise<BrandFixture> {
    return new BrandFixture(db, orgId, await insertBrand(db, orgId, values));
  }

  async category(
    name = 'Category',
    values: { description?: string; archived?: boolean; createdAt?: string } = {},
  ): Promise<number> {
    const row = await this.db
      .insertInto('categories')
      .values({
        org_id: this.orgId,
        brand_id: this.brandId,
        name,
        description: values.description ?? '',
        is_archived: values.archived ? 1 : 0,
        created_at: values.createdAt ?? CREATED,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async prompt(
    category: number,
    values: { text?: string; monitored?: boolean; archived?: boolean } = {},
  ): Promise<number> {
    const row = await this.db
      .insertInto('prompts')
      .values({
        org_id: this.orgId,
        brand_id: this.brandId,
        category_id: category,
        text: values.text ?? 'Which tool is best?',
        external_key: null,
        is_monitored: values.monitored === false ? 0 : 1,
        is_archived: values.archived ? 1 : 0,
        created_at: CREATED,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async competitor(
    category: number,
    name: string,
    values: { canonicalKey?: string; canonicalName?: string } = {},
  ): Promise<number> {
    const row = await this.db
      .insertInto('competitors')
      .values({
        org_id: this.orgId,
        brand_id: this.brandId,
        category_id: category,
        name,
        canonical_key: values.canonicalKey ?? name.toLowerCase(),
        canonical_name: values.canonicalName ?? name,
        aliases: '[]',
        created_at: CREATED,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async run(spec: RunSpec): Promise<number> {
    const legacy = spec.legacy ?? false;
    const finishedAt = spec.finishedAt ?? null;
    const published = spec.published ?? true;
    const run = await this.db
      .insertInto('runs')
      .values({
        org_id: this.orgId,
        brand_id: this.brandId,
        category_id: spec.category,
        external_id: null,
        status: spec.status ?? 'completed',
        methodology: legacy ? 'legacy' : 'sample_v1',
        is_legacy: legacy ? 1 : 0,
        published_at: typeof published === 'string' ? published : published && !legacy ? finishedAt : null,
        started_at: finishedAt,
        finished_at: finishedAt,
        completed_prompts: 0,
        total_prompts: 0,
        created_at: finishedAt ?? CREATED,
        ...spec.columns,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const prompt of spec.prompts ?? new Set((spec.answers ?? []).map((a) => a.prompt))) {
      await this.db
        .insertInto('run_prompts')
        .values({ org_id: this.orgId, run_id: run.id, prompt_id: prompt })
        .execute();
    }
    if (spec.answers) {
      for (const answer of spec.answers) await this.response(run.id, answer);
      await refreshRunAggregates(this.db, this.orgId, run.id);
    }
    return run.id;
  }

  /** Adds an answer to a run; the caller refreshes the run's aggregates if it needs them. */
  async response(runId: number, a: Answer): Promise<number> {
    const run = await this.db
      .selectFrom('runs')
      .select(['category_id', 'methodology', 'finished_at'])
      .where('id', '=', runId)
      .executeTakeFirstOrThrow();
    const at = run.finished_at ?? CREATED;
    const text = a.text === undefined ? 'answer' : a.text;
    const response = await this.db
      .insertInto('responses')
      .values({
        org_id: this.orgId,
        brand_id: this.brandId,
        category_id: run.category_id,
        run_id: runId,
        prompt_id: a.prompt,
        external_key: null,
        model: a.model ?? 'chatgpt',
        model_label: a.modelLabel ?? 'ChatGPT',
        surface: a.surface ?? 'api',
        outcome: a.outcome ?? 'ok',
        methodology: a.methodology ?? run.methodology,
        has_mention_data: a.hasMentionData === false ? 0 : 1,
        sample_count: a.weight ?? 1,
        mentioned: a.mentioned ? 1 : 0,
        rank: a.rank ?? null,
        sentiment: a.sentiment ?? null,
        answer_text: text,
        answer_html: a.html ?? null,
        text_length: text?.length ?? 0,
        captured_at: a.capturedAt ?? at,
        created_at: a.createdAt ?? at,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const m of a.mentions ?? []) {
      await this.db
        .insertInto('response_mentions')
        .values({
          org_id: this.orgId,
          run_id: runId,
          response_id: response.id,
          competitor_id: m.competitor,
          is_brand: m.isBrand ? 1 : 0,
          name: m.name ?? 'competitor',
          rank: m.rank,
        })
        .execute();
    }
    for (const [position, citation] of (a.citations ?? []).entries()) {
      const { url, domain } =
        typeof citation === 'string' ? { url: citation, domain: new URL(citation).hostname } : citation;
      await this.db
        .insertInto('response_citations')
        .values({ org_id: this.orgId, run_id: runId, response_id: response.id, url, domain, position })
        .execute();
    }
    return response.id;
  }

  /** A recommendation of this brand with neutral defaults; `values` override any column. */
  async recommendation(id: string, values: Partial<Insertable<RecommendationsTable>> = {}): Promise<void> {
    await this.db
      .insertInto('recommendations')
      .values({
        id,
        org_id: this.orgId,
        brand_id: this.brandId,
        category_id: null,
        rec_type: 'content',
        title: id,
        status: 'open',
        priority: 'medium',
        score: 50,
        why: '',
        suggested_action: '',
        expected_impact: '',
        measurement_plan: '',
        impact: 0,
        effort: 0,
        confidence: 0,
        dismissed_reason: '',
        created_at: CREATED,
        updated_at: values.created_at ?? CREATED,
        ...values,
      })
      .execute();
  }
}

/** A report artifact; the unlisted columns take the migration's defaults. */
export async function insertReportArtifact(
  db: Db,
  orgId: number,
  values: Pick<Insertable<ReportArtifactsTable>, 'brand_id' | 'report_type' | 'status' | 'created_at'> &
    Partial<Insertable<ReportArtifactsTable>>,
): Promise<number> {
  const row = await db
    .insertInto('report_artifacts')
    .values({
      org_id: orgId,
      category_id: null,
      format: 'pdf',
      completed_at: null,
      error_message: '',
      agent_name: '',
      agent_version: '',
      cost_usd: '0.00',
      kg_generation_job: '',
      evidence_refs_count: 0,
      is_branded: 0,
      aborted_reason: '',
      generated_by_user_id: null,
      ...values,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** A stored file (PDF, HTML, ...) of a report artifact. */
export async function insertReportFile(
  db: Db,
  orgId: number,
  artifactId: number,
  file: { kind: string; contentType: string; content: Buffer },
): Promise<void> {
  await db
    .insertInto('report_files')
    .values({
      org_id: orgId,
      artifact_id: artifactId,
      kind: file.kind,
      content_type: file.contentType,
      byte_length: file.content.length,
      content: file.content,
    })
    .execute();
}

/** An artifact (page brief, FAQ page, ...) of a recommendation. */
export async function insertRecommendationArtifact(
  db: Db,
  orgId: number,
  values: Pick<Insertable<RecommendationArtifactsTable>, 'id' | 'recommendation_id'> &
    Partial<Insertable<RecommendationArtifactsTable>>,
): Promise<void> {
  await db
    .insertInto('recommendation_artifacts')
    .values({
      org_id: orgId,
      artifact_type: 'faq_page',
      title: values.id,
      body: '',
      target_url: '',
      status: 'draft',
      generated_by_model: '',
      generation_prompt_version: '',
      published_at: null,
      created_at: CREATED,
      updated_at: values.created_at ?? CREATED,
      ...values,
    })
    .execute();
}

/** A measured outcome of a recommendation; every figure is the test's to choose. */
export async function insertRecommendationOutcome(
  db: Db,
  orgId: number,
  values: Omit<Insertable<RecommendationOutcomesTable>, 'org_id'>,
): Promise<void> {
  await db
    .insertInto('recommendation_outcomes')
    .values({ ...values, org_id: orgId })
    .execute();
}
