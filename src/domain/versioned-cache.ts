// A per-process store of values computed from the database, valid for one data version
// (Databases.dataVersion): a lookup under any other version empties it, so a kept value is what the
// database would give now. A caller reads the version before its first query and keeps its value
// under that version; the value is dropped when the version moved meanwhile. Least recently used
// values go first once the sizes exceed the bound. docs/performance.md, "Response cache" and
// "Analytics cache".

/** A lookup's place in the cache: what it would be stored under, and the value if kept. */
export interface CacheTicket<V> {
  version: string;
  key: string;
  hit: V | undefined;
}

export interface CacheStats {
  hits: number;
  misses: number;
  entries: number;
  /** The sum of the kept values' sizes, in the unit of `sizeOf`. */
  size: number;
}

export class VersionedCache<V> {
  #version: string | undefined;
  readonly #entries = new Map<string, V>();
  #size = 0;
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

  /** The kept value of `key` under `version`; a version other than the current empties the cache. */
  lookup(version: string, key: string): CacheTicket<V> {
    if (version !== this.#version) {
      this.#entries.clear();
      this.#size = 0;
      this.#version = version;
      this.#misses++;
      return { version, key, hit: undefined };
    }
    const hit = this.#entries.get(key);
    if (hit === undefined) this.#misses++;
    else {
      this.#hits++;
      // Most recently used last, so the first entry is the one to drop.
      this.#entries.delete(key);
      this.#entries.set(key, hit);
    }
    return { version, key, hit };
  }

  /** Keeps a value, unless the data changed while it was computed. */
  store(ticket: CacheTicket<V>, value: V): void {
    const size = this.#sizeOf(value);
    if (ticket.version !== this.#version || size > this.#maxEntrySize) return;
    const previous = this.#entries.get(ticket.key);
    if (previous !== undefined) this.#size -= this.#sizeOf(previous);
    this.#entries.set(ticket.key, value);
    this.#size += size;
    while (this.#size > this.#maxSize) {
      const [oldest, kept] = this.#entries.entries().next().value as [string, V];
      this.#entries.delete(oldest);
      this.#size -= this.#sizeOf(kept);
    }
  }

  /** For the metrics: lookups answered and not, and what is kept now. */
  stats(): CacheStats {
    return { hits: this.#hits, misses: this.#misses, entries: this.#entries.size, size: this.#size };
  }
}
