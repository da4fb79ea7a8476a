import type { FastifyRequest } from 'fastify';

// Answers of the routes whose body is a function of the organization, the URL and the stored data
// alone (no clock, no caller field besides the organization), kept per process and keyed by the
// database's data version (Databases.dataVersion): a commit anywhere changes the version, and a
// new version empties the cache, so a kept answer is byte for byte what the database would give
// now. A request reads the version before its first query; an answer is kept only if the version
// it was computed under is still the current one. docs/performance.md, "Response cache".

/** A request's place in the cache: what it would be stored under, and the answer if kept. */
export interface CacheTicket {
  version: string;
  key: string;
  hit: Buffer | undefined;
}

export class ResponseCache {
  #version: string | undefined;
  readonly #entries = new Map<string, Buffer>();
  #bytes = 0;
  #hits = 0;
  #misses = 0;
  readonly #maxBytes: number;
  readonly #maxEntryBytes: number;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
    // One large answer (a 500-row run page is ~200 kB) may not push out everything else.
    this.#maxEntryBytes = Math.floor(maxBytes / 8);
  }

  /** The kept answer of `key` under `version`; a version other than the current empties the cache. */
  lookup(version: string, key: string): CacheTicket {
    if (version !== this.#version) {
      this.#entries.clear();
      this.#bytes = 0;
      this.#version = version;
      this.#misses++;
      return { version, key, hit: undefined };
    }
    const hit = this.#entries.get(key);
    if (!hit) this.#misses++;
    else {
      this.#hits++;
      // Most recently used last, so the first entry is the one to drop.
      this.#entries.delete(key);
      this.#entries.set(key, hit);
    }
    return { version, key, hit };
  }

  /** Keeps an answer, unless the data changed while it was computed. */
  store(ticket: CacheTicket, body: Buffer): void {
    if (ticket.version !== this.#version || body.length > this.#maxEntryBytes) return;
    const previous = this.#entries.get(ticket.key);
    if (previous) this.#bytes -= previous.length;
    this.#entries.set(ticket.key, body);
    this.#bytes += body.length;
    while (this.#bytes > this.#maxBytes) {
      const [oldest, kept] = this.#entries.entries().next().value as [string, Buffer];
      this.#entries.delete(oldest);
      this.#bytes -= kept.length;
    }
  }

  /** For the metrics: lookups answered and not, and what is kept now. */
  stats(): { hits: number; misses: number; entries: number; bytes: number } {
    return { hits: this.#hits, misses: this.#misses, entries: this.#entries.size, bytes: this.#bytes };
  }
}

/**
 * What a cacheable answer depends on besides the data: the organization, and the URL as the
 * client sent it, with scheme and host (pagination links are absolute).
 */
export function cacheKey(request: FastifyRequest, orgId: number): string {
  return `${orgId} ${request.protocol}://${request.host}${request.url}`;
}
