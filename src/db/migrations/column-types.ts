import { type ColumnDataType, type CreateTableBuilder, type Kysely, PostgresAdapter } from 'kysely';

// The few column types that differ between SQLite and PostgreSQL. Migrations ask for them here
// instead of branching on the dialect themselves.
export interface ColumnTypes {
  timestamp: ColumnDataType;
  float: ColumnDataType;
  blob: ColumnDataType;
  /** An auto-numbered integer primary key named `id`. */
  withId<T extends string>(table: CreateTableBuilder<T, never>): CreateTableBuilder<T, 'id'>;
}

export function isPostgres(db: Pick<Kysely<unknown>, 'getExecutor'>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

export function columnTypes(db: Kysely<unknown>): ColumnTypes {
  const pg = isPostgres(db);
  return {
    timestamp: pg ? 'timestamptz' : 'text',
    float: pg ? 'double precision' : 'real',
    blob: pg ? 'bytea' : 'blob',
    withId: (table) =>
      pg
        ? table.addColumn('id', 'bigserial', (c) => c.primaryKey())
        : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement()),
  };
}
