import type { FastifyRequest, FastifySchemaValidationError } from 'fastify';
import { type FieldErrors, NotFound, ValidationFailed } from '../errors.ts';

// Routes validate with attachValidation, so that a hidden or absent object answers 404 before
// its query string is judged (decisions.md, order of checks 7 then 8). A route first calls
// `rejectInvalidParams`, looks its objects up, then calls `rejectInvalidQuery`.

// A value is quoted back to its first 64 characters: one repeated or unbounded (an array of
// 8,000-character values) would otherwise be echoed whole.
const QUOTED_LENGTH = 64;

function quoted(value: unknown): string {
  const text = typeof value === 'string' ? value : String(value);
  return JSON.stringify(
    [...text].length > QUOTED_LENGTH ? `${[...text].slice(0, QUOTED_LENGTH).join('')}…` : text,
  );
}

function fieldOf(error: FastifySchemaValidationError): string {
  const missing = (error.params as { missingProperty?: string }).missingProperty;
  if (missing) return missing;
  const path = error.instancePath.replace(/^\//, '').split('/')[0];
  return path || 'non_field_errors';
}

function messageOf(error: FastifySchemaValidationError, value: unknown): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return 'This field is required.';
    case 'enum':
      return `${quoted(value)} is not a valid choice.`;
    case 'type':
      if (params.type === 'integer' || params.type === 'number') return 'A valid integer is required.';
      if (params.type === 'boolean') return 'Must be a valid boolean.';
      return `Expected a ${String(params.type)}.`;
    case 'minimum':
      return `Ensure this value is greater than or equal to ${String(params.limit)}.`;
    case 'maximum':
      return `Ensure this value is less than or equal to ${String(params.limit)}.`;
    case 'pattern':
    case 'format':
      return `${quoted(value)} has the wrong format.`;
    case 'maxLength':
      return `Ensure this field has no more than ${String(params.limit)} characters.`;
    default:
      return error.message ?? 'Invalid value.';
  }
}

export function fieldErrors(
  errors: readonly FastifySchemaValidationError[],
  input: Record<string, unknown> | undefined,
): FieldErrors {
  const fields: FieldErrors = {};
  // A value over its length is said to be so, and only so: a report type of 8,000 characters also
  // "has the wrong format" (its pattern), which says nothing more.
  const tooLong = new Set(errors.filter((e) => e.keyword === 'maxLength').map(fieldOf));
  for (const error of errors) {
    const field = fieldOf(error);
    if (tooLong.has(field) && error.keyword !== 'maxLength') continue;
    const message = messageOf(error, input?.[field]);
    const list = fields[field] ?? [];
    if (!list.includes(message)) list.push(message);
    fields[field] = list;
  }
  return fields;
}

function validationOf(request: FastifyRequest) {
  const error = request.validationError as
    | (Error & { validation?: FastifySchemaValidationError[]; validationContext?: string })
    | undefined;
  return error?.validation ? { context: error.validationContext, errors: error.validation } : undefined;
}

// Integers are written in decimal digits: schema coercion alone would also turn "1e3", "0x10",
// "0b11", "+1", " 1" or "1.0" into numbers. A query value may carry a sign, so that a negative one
// gets the schema's own "greater than or equal to" message.
const PATH_ID = /^[0-9]+$/;
const QUERY_INTEGER = /^-?[0-9]+$/;
const nonDecimalQuery = new WeakMap<FastifyRequest, FieldErrors>();

type QuerySchema = { properties?: Record<string, { type?: unknown }> };
const NO_QUERY_SCHEMA: QuerySchema = {};
/** The parameters a route's query schema declares, and which of them are integers. */
interface Declared {
  names: Set<string>;
  integers: Set<string>;
}
// Worked out once per route's schema: this hook runs on every request (docs/performance.md,
// "Per-request bookkeeping worked out once").
const declaredBySchema = new WeakMap<QuerySchema, Declared>();

function declaredParameters(request: FastifyRequest): Declared {
  const schema = (request.routeOptions.schema?.querystring as QuerySchema | undefined) ?? NO_QUERY_SCHEMA;
  let declared = declaredBySchema.get(schema);
  if (!declared) {
    const properties = Object.entries(schema.properties ?? {});
    declared = {
      names: new Set(properties.map(([name]) => name)),
      integers: new Set(
        properties.filter(([, property]) => property.type === 'integer').map(([name]) => name),
      ),
    };
    declaredBySchema.set(schema, declared);
  }
  return declared;
}

/**
 * A preValidation hook, so it sees the values before coercion. A path id in any other form names
 * no object: 404 at once. A query value's 400 waits for the lookup (`rejectInvalidQuery`).
 */
export async function rejectNonDecimalIntegers(request: FastifyRequest): Promise<void> {
  for (const value of Object.values((request.params ?? {}) as Record<string, unknown>)) {
    // Coercion turns over 308 digits into Infinity, which the schema's maximum lets through.
    if (typeof value === 'string' && !(PATH_ID.test(value) && Number.isSafeInteger(Number(value)))) {
      throw new NotFound();
    }
  }
  const { integers } = declaredParameters(request);
  const fields: FieldErrors = {};
  for (const [name, raw] of Object.entries((request.query ?? {}) as Record<string, unknown>)) {
    const values = [raw].flat();
    if (integers.has(name) && values.some((v) => typeof v === 'string' && !QUERY_INTEGER.test(v))) {
      fields[name] = ['A valid integer is required.'];
    }
  }
  if (Object.keys(fields).length > 0) nonDecimalQuery.set(request, fields);
}

/** Path parameters are integers; anything else cannot name an object, so it is not found. */
export function rejectInvalidParams(request: FastifyRequest): void {
  if (validationOf(request)?.context === 'params') throw new NotFound();
}

/**
 * Values a schema lets through that no database should see: NUL characters (PostgreSQL text
 * cannot hold them; DRF refuses them too) and the Infinity that coercion makes of "Infinity".
 * Only in the parameters the route reads: any other is ignored, whatever it holds.
 */
function unusableValues(query: Record<string, unknown> | undefined, declared: Set<string>): FieldErrors {
  const fields: FieldErrors = {};
  for (const [name, raw] of Object.entries(query ?? {})) {
    if (!declared.has(name)) continue;
    for (const value of [raw].flat()) {
      if (typeof value === 'string' && value.includes('\u0000')) {
        fields[name] = ['Null characters are not allowed.'];
      } else if (typeof value === 'number' && !Number.isFinite(value)) {
        fields[name] = ['A valid integer is required.'];
      }
    }
  }
  return fields;
}

/**
 * 400 for a query string its schema refuses, listing with the schema's errors those of what the
 * route reads the query to mean (`meaning`: a window, a limit), so one answer names every field
 * the caller got wrong. For a field both judge, the schema's message is kept.
 */
export function rejectInvalidQuery(request: FastifyRequest, meaning: FieldErrors = {}): void {
  const validation = validationOf(request);
  if (validation?.context === 'params') throw new NotFound();
  const query = request.query as Record<string, unknown> | undefined;
  // A NUL character's message wins over the schema's for the same parameter: "has the wrong
  // format" would not say what is wrong with a value that looks right.
  const fields = {
    ...meaning,
    ...(validation ? fieldErrors(validation.errors, query) : {}),
    ...nonDecimalQuery.get(request),
    ...unusableValues(query, declaredParameters(request).names),
  };
  if (Object.keys(fields).length > 0) throw new ValidationFailed(fields);
}
