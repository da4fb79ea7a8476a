import pg from 'pg';
import { ApiError, DatabaseUnavailable } from '../../errors.ts';
import type { Interceptor } from '../intercept.ts';

// SQLSTATEs with which the server itself says that the connection, not the statement, failed:
// class 08 (connection exception), the 57P0x shutdowns, too many connections, and the refusals of
// a connection to a database or as a role that does not exist, or with a wrong password (3D000,
// 28000, 28P01): the service cannot reach its database any more than with the server down.
const CONNECTION_STATES = /^(08...|57P0[1-5]|53300|3D000|28000|28P01)$/;

/**
 * Whether a failure of the driver means the database could not be reached or the connection was
 * lost. node-postgres reports a statement the server answered with an error as a DatabaseError
 * (with its SQLSTATE); everything else it raises while checking out a connection or running a
 * statement (a refused or reset socket, a connection terminated under the statement, a client left
 * unqueryable by an earlier connection error, a checkout timeout) is a plain Error or a Node
 * system error, and means the statement got no answer at all. Type errors are bugs of the caller.
 */
export function isConnectionFailure(error: unknown): boolean {
  if (error instanceof pg.DatabaseError) return CONNECTION_STATES.test(error.code ?? '');
  if (!(error instanceof Error) || error instanceof ApiError) return false;
  const prototype = Object.getPrototypeOf(error);
  return prototype === Error.prototype || typeof (error as NodeJS.ErrnoException).syscall === 'string';
}

function translated(error: unknown): unknown {
  return isConnectionFailure(error) ? new DatabaseUnavailable(error) : error;
}

/** Reports connection failures of checkouts and statements as DatabaseUnavailable (503). */
export const connectionLoss: Interceptor = {
  async acquire(take) {
    try {
      return await take();
    } catch (error) {
      throw translated(error);
    }
  },
  async execute(_connection, _query, run) {
    try {
      return await run();
    } catch (error) {
      throw translated(error);
    }
  },
};
