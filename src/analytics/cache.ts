import { VersionedCache } from '../domain/versioned-cache.ts';

// What analytics requests compute from the database before shaping a body (a scope's bounds, a
// window side's sums, a score history's points and delta), kept by each service process for the
// HTTP routes. Each value is kept under a key that names everything it was read from besides the
// data: the scope, and the runs its time ranges hold (db/analytics.ts runSpans), so a rolling
// window asked again a minute later, whose ends passed no run, finds it. Bounds are kept for one
// data version; sums and histories also name the scope's stamp (db/analytics.ts analyticsStamps)
// and outlive commits that leave it alone. docs/performance.md, "Analytics cache" and "Kept across
// commits".

// A rough measure of what a kept value holds: its rows, at a few hundred bytes each.
const BYTES_PER_ROW = 200;

interface Entry {
  value: unknown;
  rows: number;
}

export class AnalyticsCache extends VersionedCache<Entry> {
  /** Values read under a stamp whose stamp is being read again, by key (see `kept`). */
  readonly checking = new Map<string, Promise<void>>();

  constructor(maxBytes: number) {
    super(maxBytes, (entry) => entry.rows * BYTES_PER_ROW);
  }

  /** Once every check under way has ended: before the databases close. */
  async settled(): Promise<void> {
    await Promise.all(this.checking.values());
  }
}

/** A cache and the data version the caller read before its first query. */
export interface CacheUse {
  cache: AnalyticsCache;
  version: string;
  /** Reads the data version again without a statement, where the database allows (SQLite). */
  versionNow?: () => string;
}

/**
 * The value kept under `key`, else `load`'s, kept; without a cache, always `load`'s. Kept for the
 * data version read before, unless `unchanged` is given: then the key names everything the value
 * rests on (a scope's stamp among it), the value outlives data versions, and it is kept only if
 * `unchanged` still holds once it is loaded, so that a value read across a change of what the key
 * names is not kept under the name it had before. When the data version has not moved since
 * `use.version` was read, nothing was committed while the value was read, so it holds without
 * asking the database. Otherwise (always on PostgreSQL) the stamp is read again after the value is
 * returned: whether it is kept does not change this answer, and the request need not wait one more
 * statement for it. A lookup of the same key meanwhile waits for that check, so that it finds the
 * value if it is kept.
 */
export async function kept<T>(
  use: CacheUse | undefined,
  key: string,
  load: () => Promise<T>,
  rows: (value: T) => number,
  unchanged?: () => Promise<boolean>,
): Promise<T> {
  if (!use) return load();
  const { cache } = use;
  const checked = cache.checking.get(key);
  if (checked) await checked;
  const ticket = cache.lookup(use.version, key, unchanged !== undefined);
  if (ticket.hit) return ticket.hit.value as T;
  const value = await load();
  const store = () => cache.store(ticket, { value, rows: rows(value) });
  if (!unchanged || use.versionNow?.() === use.version) {
    store();
    return value;
  }
  // A failed check (the database gone, the request's budget spent) keeps nothing; the answer is
  // already on its way.
  const check: Promise<void> = unchanged()
    .then((holds) => {
      if (holds) store();
    })
    .catch(() => {})
    .finally(() => {
      if (cache.checking.get(key) === check) cache.checking.delete(key);
    });
  cache.checking.set(key, check);
  return value;
}
