import { sql } from 'kysely';
import type { Db } from './connect.ts';

// The rules that decide which rows count, written once. Each is a SQL fragment over a fixed alias
// (r for runs, p for prompts, c for their category) so that every query states the same rule.

/** Visible runs (alias r): completed, and published or legacy. Only these are listed and scored. */
export const visibleRun = sql<boolean>`r.status = 'completed' and (r.is_legacy = 1 or r.published_at is not null)`;

/**
 * Runs (alias r) that answer on their own id: visible ones, and those not completed (in flight,
 * failed, cancelled) so that a poll loop can follow them. A completed unpublished run is hidden.
 */
export const addressableRun = sql<boolean>`(r.status <> 'completed' or r.is_legacy = 1 or r.published_at is not null)`;

/** An eligible prompt (alias p, its category alias c): monitored, not archived, in a live category. */
export const eligiblePrompt = sql<boolean>`(p.is_monitored = 1 and p.is_archived = 0 and c.is_archived = 0)`;

/** 1 when the prompt (alias p) in its category (alias c) is eligible, else 0. */
export const eligibleFlag = sql<number>`case when ${eligiblePrompt} then 1 else 0 end`;

/** The eligible prompts (alias p, their category alias c) of a brand, or of some of its categories. */
export function eligiblePromptsOf(
  db: Db,
  orgId: number,
  scope: { brandId: number; categoryIds?: readonly number[] },
) {
  let query = db
    .selectFrom('prompts as p')
    .innerJoin('categories as c', 'c.id', 'p.category_id')
    .where('p.org_id', '=', orgId)
    .where('c.org_id', '=', orgId)
    .where('p.brand_id', '=', scope.brandId)
    .where(eligiblePrompt);
  if (scope.categoryIds) query = query.where('p.category_id', 'in', scope.categoryIds);
  return query;
}

/**
 * When the latest visible run of a brand (`b.id`) or a category (`c.id`) finished, as a correlated
 * subquery: a backward seek on runs_brand / runs_category that stops at the first visible run,
 * however many runs there have been.
 */
export function lastVisibleRunAt(orgId: number, of: 'b.id' | 'c.id') {
  const owner = sql.ref(of === 'b.id' ? 'r.brand_id' : 'r.category_id');
  return sql<
    string | null
  >`(select r.finished_at from runs as r where r.org_id = ${orgId} and ${owner} = ${sql.ref(of)} and r.finished_at is not null and ${visibleRun} order by r.finished_at desc limit 1)`;
}
