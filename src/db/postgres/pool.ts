import { type Dialect, PostgresDialect } from 'kysely';
import pg from 'pg';
import { interceptDialect } from '../intercept.ts';
import { connectionLoss } from './connection-loss.ts';
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
}

/** A Kysely dialect over a node-postgres pool whose statements obey the request's budget. */
export function postgresDialect(options: PostgresPoolOptions): Dialect {
  const pool = new pg.Pool({
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
    client.query("set time zone 'UTC'").catch(() => {});
  });
  const capped = interceptDialect(new PostgresDialect({ pool }), statementBudget(options.defaultCapMs));
  return interceptDialect(capped, connectionLoss);
}
