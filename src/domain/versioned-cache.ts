// A per-process store of values computed from the database, valid for one data version
// (Databases.dataVersion): a lookup under any other version drops them, so a kept value is what the
// database would give now. A caller reads the version before its first query and keeps its value
// under that version; the value is dropped when the version moved meanwhile. A value kept
// `durable` instead names in its key everything it was computed from (analytics/cache.ts) and
// survives other versions. Least recently used values go first once the sizes exceed the bound.
// docs/performance.md, "Response cache", "Analytics cache" and "Kept across commits".

/** A lookup's place in the cache: what it would be stored under, and the value if kept. */
export interface CacheTicket<V> {
  version: string;
  key: string;
  hit: V | undefined;
  durable: boolean;
}

export interface CacheStats {
  hits: number;
  misses: number;
  entries: number;
  /** The sum of the kept values' sizes, in the unit of `sizeOf`. */
  size: number;
}

/** A kept value, and whether it outlives other versions. */
interface Entry<V> {
  value: V;
  durable: boolean;
}

export class VersionedCache<V> {
  #version: string | undefined;
  readonly #entries = new Map<string, Entry<V>>();
  #size = 0;
  /** How many kept values are durable: none (the response cache), and a new version is a clear. */
  #durable = 0;
  #hits = 0;
  #misses = 0;
  readonly #maxSize: number;
  readonly #maxEntrySize: number;
  readonly #sizeOf: (value: V) => number;

  constructor(maxSize: number, sizeOf: (value: V) => number) {
    this.#maxSize = maxSize;
    // One large value may not push out everything else.
    this.#maxEntrySize = Math.floor(maxSize / 8);
    this.#sizeOf = sizeOf;
  }

  /**
   * The kept value of `key` under `version`; a version other than the current drops every value
   * not kept `durable`.
   */
  lookup(version: string, key: string, durable = false): CacheTicket<V> {
    if (version !== this.#version && this.#durable === 0) {
      this.#entries.clear();
      this.#size = 0;
    } else if (version !== this.#version) {
      for (const [kept, entry] of this.#entries) {
        if (entry.durable) continue;
        this.#entries.delete(kept);
        this.#forget(entry);
      }
    }
    this.#version = version;
    const entry = this.#entries.get(key);
    if (entry === undefined) this.#misses++;
    else {
      this.#hits++;
      // Most recently used last, so the first entry is the one to drop.
      this.#entries.delete(key);
      this.#entries.set(key, entry);
    }
    return { version, key, hit: entry?.value, durable };
  }

  /** Keeps a value, unless the data changed while it was computed (durable: the caller checked). */
  store(ticket: CacheTicket<V>, value: V): void {
    const size = this.#sizeOf(value);
    if ((!ticket.durable && ticket.version !== this.#version) || size > this.#maxEntrySize) return;
    const previous = this.#entries.get(ticket.key);
    if (previous !== undefined) this.#forget(previous);
    this.#entries.set(ticket.key, { value, durable: ticket.durable });
    this.#size += size;
    if (ticket.durable) this.#durable++;
    while (this.#size > this.#maxSize) {
      const [oldest, kept] = this.#entries.entries().next().value as [string, Entry<V>];
      this.#entries.delete(oldest);
      this.#forget(kept);
    }
  }

  /** Takes a value leaving the cache out of its sums. */
  #forget(entry: Entry<V>): void {
    this.#size -= this.#sizeOf(entry.value);
    if (entry.durable) this.#durable--;
  }

  /** For the metrics: lookups answered and not, and what is kept now. */
  stats(): CacheStats {
    return { hits: this.#hits, misses: this.#misses, entries: this.#entries.size, size: this.#size };
  }
}
