import { type ChildProcess, fork } from 'node:child_process';
import type { DatabaseSync } from 'node:sqlite';
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
import { recentlyUsed } from '../../domain/recently-used.js';
import { DatabaseUnavailable, QueryTimeout } from '../../errors.ts';
import { excludeFromBudget, onBudgetSpent, remainingBudgetMs } from '../budget.ts';
import type { PoolUsage } from '../monitor.ts';
import { isLookup } from '../statement-hints.ts';
import { openSqlite, runStatement } from './open.js';
import { type Prepared, statementCache } from './statement-cache.js';

const CLOSED = 'The SQLite reader pool is closed.';

// A reader opens the database in tens of milliseconds, a few seconds on a loaded machine. One that
// has not in this long is stuck (a hung file system, a stopped process): the statement waiting for
// it answers 503 instead of waiting without end, since its cap starts only once a reader is ready.
const START_LIMIT_MS = 20_000;

class ReaderStalled extends Error {
  constructor() {
    super('The SQLite reader process did not start in time.');
  }
}

const childScript = fileURLToPath(new URL('./reader-child.js', import.meta.url));

interface Reply {
  id: number;
  /** Each row's values in the order of `columns`. */
  rows?: unknown[][];
  columns?: string[];
  changes?: number;
  error?: { message: string; code?: string };
}

type RowMaker = (values: readonly unknown[]) => Record<string, unknown>;

// One maker per column list, compiled once: an object literal gives each row its final shape at
// once, where adding the keys one by one built it up key by key (3 to 8 times the time, and more
// garbage: docs/performance.md, "Rows from the readers as arrays"). The lists are the statements'
// own, a few hundred shapes at most.
const makers = recentlyUsed<RowMaker>(1_000);

function makerOf(columns: readonly string[]): RowMaker {
  // Joined on NUL, which no SQLite name holds.
  return makers(columns.join('\u0000'), () => {
    // Quoted keys, so that any name is taken literally; `__proto__` computed, so that it is a
    // column like any other and not the object's prototype.
    const keys = columns.map((name) =>
      name === '__proto__' ? `[${JSON.stringify(name)}]` : JSON.stringify(name),
    );
    return new Function(
      'values',
      `return { ${keys.map((key, i) => `${key}: values[${i}]`).join(', ')} };`,
    ) as RowMaker;
  });
}

/** The rows as Kysely returns them: one object per row, keyed by column name (the last of a repeated name wins, as in node:sqlite's own objects). */
function objectsOf(columns: readonly string[], rows: readonly unknown[][]): Record<string, unknown>[] {
  return rows.map(makerOf(columns));
}

/** A reader process and the promise that settles once it has opened the database. */
interface Child {
  process: ChildProcess;
  ready: Promise<void>;
}

interface Pending {
  id: number;
  child: Child;
  resolve: (result: QueryResult<unknown>) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
  compiled: CompiledQuery;
  /** Whether the statement may run once more on a fresh process: not after a second try. */
  mayRetry: boolean;
}

/**
 * The pool's read-only connection in the service's own process, for lookups
 * (statement-hints.ts): a seek or a scope's catalog rows cost SQLite microseconds, less than the
 * messages to and from a reader. Opened on the first lookup. A lookup cannot be stopped once
 * started, as a reader's statement can, which is why only statements that cannot run long are
 * marked; one past the request's budget is refused before it starts, as a reader's would be.
 */
class Lookups {
  private db: DatabaseSync | undefined;
  private prepare: ((sql: string) => Prepared) | undefined;

  private readonly path: string;

  constructor(path: string) {
    this.path = path;
  }

  run(compiled: CompiledQuery): QueryResult<unknown> {
    const budget = remainingBudgetMs();
    if (budget && budget.remainingMs <= 0) throw new QueryTimeout(budget.capMs);
    if (!this.prepare) {
      this.db = openSqlite(this.path, { queryOnly: true });
      // Arrays made into rows as a reader's are, so that both give rows of the same make.
      this.prepare = statementCache(this.db, { returnArrays: true });
    }
    const { rows, columns, changes } = runStatement(this.prepare, compiled.sql, compiled.parameters);
    return { rows: objectsOf(columns, rows as unknown[][]), numAffectedRows: BigInt(changes) };
  }

  close(): void {
    this.db?.close();
    this.db = undefined;
    this.prepare = undefined;
  }
}

/**
 * One read-only SQLite connection living in a child process that can be killed mid-statement.
 * A process that is gone (ended by the cap, killed from outside, out of memory) is replaced by a
 * fresh one on the next statement, and a statement whose process died under it runs once more
 * on a fresh one: the readers only read, outside any transaction, so running a statement again
 * changes nothing.
 */
class ReaderProcess {
  private child: Child | undefined;
  private pending: Pending | undefined;
  private seq = 0;
  private transactionOpen = false;
  private closed = false;

