import { sql } from 'kysely';
import { bestRank, type EntityObservation } from '../domain/entities.ts';
import type { Db } from './connect.ts';
import { addressableRun } from './predicates.ts';
import { executeShaped } from './shaped.ts';

/** A response row without its answer text. */
export interface ResponseRecord {
  id: number;
  promptId: number;
  runId: number;
  model: string;
  modelLabel: string;
  surface: string;
  mentioned: boolean;
  /** Null when the brand is not mentioned or mentioned without a rank. */
  rank: number | null;
  /** Null when the brand is not mentioned. */
  sentiment: string | null;
  /** Citation URLs in position order. */
  sources: string[];
  sampleCount: number;
  capturedAt: string;
}

export interface LightResponseRecord extends ResponseRecord {
  hasText: boolean;
  textLength: number;
}

export interface FullResponseRecord extends ResponseRecord {
  answerText: string;
}

/** The user's brand, or a competitor by id. */
export type EntityKey = 'brand' | number;

const RESPONSE_COLUMNS = [
  'responses.id',
  'responses.prompt_id',
  'responses.run_id',
  'responses.model',
  'responses.model_label',
  'responses.surface',
  'responses.mentioned',
  'responses.rank',
  'responses.sentiment',
  'responses.sample_count',
  'responses.captured_at',
] as const;

type ResponseRow = {
  id: number;
  prompt_id: number;
  run_id: number;
  model: string;
  model_label: string;
  surface: string;
  mentioned: number;
  rank: number | null;
  sentiment: string | null;
  sample_count: number;
  captured_at: string;
};

function toRecord(row: ResponseRow, sources: string[]): ResponseRecord {
  const mentioned = row.mentioned === 1;
  return {
    id: row.id,
    promptId: row.prompt_id,
    runId: row.run_id,
    model: row.model,
    modelLabel: row.model_label,
    surface: row.surface,
    mentioned,
    rank: mentioned ? row.rank : null,
    sentiment: mentioned ? row.sentiment : null,
    sources,
    sampleCount: row.sample_count,
    capturedAt: row.captured_at,
  };
}

/** Citation URLs of the given responses, each list in position order. */
async function citationUrls(db: Db, orgId: number, responseIds: number[]): Promise<Map<number, string[]>> {
  const urls = new Map<number, string[]>(responseIds.map((id) => [id, []]));
  if (responseIds.length === 0) return urls;
  const rows = await db
    .selectFrom('response_citations')
    .select(['response_id', 'url'])
    .where('org_id', '=', orgId)
    .where('response_id', 'in', responseIds)
    .orderBy('response_id')
    .orderBy('position')
    .orderBy('id')
    .execute();
  for (const row of rows) urls.get(row.response_id)?.push(row.url);
  return urls;
}

