import { type Selectable, sql } from 'kysely';
import type { Db } from './connect.ts';
import type {
  RecommendationArtifactsTable,
  RecommendationOutcomesTable,
  RecommendationsTable,
} from './types.ts';

// The recommendations a brand lists: everything except superseded and soft-deleted rows, with
// each one's generated artifacts and measured outcomes.

export type RecommendationRow = Selectable<RecommendationsTable> & {
  artifacts: Selectable<RecommendationArtifactsTable>[];
  outcomes: Selectable<RecommendationOutcomesTable>[];
};

function listed(db: Db, orgId: number, brandId: number) {
  return db
    .selectFrom('recommendations')
    .where('org_id', '=', orgId)
    .where('brand_id', '=', brandId)
    .where('status', '<>', 'superseded')
    .where('superseded_at', 'is', null)
    .where('deleted_at', 'is', null);
}

// Priorities outside the three buckets (none are expected) sort after low rather than vanish.
const priorityBucket = sql<number>`case priority when 'high' then 0 when 'medium' then 1 when 'low' then 2 else 3 end`;

function groupByRecommendation<R extends { recommendation_id: string }>(
  rows: readonly R[],
): Map<string, R[]> {
  const groups = new Map<string, R[]>();
  for (const row of rows) {
    const list = groups.get(row.recommendation_id) ?? [];
    list.push(row);
    groups.set(row.recommendation_id, list);
  }
  return groups;
}

async function artifactsOf(db: Db, orgId: number, ids: string[]) {
  const rows = await db
    .selectFrom('recommendation_artifacts')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('recommendation_id', 'in', ids)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return groupByRecommendation(rows);
}

async function outcomesOf(db: Db, orgId: number, ids: string[]) {
  const rows = await db
    .selectFrom('recommendation_outcomes')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('recommendation_id', 'in', ids)
    .orderBy('measured_at')
    .orderBy('id')
    .execute();
  return groupByRecommendation(rows);
}

/** How many recommendations a brand lists. */
export async function countRecommendations(db: Db, orgId: number, brandId: number): Promise<number> {
  const total = await listed(db, orgId, brandId)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(total.n);
}

/**
 * One page of a brand's listed recommendations: priority bucket (high, medium, low), then score
 * descending, then newest first, then id so that equal rows keep a stable order across pages.
 * Three queries per page whatever its size: the page, its artifacts, its outcomes.
 */
export async function recommendationsPage(
  db: Db,
  orgId: number,
  brandId: number,
  page: { offset: number; pageSize: number },
): Promise<RecommendationRow[]> {
  const rows = await listed(db, orgId, brandId)
    .selectAll()
    .orderBy(priorityBucket)
    .orderBy('score', 'desc')
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(page.pageSize)
    .offset(page.offset)
    .execute();
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  const [artifacts, outcomes] = await Promise.all([artifactsOf(db, orgId, ids), outcomesOf(db, orgId, ids)]);
  return rows.map((row) => ({
    ...row,
    artifacts: artifacts.get(row.id) ?? [],
    outcomes: outcomes.get(row.id) ?? [],
  }));
}
