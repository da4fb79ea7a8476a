// What a statement's text may start with to be planned once per connection on PostgreSQL rather
// than for each call's values: the analytics windows' statements, whose planning was half of the
// server's work for them (docs/performance.md, "Planning on PostgreSQL"). A comment, so the text
// stays one statement for any database; SQLite reads past it.
export const GENERIC_PLAN = '/* generic plan */ ';
