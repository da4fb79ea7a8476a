// What a statement's text may start with to say how it is to be run: comments, so the text stays
// one statement for any database, and a database that has no use for a hint reads past it. When
// both are there, GENERIC_PLAN comes first.

/**
 * Planned once per connection on PostgreSQL rather than for each call's values: the analytics
 * windows' statements, whose planning was half of the server's work for them (docs/performance.md,
 * "Planning on PostgreSQL").
 */
export const GENERIC_PLAN = '/* generic plan */ ';

/**
 * A lookup: a fixed number of index seeks, or at most one scope's catalog rows (its prompts,
 * competitors), however long the history. On SQLite it runs on the service's own read-only
 * connection rather than in a reader process: it cannot run long enough for the cap to matter,
 * and the trip to a reader costs more than the statement (docs/decisions.md, "Query cap on
 * SQLite"; docs/performance.md, "Lookups in the service's process"). On PostgreSQL, unless also
 * marked GENERIC_PLAN, it runs in whichever plan mode its connection is in (postgres/pool.ts).
 */
export const LOOKUP = '/* lookup */ ';

export interface StatementHints {
  genericPlan?: boolean;
  lookup?: boolean;
}

/** What a statement's text starts with for `hints`. */
export function hintText(hints: StatementHints): string {
  return `${hints.genericPlan ? GENERIC_PLAN : ''}${hints.lookup ? LOOKUP : ''}`;
}

export function isLookup(sql: string): boolean {
  return sql.startsWith(LOOKUP) || sql.startsWith(GENERIC_PLAN + LOOKUP);
}