export async function countRunResponses(db: Db, orgId: number, runId: number): Promise<number> {
  const row = await db
    .selectFrom('responses')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('org_id', '=', orgId)
    .where('run_id', '=', runId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** One page of a run's responses in id order, without their answer texts. */
export async function runResponsesPage(
  db: Db,
  orgId: number,
  runId: number,
  page: { offset: number; pageSize: number },
): Promise<LightResponseRecord[]> {
  const rows = await db
    .selectFrom('responses')
    .select([
      ...RESPONSE_COLUMNS,
      'responses.text_length',
      sql<number>`case when responses.answer_text is null or responses.answer_text = '' then 0 else 1 end`.as(
        'has_text',
      ),
    ])
    .where('responses.org_id', '=', orgId)
    .where('responses.run_id', '=', runId)
    .orderBy('responses.id')
    .limit(page.pageSize)
    .offset(page.offset)
    .execute();
  const urls = await citationUrls(
    db,
    orgId,
    rows.map((r) => r.id),
  );
  return rows.map((row) => ({
    ...toRecord(row, urls.get(row.id) ?? []),
    hasText: row.has_text === 1,
    textLength: row.text_length,
  }));
}

/**
 * A response the caller may read: of the organization, in a run that is not hidden (the same rule
 * as the run endpoints). Undefined otherwise.
 */
export async function findAddressableResponse(
  db: Db,
  orgId: number,
  responseId: number,
): Promise<FullResponseRecord | undefined> {
  const { rows } = await executeShaped(
    db,
    'findAddressableResponse',
    { orgId, responseId },
    ({ orgId, responseId }) =>
      db
        .selectFrom('responses')
        .innerJoin('runs as r', 'r.id', 'responses.run_id')
        .select([...RESPONSE_COLUMNS, 'responses.answer_text'])
        .where('responses.org_id', '=', orgId)
        .where('r.org_id', '=', orgId)
        .where('responses.id', '=', responseId)
        .where(addressableRun),
    { lookup: true },
  );
  const row = rows[0];
  if (!row) return undefined;
  const urls = await citationUrls(db, orgId, [row.id]);
  return { ...toRecord(row, urls.get(row.id) ?? []), answerText: row.answer_text ?? '' };
}

/** The stored HTML of a response ('' when none); read only when a caller asks for it. */
export async function responseHtml(db: Db, orgId: number, responseId: number): Promise<string> {
  const row = await db
    .selectFrom('responses')
    .select('answer_html')
    .where('org_id', '=', orgId)
    .where('id', '=', responseId)
    .executeTakeFirst();
  return row?.answer_html ?? '';
}

/**
 * The run's usable observations (outcome ok, mention data recorded) reduced to what entity figures
 * need, from three narrow reads: no answer text is loaded. The brand's mention and rank come from
 * the response row itself (as the brand score does); competitors' from their mention rows.
 */
export async function runEntityObservations(
  db: Db,
  orgId: number,
  runId: number,
): Promise<EntityObservation<EntityKey>[]> {
  const [responses, mentions, citations] = await Promise.all([
    db
      .selectFrom('responses')
      .select(['id', 'sample_count', 'mentioned', 'rank'])
      .where('org_id', '=', orgId)
      .where('run_id', '=', runId)
      .where('outcome', '=', 'ok')
      .where('has_mention_data', '=', 1)
      .execute(),
    db
      .selectFrom('response_mentions')
      .select(['response_id', 'competitor_id', 'rank'])
      .where('org_id', '=', orgId)
      .where('run_id', '=', runId)
      .where('is_brand', '=', 0)
      .where('competitor_id', 'is not', null)
      .$narrowType<{ competitor_id: number }>()
      .execute(),
    db
      .selectFrom('response_citations')
      .select(['response_id', 'domain'])
      .where('org_id', '=', orgId)
      .where('run_id', '=', runId)
      .execute(),
  ]);

  const byResponse = new Map<
    number,
    { weight: number; mentions: Map<EntityKey, number | null>; domains: string[] }
  >();
  for (const r of responses) {
    const entityMentions = new Map<EntityKey, number | null>();
    if (r.mentioned === 1) entityMentions.set('brand', r.rank);
    byResponse.set(r.id, { weight: r.sample_count, mentions: entityMentions, domains: [] });
  }
  for (const m of mentions) {
    const observation = byResponse.get(m.response_id);
    if (!observation) continue;
    const seen = observation.mentions;
    seen.set(
      m.competitor_id,
      seen.has(m.competitor_id) ? bestRank(seen.get(m.competitor_id) ?? null, m.rank) : m.rank,
    );
  }
  for (const c of citations) byResponse.get(c.response_id)?.domains.push(c.domain);
  return [...byResponse.values()];
}

/** The answers already stored under these keys, with the run and prompt each belongs to. */
export function storedAnswerKeys(db: Db, orgId: number, keys: readonly string[]) {
  return db
    .selectFrom('responses as a')
    .innerJoin('runs as r', 'r.id', 'a.run_id')
    .select(['a.external_key', 'r.external_id', 'a.prompt_id'])
    .where('a.org_id', '=', orgId)
    .where('r.org_id', '=', orgId)
    .where('a.external_key', 'in', keys.length > 0 ? keys : [''])
    .execute();
}
