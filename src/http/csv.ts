import { stringify } from 'csv-stringify/sync';
import type { FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import Negotiator from 'negotiator';
import { Type } from 'typebox';
import { recentlyUsed } from '../domain/recently-used.js';

// CSV for spreadsheets and BI tools (docs/csv.md). A route declares which array of its JSON body
// is "the rows"; the toolkit then accepts `format`, negotiates `Accept`, documents `text/csv` and
// writes the CSV from the body exactly as the JSON path serialises it, so the two cannot disagree.

/** What a route declares to answer `text/csv` too. */
export interface CsvRows {
  /**
   * Dotted paths into the JSON body, each a table a caller can ask for; the first is the default
   * and several add a `block` parameter to choose. An array gives a row per element, an object
   * keyed by id (with `keyColumn`) a row per entry, any other object one row.
   */
  rows: readonly [string, ...string[]];
  /** For a body keyed by id: the column, first in the row, that carries the key. */
  keyColumn?: string;
  /** Envelope fields carried as headers: the total (`X-Total-Count`) and page links (`Link`). */
  total?: string;
  next?: string;
  previous?: string;
}

/** Every paginated list: the page's `results`; count, next and previous as headers. */
export const PAGE_ROWS: CsvRows = { rows: ['results'], total: 'count', next: 'next', previous: 'previous' };

const JSON_TYPE = 'application/json';
const CSV_TYPE = 'text/csv';
/** RFC 4180's media type, with its optional `header` parameter saying the first line names columns. */
const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8; header=present';

type Json = Record<string, unknown>;
type Cell = string | number | boolean | null;

/** The route schema with `format` (and, for several tables, `block`) accepted in the query. */
export function withCsvQuery(schema: FastifySchema, csv: CsvRows): FastifySchema {
  const query = (schema.querystring ?? { type: 'object', properties: {} }) as Json;
  const properties: Json = {
    ...(query.properties as Json | undefined),
    format: Type.Optional(
      Type.Enum(['json', 'csv'], {
        description: 'csv answers text/csv (docs/csv.md); overrides the Accept header. Default: json.',
      }),
    ),
  };
  if (csv.rows.length > 1) {
    properties.block = Type.Optional(
      Type.Enum([...csv.rows], {
        description: `The block a CSV answer lists (default ${csv.rows[0]}); JSON answers carry every block.`,
      }),
    );
  }
  return { ...schema, querystring: { ...query, properties } };
}

/** The OpenAPI media type of a CSV answer, beside the JSON body (src/http/openapi-components.ts). */
export function csvMedia(csv: CsvRows) {
  return {
    schema: {
      type: 'string',
      contentMediaType: CSV_TYPE,
      description: `RFC 4180 with a header row: the rows of ${csv.rows.join(' | ')}, flattened as docs/csv.md says. Asked with format=csv or Accept: text/csv.`,
    },
  };
}

// No Accept at all is not the empty one: the first accepts anything, the second nothing.
const NO_ACCEPT = '\u0000';
// Offered with the parameters each answer really has: Negotiator matches an Accept range's
// parameters against the offer's, so `text/csv; charset=utf-8` must meet an offer that carries
// its charset (offered bare, it matched nothing and the caller got JSON).
const JSON_CONTENT_TYPE = `${JSON_TYPE}; charset=utf-8`;
const OFFERED = [JSON_CONTENT_TYPE, CSV_CONTENT_TYPE];
// The verdict for each Accept value seen lately: clients send the same few again and again, and
// negotiating was a measurable share of a kept answer's cost (docs/performance.md, "Per-request
// bookkeeping worked out once"). At most 64 values, so odd headers cannot hold much memory.
const acceptsCsvFirst = recentlyUsed<boolean>(64);

/**
 * `format` decides when given; otherwise Accept does. An Accept that allows neither JSON nor
 * CSV still gets JSON (no 406), as on every other endpoint, so no client that worked breaks.
 */
export function wantsCsv(request: FastifyRequest): boolean {
  const format = (request.query as { format?: string } | undefined)?.format;
  if (format !== undefined) return format === 'csv';
  const { accept } = request.headers;
  return acceptsCsvFirst(
    accept ?? NO_ACCEPT,
    () => new Negotiator({ headers: { accept } }).mediaType(OFFERED) === CSV_CONTENT_TYPE,
  );
}

/**
 * The flattening rule, one walk of a row's schema beside its value: an object field is spread
 * into a column per field, named by its dotted path (`interval.low`), left empty when the object
 * is null or lacks the field; an array (of values or of objects) is one cell holding its JSON
 * text; null is an empty cell. Without a value it gives the columns alone (the header row).
 */
export function flatten(schema: unknown, value?: unknown, path = ''): Array<[string, Cell]> {
  const properties = objectProperties(schema);
  if (properties) {
    const object =
      value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
    return Object.entries(properties).flatMap(([name, field]) =>
      flatten(field, object[name], path ? `${path}.${name}` : name),
    );
  }
  if (value === undefined || value === null) return [[path, null]];
  if (typeof value === 'object') return [[path, JSON.stringify(value)]];
  return [[path, value as Cell]];
}

/** The fields of an object schema (merged over the object variants of a union); none for a leaf. */
function objectProperties(schema: unknown): Json | undefined {
  const s = schema as { properties?: Json; anyOf?: unknown[] } | undefined;
  if (s?.properties) return s.properties;
  if (!s?.anyOf) return undefined;
  const variants = s.anyOf.map(objectProperties).filter((p) => p !== undefined);
  return variants.length > 0 ? Object.assign({}, ...variants) : undefined;
}

function at(node: unknown, path: string, step: (node: Json, name: string) => unknown): unknown {
  return path.split('.').reduce((current, name) => step(current as Json, name), node);
}

/** The rows a path of the body names, the schema of one row, and the key column of a body keyed by id. */
function table(schema: unknown, body: unknown, csv: CsvRows, block: string) {
  const node = at(schema, block, (s, name) => (s.properties as Json)[name]) as Json;
  const data = at(body, block, (b, name) => b[name]);
  if (node.type === 'array') return { rowSchema: node.items, rows: data as unknown[], key: undefined };
  const entry = node.patternProperties && Object.values(node.patternProperties as Json)[0];
  if (entry && csv.keyColumn) {
    return { rowSchema: entry, rows: Object.entries(data as Json), key: csv.keyColumn };
  }
  return { rowSchema: node, rows: [data], key: undefined };
}

/** RFC 4180: CRLF line ends, quotes only where a value needs them, no byte-order mark. */
export function csvText(header: readonly string[], records: readonly Cell[][]): string {
  return stringify([header, ...records], {
    record_delimiter: 'windows',
    // The library quotes a cell holding the CRLF delimiter, not one holding a bare CR or LF, which
    // RFC 4180 parsers would take for the end of the record.
    quoted_match: /[\r\n]/,
    // A text cell starting with =, +, -, @, tab or CR (or one of the signs behind blanks,
    // `hideFormula`) gets a leading ' so that a spreadsheet shows it rather than running it as a
    // formula (numbers keep their minus sign).
    escape_formulas: true,
    cast: { boolean: (value) => String(value), string: hideFormula },
  });
}

// What a spreadsheet may skip before a formula's sign: spaces, line breaks, and characters that
// show nothing (soft hyphen, zero-width and direction marks, Arabic letter mark, bidi embeddings and isolates, word
// joiner and invisible operators, byte-order mark).
const HIDDEN_FORMULA =
  /^[\s\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]+[=+\-@\uff1d\uff0b\uff0d\uff20]/;

/** The library's escape looks at the first character only; a formula behind blanks gets it too. */
function hideFormula(value: string): string {
  return HIDDEN_FORMULA.test(value) ? `'${value}` : value;
}

function csvLink(request: FastifyRequest, link: string): string {
  // A link built without the caller's own query (run detail's responsesNext) keeps asking for CSV.
  if ((request.query as { format?: string }).format !== 'csv') return link;
  const url = new URL(link, 'http://relative.invalid');
  if (url.searchParams.has('format')) return link;
  url.searchParams.set('format', 'csv');
  return url.origin === 'http://relative.invalid' ? `${url.pathname}${url.search}` : url.href;
}

/** Answers the body a handler returned as CSV; the envelope fields the route names become headers. */
export function sendCsv(
  request: FastifyRequest,
  reply: FastifyReply,
  csv: CsvRows,
  /** The route's declared JSON body schema. */
  okSchema: unknown,
  body: unknown,
): string {
  // The body as the JSON path would write it: the same fields, values and rounding.
  const json = JSON.parse(reply.serializeInput(body as Json, '200') as string) as Json;
  // `block` exists (and is validated) only where a route has several tables; elsewhere it is an
  // unknown parameter like any other, ignored.
  const block = (csv.rows.length > 1 && (request.query as { block?: string }).block) || csv.rows[0];
  const { rowSchema, rows, key } = table(okSchema, json, csv, block);

  const columns = flatten(rowSchema).map(([column]) => column);
  const header = key ? [key, ...columns] : columns;
  const records = rows.map((row) => {
    const [id, value] = key ? (row as [string, unknown]) : [undefined, row];
    const cells = flatten(rowSchema, value).map(([, cell]) => cell);
    return key ? [id as string, ...cells] : cells;
  });

  if (csv.total) reply.header('x-total-count', String(json[csv.total]));
  const links = (
    [
      [csv.next, 'next'],
      [csv.previous, 'prev'],
    ] as const
  ).flatMap(([field, rel]) => {
    const link = field ? json[field] : null;
    return typeof link === 'string' ? [`<${csvLink(request, link)}>; rel="${rel}"`] : [];
  });
  if (links.length > 0) reply.header('link', links.join(', '));
  reply.header('content-type', CSV_CONTENT_TYPE);
  return csvText(header, records);
}
