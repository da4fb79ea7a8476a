import { CompiledQuery, type DatabaseConnection, type Dialect, PostgresDialect } from 'kysely';
import pg from 'pg';
import { type Interceptor, interceptDialect } from '../intercept.ts';
import { GENERIC_PLAN, isLookup } from '../statement-hints.ts';
import { connectionLoss } from './connection-loss.ts';
import { CopyingClient } from './copy-client.ts';
import { statementBudget } from './statement-budget.ts';
import { installTypeParsers } from './type-parsers.ts';

installTypeParsers();

// A checkout that cannot get a connection within this time fails (503) instead of hanging the
// request: the database is down or unreachable, or the pool is saturated.
const CONNECT_TIMEOUT_MS = 5_000;

export interface PostgresPoolOptions {
  url: string;
  size: number;
  /** Shown in pg_stat_activity, so an operator can tell the API's reads from writes. */
  applicationName: string;
  /** statement_timeout outside a request's budget; undefined means none (migrations, imports). */
  defaultCapMs: number | undefined;
  /** Named prepared statements kept per connection; 0 sends every statement unnamed. */
  preparedStatements: number;
  /** Whether `copy … from stdin` statements go as COPY (CopyingClient): the writers' pool only. */
  copyIn: boolean;
}

type Query = (config: unknown, values?: unknown, callback?: unknown) => unknown;

/** What PostgreSQL answers when a table under a prepared statement changed its columns. */
function isStaleResultType(error: unknown): boolean {
  const err = error as { code?: unknown; message?: unknown };
  return (
    err.code === '0A000' && typeof err.message === 'string' && /must not change result type/.test(err.message)
  );
}

// What every read connection starts with (the connect handler below), and what a marked text asks for.
const CUSTOM_PLANS = 'force_custom_plan';
const GENERIC_PLANS = 'force_generic_plan';

/**
 * Sends each statement with parameters as a named prepared statement, so that PostgreSQL parses
 * and analyses a text once per connection: the API's reads repeat the same texts
 * (docs/performance.md, "Prepared statements on PostgreSQL"). The texts vary with a window's
 * blocks and prompt lists, so at most `limit` are kept, the least recently used deallocated past
 * that; names are never reused, so a late deallocation cannot meet a new text. How each is planned
 * is `planModes`'s.
 */
function prepareStatements(client: pg.PoolClient, limit: number): void {
  const names = new Map<string, string>();
  const parsed = (client as unknown as { connection: { parsedStatements: Record<string, string> } })
    .connection.parsedStatements;
  let seq = 0;
  const query = client.query.bind(client) as Query;
  // Awaited: node-postgres is to stop queueing a statement behind one still running.
  const forget = async (text: string, name: string) => {
    names.delete(text);
    delete parsed[name];
    await (query(`deallocate ${name}`) as Promise<unknown>).catch(() => {});
  };
  const prepared = async (config: string, values: unknown[]) => {
    let name = names.get(config);
    if (name === undefined) {
      name = `sl_${++seq}`;
      const oldest = names.entries().next().value;
      if (oldest && names.size >= limit) await forget(...oldest);
    } else {
      names.delete(config);
    }
    names.set(config, name);
    try {
      return await query({ name, text: config, values });
    } catch (error) {
      // A migration added a column under a `select *` prepared before it (a rolling deploy):
      // prepare the text afresh next time, and answer this one unprepared.
      if (!isStaleResultType(error)) throw error;
      await forget(config, name);
      return query(config, values);
    }
  };
  // Anything else (no parameters, a callback, a cursor) goes as it came: a cursor must come back
  // as itself, not in a promise.
  const preparing: Query = (config, values, callback) =>
    typeof config === 'string' && Array.isArray(values) && values.length > 0 && callback === undefined
      ? prepared(config, values)
      : query(config, values, callback);
  client.query = preparing as typeof client.query;
}

/**
 * Plans of the prepared statements: made for each call's values (`plan_cache_mode =
 * force_custom_plan`), except for a text that starts with GENERIC_PLAN: the analytics windows'
 * statements, whose planning cost as much as running them and whose plans are the same index reads
 * for any organization. Their generic plan is made once per connection; for every other statement
 * one made without the values was slower (docs/performance.md, "Planning on PostgreSQL"). The mode
 * belongs to the session, so the connection is switched before a statement of the other kind (a
 * round trip, only when the kind changes). A lookup not marked runs in whichever mode the
 * connection is in: its plan is the same index seek either way, and an analytics request, whose
 * first statement is its scope's lookup, then switches a connection only where a request of
 * another kind left it on custom plans. Statements without parameters are not prepared, so not
 * planned ahead.
 */
function planModes(): Interceptor {
  // The mode last set on each connection; one not here is as connected, on custom plans. A
  // rollback undoes a `set` made inside its transaction: the mode is unknown until set again.
  const current = new WeakMap<DatabaseConnection, string | undefined>();
  return {
    async execute(connection, query, run) {
      if (query.parameters.length === 0) return run();
      const now = current.has(connection) ? current.get(connection) : CUSTOM_PLANS;
      const mode = query.sql.startsWith(GENERIC_PLAN)
        ? GENERIC_PLANS
        : isLookup(query.sql) && now !== undefined
          ? now
          : CUSTOM_PLANS;
      if (mode !== now) {
        current.set(connection, undefined);
        await connection.executeQuery(CompiledQuery.raw(`set plan_cache_mode = ${mode}`));
        current.set(connection, mode);
      }
      return run();
    },
    rolledBack(connection) {
      current.set(connection, undefined);
    },
  };
}

/** A Kysely dialect over a node-postgres pool whose statements obey the request's budget. */
export function postgresDialect(options: PostgresPoolOptions): Dialect {
  const pool = new pg.Pool({
    Client: options.copyIn ? CopyingClient : pg.Client,
    connectionString: options.url,
    max: options.size,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    application_name: options.applicationName,
    keepAlive: true,
  });
  // A connection that dies (a restart, pg_terminate_backend) emits 'error', which would end the
  // process without a listener: the pool's covers idle connections, the client's own covers
  // checked-out ones. The statement in flight fails (503, see connection-loss.ts) and the pool
  // drops the dead client when it comes back, opening a fresh one on a later checkout.
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    client.on('error', () => {});
    // Timestamps must come back, and date arithmetic must happen, in UTC as on SQLite. A SET
    // rather than a startup option works behind poolers that reject unknown startup parameters.
    // One statement for both: node-postgres is to stop queueing a statement behind one running.
    const plans = options.preparedStatements > 0 ? `; set plan_cache_mode = ${CUSTOM_PLANS}` : '';
    client.query(`set time zone 'UTC'${plans}`).catch(() => {});
    if (options.preparedStatements > 0) prepareStatements(client, options.preparedStatements);
  });
  const capped = interceptDialect(
    new PostgresDialect({ pool }),
    statementBudget(options.defaultCapMs, () => pool.idleCount === 0),
  );
  const planned = options.preparedStatements > 0 ? interceptDialect(capped, planModes()) : capped;
  return interceptDialect(planned, connectionLoss);
}