  private readonly path: string;
  private readonly defaultCapMs: number;
  private readonly startLimitMs: number;

  constructor(path: string, defaultCapMs: number, startLimitMs: number) {
    this.path = path;
    this.defaultCapMs = defaultCapMs;
    this.startLimitMs = startLimitMs;
    this.start();
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    if (compiled.sql === 'begin') this.transactionOpen = true;
    else if (compiled.sql === 'commit' || compiled.sql === 'rollback') this.transactionOpen = false;
    return this.run(compiled, true) as Promise<QueryResult<R>>;
  }

  close(): void {
    this.closed = true;
    this.end();
  }

  private async run(compiled: CompiledQuery, mayRetry: boolean): Promise<QueryResult<unknown>> {
    if (this.closed) throw new Error(CLOSED);
    const child = this.child ?? this.start();
    const waitStarted = Date.now();
    // A statement's cap starts once its process has opened the database: counting a fresh
    // reader's start-up would let a small cap kill every new reader before it could answer.
    const failure = await child.ready.then(
      () => undefined,
      (error: Error) => error,
    );
    excludeFromBudget(waitStarted, Date.now());
    // Not tried again on another fresh reader: that would be another wait as long.
    if (failure instanceof ReaderStalled) throw new DatabaseUnavailable(failure);
    if (failure || this.child !== child) return this.again(compiled, mayRetry);
    const budget = remainingBudgetMs();
    const capMs = budget?.capMs ?? this.defaultCapMs;
    const remainingMs = budget?.remainingMs ?? this.defaultCapMs;
    if (remainingMs <= 0) throw new QueryTimeout(capMs);
    return new Promise((resolve, reject) => {
      const id = ++this.seq;
      const timer = setTimeout(() => {
        this.pending = undefined;
        // The statement is still running inside SQLite; only ending the process stops it.
        this.end();
        reject(new QueryTimeout(capMs));
      }, remainingMs);
      this.pending = { id, child, resolve, reject, timer, compiled, mayRetry };
      child.process.send({ id, sql: compiled.sql, params: compiled.parameters }, (error) => {
        if (error) this.lost(child);
      });
    });
  }

  /** The statement's answer once its process is gone: from a fresh one, or 503. */
  private again(compiled: CompiledQuery, mayRetry: boolean): Promise<QueryResult<unknown>> {
    if (mayRetry && !this.transactionOpen) return this.run(compiled, false);
    return Promise.reject(new DatabaseUnavailable(new Error('The SQLite reader process exited.')));
  }

