import type { Db } from './connect.ts';
import { addressableRun, visibleRun } from './predicates.ts';
import { executeShaped } from './shaped.ts';

/** The runs of one brand or of one category. */
export type RunScope = { brandId: number } | { categoryId: number };

export interface RunListRow {
  id: number;
  categoryId: number;
  status: string;
  finishedAt: string;
  /** Mean of the run's prompt scores, unrounded; null when the run scored no prompt. */
  score: number | null;
}

export interface RunRecord {
  id: number;
  brandId: number;
  categoryId: number;
  status: string;
  finishedAt: string | null;
}

/** The entities a run's competitor list is made of: the user's brand and the known competitors. */
export interface RunEntities {
  brand: { id: number; name: string };
  competitors: {
    id: number;
    categoryId: number;
    name: string;
    canonicalKey: string;
    canonicalName: string;
  }[];
}

/** Whether the brand or category exists in the organization. */
export async function runScopeExists(db: Db, orgId: number, scope: RunScope): Promise<boolean> {
  const row =
    'brandId' in scope
      ? await db
          .selectFrom('brands')
          .select('id')
          .where('org_id', '=', orgId)
          .where('id', '=', scope.brandId)
          .executeTakeFirst()
      : await db
          .selectFrom('categories')
          .select('id')
          .where('org_id', '=', orgId)
          .where('id', '=', scope.categoryId)
          .executeTakeFirst();
  return row !== undefined;
}

function visibleRunsOf(db: Db, orgId: number, scope: RunScope) {
  const query = db
    .selectFrom('runs as r')
    .where('r.org_id', '=', orgId)
    .where(visibleRun)
    // A completed run always has its finish time; a row without one cannot be placed in time.
    .where('r.finished_at', 'is not', null);
  return 'brandId' in scope
    ? query.where('r.brand_id', '=', scope.brandId)
    : query.where('r.category_id', '=', scope.categoryId);
}

export async function countVisibleRuns(db: Db, orgId: number, scope: RunScope): Promise<number> {
  const row = await visibleRunsOf(db, orgId, scope)
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** One page of a brand's or category's visible completed runs, newest first, with their scores. */
export async function visibleRunsPage(
  db: Db,
  orgId: number,
  scope: RunScope,
  page: { offset: number; pageSize: number },
): Promise<RunListRow[]> {
  const runs = await visibleRunsOf(db, orgId, scope)
    .select(['r.id', 'r.category_id', 'r.status', 'r.finished_at'])
    .$narrowType<{ finished_at: string }>()
    .orderBy('r.finished_at', 'desc')
    .orderBy('r.id', 'desc')
    .limit(page.pageSize)
    .offset(page.offset)
    .execute();
  const scores = await runScores(
    db,
    orgId,
    runs.map((r) => r.id),
  );
  return runs.map((r) => ({
    id: r.id,
    categoryId: r.category_id,
    status: r.status,
    finishedAt: r.finished_at,
    score: scores.get(r.id) ?? null,
  }));
}

/** Run score = mean of the run's stored prompt scores, for a page of runs in one grouped query. */
async function runScores(db: Db, orgId: number, runIds: number[]): Promise<Map<number, number>> {
  if (runIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('run_prompt_scores')
    .select((eb) => ['run_id', eb.fn.avg<number | string>('score').as('score')])
    .where('org_id', '=', orgId)
    .where('run_id', 'in', runIds)
    .groupBy('run_id')
    .execute();
  return new Map(rows.map((r) => [r.run_id, Number(r.score)]));
}

/** A run the caller may address, or undefined when it is absent, another organization's or hidden. */
export async function findAddressableRun(
  db: Db,
  orgId: number,
  runId: number,
): Promise<RunRecord | undefined> {
  const { rows } = await executeShaped(
    db,
    'findAddressableRun',
    { orgId, runId },
    ({ orgId, runId }) =>
      db
        .selectFrom('runs as r')
        .select(['r.id', 'r.brand_id', 'r.category_id', 'r.status', 'r.finished_at'])
        .where('r.org_id', '=', orgId)
        .where('r.id', '=', runId)
        .where(addressableRun),
    { lookup: true },
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    id: row.id,
    brandId: row.brand_id,
    categoryId: row.category_id,
    status: row.status,
    finishedAt: row.finished_at,
  };
}

export async function runPromptIds(db: Db, orgId: number, runId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('run_prompts')
    .select('prompt_id')
    .where('org_id', '=', orgId)
    .where('run_id', '=', runId)
    .orderBy('prompt_id')
    .execute();
  return rows.map((r) => r.prompt_id);
}

/**
 * The brand and the competitors to report for a run: every competitor of the run's category, plus
 * any other competitor an answer of the run mentions.
 */
export async function runEntities(db: Db, orgId: number, run: RunRecord): Promise<RunEntities> {
  const [brand, competitors] = await Promise.all([
    db
      .selectFrom('brands')
      .select(['id', 'name'])
      .where('org_id', '=', orgId)
      .where('id', '=', run.brandId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('competitors')
      .select(['id', 'category_id', 'name', 'canonical_key', 'canonical_name'])
      .where('org_id', '=', orgId)
      .where((eb) =>
        eb.or([
          eb('category_id', '=', run.categoryId),
          eb(
            'id',
            'in',
            eb
              .selectFrom('response_mentions')
              .select('competitor_id')
              .where('org_id', '=', orgId)
              .where('run_id', '=', run.id)
              .where('competitor_id', 'is not', null)
              .$narrowType<{ competitor_id: number }>(),
          ),
        ]),
      )
      .orderBy('id')
      .execute(),
  ]);
  return {
    brand,
    competitors: competitors.map((c) => ({
      id: c.id,
      categoryId: c.category_id,
      name: c.name,
      canonicalKey: c.canonical_key,
      canonicalName: c.canonical_name,
    })),
  };
}
