import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import { QueryTimeout } from '../../errors.ts';
import { excludeFromBudget, remainingBudgetMs } from '../budget.ts';

const childScript = fileURLToPath(new URL('./reader-child.js', import.meta.url));

interface Pending {
  id: number;
  resolve: (result: QueryResult<unknown>) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

interface Reply {
  id: number;
  /** Each row's values in the order of `columns`. */
  rows?: unknown[][];
  columns?: string[];
  changes?: number;
  error?: { message: string; code?: string };
}

/** The rows as Kysely returns them: one object per row, keyed by column name (the last of a repeated name wins, as in node:sqlite's own objects). */
function objectsOf(columns: readonly string[], rows: readonly unknown[][]): Record<string, unknown>[] {
  return rows.map((values) => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < columns.length; i++) row[columns[i] as string] = values[i];
    return row;
  });
}

/** One read-only SQLite connection living in a child process that can be killed mid-statement. */
class ReaderProcess implements DatabaseConnection {
  dead = false;
  private readonly child: ChildProcess;
  private pending: Pending | undefined;
  private seq = 0;

  private readonly defaultCapMs: number;
  /**
   * Settles when the child has opened the database. A statement's cap starts after it: counting a
   * fresh reader's start-up would let a small cap kill every new reader before it could answer.
   */
  private readonly ready: Promise<void>;

  constructor(path: string, defaultCapMs: number) {
    this.defaultCapMs = defaultCapMs;
    this.child = fork(childScript, [path], {
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.unref();
    this.child.channel?.unref();
    const started = Promise.withResolvers<void>();
    this.ready = started.promise;
    this.ready.catch(() => {});
    this.child.on('message', (reply: Reply | { ready: true }) => {
      if ('ready' in reply) started.resolve();
      else this.settle(reply);
    });
    this.child.on('exit', () => {
      this.dead = true;
      const error = new Error('The SQLite reader process exited unexpectedly.');
      started.reject(error);
      this.fail(error);
    });
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const waitStarted = Date.now();
    await this.ready;
    excludeFromBudget(waitStarted, Date.now());
    const budget = remainingBudgetMs();
    const capMs = budget?.capMs ?? this.defaultCapMs;
    const remainingMs = budget?.remainingMs ?? this.defaultCapMs;
    if (this.dead) return Promise.reject(new Error('The SQLite reader process is gone.'));
    if (remainingMs <= 0) return Promise.reject(new QueryTimeout(capMs));
    return new Promise<QueryResult<R>>((resolve, reject) => {
      const id = ++this.seq;
      const timer = setTimeout(() => {
        // The statement is still running inside SQLite; only ending the process stops it.
        this.kill();
        this.fail(new QueryTimeout(capMs));
      }, remainingMs);
      this.pending = { id, resolve: resolve as Pending['resolve'], reject, timer };
      this.child.send({ id, sql: compiled.sql, params: compiled.parameters });
    });
  }

  // biome-ignore lint/correctness/useYield: streaming is not offered by this driver
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('Streaming queries are not supported on the SQLite reader pool.');
  }

  kill(): void {
    if (!this.dead) {
      this.dead = true;
      this.child.kill('SIGKILL');
    }
  }

  private settle(reply: Reply): void {
    const pending = this.pending;
    if (!pending || pending.id !== reply.id) return;
    this.pending = undefined;
    clearTimeout(pending.timer);
    if (reply.error) {
      pending.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }));
    } else {
      pending.resolve({
        rows: objectsOf(reply.columns ?? [], reply.rows ?? []),
        numAffectedRows: BigInt(reply.changes ?? 0),
      });
    }
  }

  private fail(error: Error): void {
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    clearTimeout(pending.timer);
    pending.reject(error);
  }
}

class ReaderPoolDriver implements Driver {
  private readonly idle: ReaderProcess[] = [];
  private readonly live = new Set<ReaderProcess>();
  private readonly waiters: Array<(reader: ReaderProcess) => void> = [];

  private readonly path: string;
  private readonly size: number;
  private readonly defaultCapMs: number;

  constructor(path: string, size: number, defaultCapMs: number) {
    this.path = path;
    this.size = size;
    this.defaultCapMs = defaultCapMs;
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    let idle = this.idle.pop();
    // A reader that died while idle (killed from outside, out of memory) is dropped here rather
    // than handed out to fail its statement.
    while (idle?.dead) {
      this.live.delete(idle);
      idle = this.idle.pop();
    }
    if (idle) return idle;
    if (this.live.size < this.size) return this.spawn();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const reader = connection as ReaderProcess;
    let next: ReaderProcess | undefined = reader;
    if (reader.dead) {
      this.live.delete(reader);
      next = this.waiters.length > 0 ? this.spawn() : undefined;
    }
    if (!next) return;
    const waiter = this.waiters.shift();
    if (waiter) waiter(next);
    else this.idle.push(next);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async destroy(): Promise<void> {
    for (const reader of this.live) reader.kill();
    this.live.clear();
    this.idle.length = 0;
  }

  private spawn(): ReaderProcess {
    const reader = new ReaderProcess(this.path, this.defaultCapMs);
    this.live.add(reader);
    return reader;
  }
}

/**
 * SQLite's adapter for a pool whose connections are processes of their own. Kysely's SqliteAdapter
 * says that SQLite has a single connection, and Kysely then hands out one connection at a time:
 * the readers would take turns, one statement at a time, however many there are.
 */
class ReaderPoolAdapter extends SqliteAdapter {
  override get supportsMultipleConnections(): boolean {
    return true;
  }
}

/**
 * The dialect for the API's reads on SQLite: a small pool of child processes, each holding one
 * read-only connection, so reads never block the event loop, run side by side, and a statement
 * past the request's database-work cap is really stopped.
 */
export function readerPoolSqliteDialect(path: string, size: number, defaultCapMs: number): Dialect {
  return {
    createAdapter: () => new ReaderPoolAdapter(),
    createDriver: () => new ReaderPoolDriver(path, size, defaultCapMs),
    createQueryCompiler: () => new SqliteQueryCompiler(),
    createIntrospector: (db: Kysely<unknown>) => new SqliteIntrospector(db),
  };
}
