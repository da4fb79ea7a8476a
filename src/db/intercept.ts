import type {
  CompiledQuery,
  DatabaseConnection,
  Dialect,
  Driver,
  QueryCompiler,
  QueryResult,
  TransactionSettings,
} from 'kysely';

/**
 * Work done around a dialect's connections without touching the dialect itself: per-statement
 * time caps (PostgreSQL) and metrics (both databases) are layered on this way.
 */
export interface Interceptor {
  /**
   * Around taking a connection from the pool; `take` does the taking. An interceptor that gives
   * up waiting hands the connection `take` still brings to `giveBack`.
   */
  acquire?(
    take: () => Promise<DatabaseConnection>,
    giveBack: (connection: DatabaseConnection) => Promise<void>,
  ): Promise<DatabaseConnection>;
  /** After a connection went back to the pool. */
  released?(): void;
  /** Around one statement; `connection` is the wrapped dialect's own connection object. */
  execute<R>(
    connection: DatabaseConnection,
    query: CompiledQuery,
    run: () => Promise<QueryResult<R>>,
  ): Promise<QueryResult<R>>;
  /** A rollback undid session settings made inside the transaction on this connection. */
  rolledBack?(connection: DatabaseConnection): void;
}

class InterceptedConnection implements DatabaseConnection {
  readonly inner: DatabaseConnection;
  private readonly interceptor: Interceptor;
  cancelQuery?: DatabaseConnection['cancelQuery'];
  killSession?: DatabaseConnection['killSession'];
  collectSessionInfo?: DatabaseConnection['collectSessionInfo'];

  constructor(inner: DatabaseConnection, interceptor: Interceptor) {
    this.inner = inner;
    this.interceptor = interceptor;
    // Kysely probes these optional capabilities by presence, so forward only what the inner has.
    if (inner.cancelQuery) this.cancelQuery = (provider) => inner.cancelQuery!(provider);
    if (inner.killSession) this.killSession = (provider) => inner.killSession!(provider);
    if (inner.collectSessionInfo) this.collectSessionInfo = () => inner.collectSessionInfo!();
  }

  executeQuery<R>(query: CompiledQuery, options?: Parameters<DatabaseConnection['executeQuery']>[1]) {
    return this.interceptor.execute(this.inner, query, () => this.inner.executeQuery<R>(query, options));
  }

  streamQuery<R>(
    query: CompiledQuery,
    chunkSize: number,
    options?: Parameters<DatabaseConnection['streamQuery']>[2],
  ) {
    return this.inner.streamQuery<R>(query, chunkSize, options);
  }
}

type Compile = QueryCompiler['compileQuery'];

class InterceptingDriver implements Driver {
  private readonly inner: Driver;
  private readonly interceptor: Interceptor;
  // One wrapper per underlying connection, so that per-connection state keyed on it stays put.
  private readonly wrappers = new WeakMap<DatabaseConnection, InterceptedConnection>();
  savepoint?: Driver['savepoint'];
  rollbackToSavepoint?: Driver['rollbackToSavepoint'];
  releaseSavepoint?: Driver['releaseSavepoint'];

  constructor(inner: Driver, interceptor: Interceptor) {
    this.inner = inner;
    this.interceptor = interceptor;
    // The inner driver's own methods may reach into its private connection members, so they
    // always get the unwrapped connection.
    if (inner.savepoint) {
      this.savepoint = (c, name, compile: Compile) => inner.savepoint!(unwrap(c), name, compile);
    }
    if (inner.rollbackToSavepoint) {
      this.rollbackToSavepoint = async (c, name, compile: Compile) => {
        try {
          await inner.rollbackToSavepoint!(unwrap(c), name, compile);
        } finally {
          interceptor.rolledBack?.(unwrap(c));
        }
      };
    }
    if (inner.releaseSavepoint) {
      this.releaseSavepoint = (c, name, compile: Compile) =>
        inner.releaseSavepoint!(unwrap(c), name, compile);
    }
  }

  init(options?: Parameters<Driver['init']>[0]): Promise<void> {
    return this.inner.init(options);
  }

  async acquireConnection(options?: Parameters<Driver['acquireConnection']>[0]): Promise<DatabaseConnection> {
    const take = () => this.inner.acquireConnection(options);
    const giveBack = (connection: DatabaseConnection) => this.inner.releaseConnection(connection);
    const connection = await (this.interceptor.acquire ? this.interceptor.acquire(take, giveBack) : take());
    let wrapper = this.wrappers.get(connection);
    if (!wrapper) {
      wrapper = new InterceptedConnection(connection, this.interceptor);
      this.wrappers.set(connection, wrapper);
    }
    return wrapper;
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(unwrap(connection), settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(unwrap(connection));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await this.inner.rollbackTransaction(unwrap(connection));
    } finally {
      this.interceptor.rolledBack?.(unwrap(connection));
    }
  }

  async releaseConnection(
    connection: DatabaseConnection,
    options?: Parameters<Driver['releaseConnection']>[1],
  ): Promise<void> {
    try {
      await this.inner.releaseConnection(unwrap(connection), options);
    } finally {
      this.interceptor.released?.();
    }
  }

  destroy(options?: Parameters<Driver['destroy']>[0]): Promise<void> {
    return this.inner.destroy(options);
  }
}

function unwrap(connection: DatabaseConnection): DatabaseConnection {
  return connection instanceof InterceptedConnection ? connection.inner : connection;
}

/** The same dialect, with `interceptor` around every connection and statement of its driver. */
export function interceptDialect(dialect: Dialect, interceptor: Interceptor): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => new InterceptingDriver(dialect.createDriver(), interceptor),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}