  private start(): Child {
    const forked = fork(childScript, [this.path], {
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const started = Promise.withResolvers<void>();
    const child: Child = { process: forked, ready: started.promise };
    const lost = () => {
      started.reject(new Error('The SQLite reader process exited.'));
      this.lost(child);
    };
    const stalled = setTimeout(() => {
      started.reject(new ReaderStalled());
      lost();
      forked.kill('SIGKILL');
    }, this.startLimitMs);
    // An idle reader does not keep this process alive, but a starting one does: a statement waiting
    // for it has no cap timer yet (the cap starts once the reader is ready), and a process with
    // nothing else to wait for (a script on buildApp without a port) would end with it unanswered.
    const idle = () => {
      clearTimeout(stalled);
      forked.unref();
      forked.channel?.unref();
    };
    started.promise.then(idle, idle);
    forked.on('message', (reply: Reply | { ready: true }) => {
      if ('ready' in reply) started.resolve();
      else this.settle(child, reply);
    });
    forked.on('exit', lost);
    // Emitted when the process could not be started or sent to (it died between two statements).
    forked.on('error', lost);
    this.child = child;
    return child;
  }

  /** Ends the current process; the next statement starts a fresh one. */
  private end(): void {
    const child = this.child;
    this.child = undefined;
    child?.process.kill('SIGKILL');
  }

  private settle(child: Child, reply: Reply): void {
    const pending = this.pending;
    if (!pending || pending.child !== child || pending.id !== reply.id) return;
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

  private lost(child: Child): void {
    if (this.child === child) this.child = undefined;
    const pending = this.pending;
    if (!pending || pending.child !== child) return;
    this.pending = undefined;
    clearTimeout(pending.timer);
    this.again(pending.compiled, pending.mayRetry).then(pending.resolve, pending.reject);
  }
}

/**
 * What Kysely holds as one of the pool's connections. It takes a reader only for a statement that
 * needs one, and gives it back once that statement is done (a transaction holds its reader from
 * `begin` to its end): a lookup, answered in this process, never waits for a reader that slow
 * statements of other requests keep busy.
 */
class PoolHandle implements DatabaseConnection {
  /** The reader a transaction holds from its `begin` to its end. */
  private held: ReaderProcess | undefined;

  private readonly driver: ReaderPoolDriver;

  constructor(driver: ReaderPoolDriver) {
    this.driver = driver;
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const held = this.held;
    if (held) return this.inTransaction(held, compiled);
    if (isLookup(compiled.sql)) return this.driver.lookup(compiled) as QueryResult<R>;
    const reader = await this.driver.take();
    try {
      const result = await reader.executeQuery<R>(compiled);
      if (compiled.sql === 'begin') this.held = reader;
      return result;
    } finally {
      if (this.held !== reader) this.driver.give(reader);
    }
  }

  // biome-ignore lint/correctness/useYield: streaming is not offered by this driver
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('Streaming queries are not supported on the SQLite reader pool.');
  }

  /** Back to the pool: a transaction left open is rolled back so its reader starts clean. */
  async release(): Promise<void> {
    const held = this.held;
    if (held) await this.inTransaction(held, CompiledQuery.raw('rollback')).catch(() => {});
  }

  private async inTransaction<R>(held: ReaderProcess, compiled: CompiledQuery): Promise<QueryResult<R>> {
    // A failed commit leaves the transaction open for the rollback that follows; a rollback ends it
    // whatever it answers.
    let ended = compiled.sql === 'rollback';
    try {
      const result = await held.executeQuery<R>(compiled);
      ended ||= compiled.sql === 'commit';
      return result;
    } finally {
      if (ended) {
        this.held = undefined;
        this.driver.give(held);
      }
    }
  }
}

class ReaderPoolDriver implements Driver {
  private readonly lookups: Lookups;
  private readonly idle: ReaderProcess[] = [];
  private readonly readers: ReaderProcess[] = [];
  private readonly waiters: Array<PromiseWithResolvers<ReaderProcess>> = [];
  private readonly handles: PoolHandle[] = [];
  private closed = false;

  private readonly path: string;
  private readonly size: number;
  private readonly defaultCapMs: number;
  private readonly usage: PoolUsage;
  private readonly startLimitMs: number;

  constructor(path: string, size: number, defaultCapMs: number, usage: PoolUsage, startLimitMs: number) {
    this.path = path;
    this.size = size;
    this.defaultCapMs = defaultCapMs;
    this.usage = usage;
    this.startLimitMs = startLimitMs;
    this.lookups = new Lookups(path);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return this.handles.pop() ?? new PoolHandle(this);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const handle = connection as PoolHandle;
    await handle.release();
    this.handles.push(handle);
  }

  lookup(compiled: CompiledQuery): QueryResult<unknown> {
    if (this.closed) throw new Error(CLOSED);
    return this.lookups.run(compiled);
  }

  /** An idle reader, a new one while the pool has room, or the next one given back. */
  async take(): Promise<ReaderProcess> {
    if (this.closed) throw new Error(CLOSED);
    let reader = this.idle.pop();
    if (!reader && this.readers.length < this.size) {
      reader = new ReaderProcess(this.path, this.defaultCapMs, this.startLimitMs);
      this.readers.push(reader);
    }
    reader ??= await this.nextGivenBack();
    this.usage.inUse++;
    return reader;
  }

  /**
   * The next reader given back. A statement of a request stops waiting when the request's budget
   * runs out, however many statements are still ahead of it: the cap counts the wait.
   */
  private async nextGivenBack(): Promise<ReaderProcess> {
    const waiter = Promise.withResolvers<ReaderProcess>();
    this.waiters.push(waiter);
    this.usage.waiting++;
    // Leaving the queue in the same turn as the rejection, so no reader can be handed to it after.
    const cancel = onBudgetSpent((timeout) => {
      const at = this.waiters.indexOf(waiter);
      if (at < 0) return;
      this.waiters.splice(at, 1);
      waiter.reject(timeout);
    });
    try {
      return await waiter.promise;
    } finally {
      cancel?.();
      this.usage.waiting--;
    }
  }

  give(reader: ReaderProcess): void {
    this.usage.inUse--;
    const waiter = this.waiters.shift();
    if (waiter) waiter.resolve(reader);
    else this.idle.push(reader);
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
    this.closed = true;
    for (const waiter of this.waiters.splice(0)) waiter.reject(new Error(CLOSED));
    for (const reader of this.readers) reader.close();
    this.readers.length = 0;
    this.idle.length = 0;
    this.lookups.close();
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
 * past the request's database-work cap is really stopped. Lookups, which cannot run long, are
 * answered on one connection in this process instead, without waiting for a reader.
 * `startLimitMs`: how long a fresh reader may take to open the database (tests shorten it).
 */
export function readerPoolSqliteDialect(
  path: string,
  size: number,
  defaultCapMs: number,
  usage: PoolUsage,
  startLimitMs = START_LIMIT_MS,
): Dialect {
  return {
    createAdapter: () => new ReaderPoolAdapter(),
    createDriver: () => new ReaderPoolDriver(path, size, defaultCapMs, usage, startLimitMs),
    createQueryCompiler: () => new SqliteQueryCompiler(),
    createIntrospector: (db: Kysely<unknown>) => new SqliteIntrospector(db),
  };
}
