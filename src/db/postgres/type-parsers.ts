import pg from 'pg';

// node-postgres hands back int8 and numeric as strings and timestamps as Date objects. The
// repositories are shared with SQLite, where the same columns come back as numbers and ISO-8601
// text, so PostgreSQL values are converted to those shapes as they are read.

const INT8 = 20;
const NUMERIC = 1700;
const TIMESTAMP = 1114;
const TIMESTAMPTZ = 1184;

// PostgreSQL's text output: `2026-01-02 03:04:05.123456+00` (the offset may carry minutes and
// seconds; `timestamp` has none). Date's own parser guesses at this format (two-digit years,
// for one), so it is taken apart explicitly.
const PG_TIMESTAMP =
  /^(\d{4,})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?(?:([+-])(\d\d)(?::(\d\d))?(?::(\d\d))?)?$/;

// What a session in UTC (the usual server `TimeZone`) prints for a four-digit year: ISO-8601 but
// for the separator, the fraction's length and the zone's spelling. Rewritten as text, it is the
// string the general path below builds through Date, at a tenth of its cost (a 96,000-row score
// history spent ~100 ms in the general path).
const PG_UTC = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?\+00$/;

/** ISO-8601 UTC with milliseconds; values this cannot represent (infinity, BC) pass through. */
export function isoFromPostgres(text: string): string {
  const utc = PG_UTC.exec(text);
  if (utc) return `${utc[1]}T${utc[2]}.${(utc[3] ?? '').padEnd(3, '0').slice(0, 3)}Z`;
  const m = PG_TIMESTAMP.exec(text);
  if (!m) return text;
  const [, y, mo, d, h, mi, s, frac = '', sign, oh = '0', om = '0', os = '0'] = m;
  const offsetMs = (sign === '-' ? -1 : 1) * ((Number(oh) * 60 + Number(om)) * 60 + Number(os)) * 1000;
  const date = new Date(0);
  date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  date.setUTCHours(Number(h), Number(mi), Number(s), Number(frac.padEnd(3, '0').slice(0, 3)));
  return new Date(date.getTime() - offsetMs).toISOString();
}

export function installTypeParsers(): void {
  pg.types.setTypeParser(INT8, Number);
  pg.types.setTypeParser(NUMERIC, Number);
  pg.types.setTypeParser(TIMESTAMP, isoFromPostgres);
  pg.types.setTypeParser(TIMESTAMPTZ, isoFromPostgres);
}
