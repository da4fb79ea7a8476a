import { CompiledQuery, type QueryResult } from 'kysely';
import { recentlyUsed } from '../domain/recently-used.js';
import type { Db } from './connect.ts';
import { hintText, type StatementHints } from './statement-hints.ts';

// Building an analytics statement through Kysely and compiling it cost the service thread more
// than SQLite takes to run most of them (docs/performance.md, "Statements compiled once per
// shape"). A statement's text depends on its shape alone (which values are there, and how many a
// list holds), never on the values: so each shape is built and compiled once, with placeholders
// standing for the values, and kept as its text and the place of each value among the parameters.

/** Where one of a call's values goes while its shape is built: its index among them. */
class Placeholder {
  readonly index: number;

  constructor(index: number) {
    this.index = index;
  }

  // Building may hand a value to the statement, never compute with it: a result computed from
  // the first call's value would be kept in the text for every later call of that shape.
  [Symbol.toPrimitive](): never {
    throw new Error('A shaped statement was built from one of its values rather than around it.');
  }
}

interface Shape {
  sql: string;
  /** Each parameter: the call's value at a placeholder's index, else a constant of the text. */
  parameters: readonly unknown[];
}

/** Shapes kept per dialect: a few hundred occur; a bound against a caller that makes many. */
const MAX_SHAPES = 2_000;
const shapesByDialect = new WeakMap<object, (key: string, make: () => Shape) => Shape>();

const isValue = (input: unknown) =>
  typeof input === 'number' || typeof input === 'string' || typeof input === 'boolean';

/**
 * The shape of `input` as text, its values pushed onto `values` in the order met: a value is `v`,
 * null `n`, undefined `u`; lists and records as brackets around their items.
 */
function shapeOf(input: unknown, values: unknown[]): string {
  if (isValue(input)) {
    values.push(input);
    return 'v';
  }
  if (input === null) return 'n';
  if (input === undefined) return 'u';
  if (Array.isArray(input)) return `[${input.map((item) => shapeOf(item, values)).join(',')}]`;
  if (typeof input === 'object' && Object.getPrototypeOf(input) === Object.prototype) {
    return `{${Object.entries(input)
      .map(([key, item]) => `${key}:${shapeOf(item, values)}`)
      .join(',')}}`;
  }
  throw new TypeError("A shaped statement's input holds something other than values, lists and records.");
}

/** `input` with each value replaced by its placeholder, met in shapeOf's order. */
function placeholdersOf<I>(input: I, next = { index: 0 }): I {
  if (isValue(input)) return new Placeholder(next.index++) as I;
  if (input === null || input === undefined) return input;
  if (Array.isArray(input)) return input.map((item) => placeholdersOf(item, next)) as I;
  return Object.fromEntries(
    Object.entries(input as object).map(([key, item]) => [key, placeholdersOf(item, next)]),
  ) as I;
}

/**
 * Runs the statement `build` makes from `input`, built and compiled once per shape of `input`
 * under `name`. `build` must make the same statement for every call under one name but for the
 * values of `input`, which it may only pass into the statement (`sql` values, `where` operands,
 * `sql.join` lists); how many a list holds, and whether a member is there (`=== undefined`, `=== null`;
 * never a value's truth, which a placeholder always has), may steer it. `hints` begin the text
 * (statement-hints.ts): `genericPlan` asks PostgreSQL to plan it once per connection, `lookup`
 * runs it in the service's process on SQLite.
 */
export async function executeShaped<I, R>(
  db: Db,
  name: string,
  input: I,
  build: (input: I) => { compile(db: Db): CompiledQuery<R> },
  hints: StatementHints = {},
): Promise<QueryResult<R>> {
  const values: unknown[] = [];
  const hint = hintText(hints);
  // The hints begin the text, so they are part of the key: a name asked both ways keeps two texts.
  const key = `${hint}${name} ${shapeOf(input, values)}`;
  const dialect = db.getExecutor().adapter;
  let shapes = shapesByDialect.get(dialect);
  if (!shapes) {
    shapes = recentlyUsed<Shape>(MAX_SHAPES);
    shapesByDialect.set(dialect, shapes);
  }
  const shape = shapes(key, () => {
    const compiled = build(placeholdersOf(input)).compile(db);
    return { sql: hint + compiled.sql, parameters: compiled.parameters };
  });
  const parameters = shape.parameters.map((p) => (p instanceof Placeholder ? values[p.index] : p));
  return db.executeQuery(CompiledQuery.raw(shape.sql, parameters) as CompiledQuery<R>);
}
