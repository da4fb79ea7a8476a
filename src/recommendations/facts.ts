import { loadWindow } from '../analytics/window.ts';
import type { Scope } from '../db/analytics.ts';
import type { Db } from '../db/connect.ts';
import { analyticsFacts, type Facts } from '../domain/recommendations/facts.ts';
import { parseRange, type RangeQuery, type Window } from '../domain/windows.ts';

// A window's recommendation facts, read exactly as GET /api/brands/{id}/analytics/ reads them:
// the same query parsing, the same loadWindow, the same domain blocks. So a recommendation's
// numbers and an outcome's values are reproducible with that endpoint's `range`/`start`/`end`.

export interface LoadedFacts {
  window: Window & { start: Date };
  facts: Facts;
}

/**
 * `withPrevious: false` leaves the comparison window unread (facts.previous null): an outcome or a
 * baseline is measured on its own window alone.
 */
export async function loadFacts(
  db: Db,
  scope: Scope,
  query: RangeQuery,
  at: Date,
  timezone: string,
  options: { withPrevious: boolean } = { withPrevious: true },
): Promise<LoadedFacts> {
  const parsed = parseRange(query, at, timezone);
  if (!parsed.ok) throw new Error(`invalid analytics window: ${JSON.stringify(parsed.errors)}`);
  const window = options.withPrevious ? parsed.value : { ...parsed.value, previous: null };
  const data = await loadWindow(db, scope, window);
  return { window: data.window, facts: analyticsFacts(data) };
}
