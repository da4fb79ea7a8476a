import { touchKeysLastUsed } from '../db/api-keys.ts';
import type { Db } from '../db/connect.ts';

// Keys' last-used times, written without a commit per key: every commit empties the response and
// analytics caches (a new data version, decisions.md "Response cache, exact"), and a write per
// key and minute would empty them every second with a few dozen keys in use. A key's first use is
// written at once, so whoever made it sees that it works; later uses are kept here and written
// together, each key's latest, once an interval: one commit an interval per process at most.

const LAST_USED_EVERY_MS = 60_000;

export interface LastUseRecorder {
  record(key: { id: number; lastUsedAt: string | null }, at: string): void;
  /** Writes what is kept (the app's close). */
  close(): Promise<void>;
}

export function lastUseRecorder(db: Db): LastUseRecorder {
  const kept = new Map<number, string>();
  // Keys whose first use this process has written: their rows may still say "never" for the key
  // cache's few seconds.
  const firstWritten = new Set<number>();
  let writing = Promise.resolve();

  const flush = () => {
    if (kept.size === 0) return writing;
    const uses = [...kept];
    kept.clear();
    writing = writing
      .then(() => touchKeysLastUsed(db, uses))
      .catch(() => {
        // Bookkeeping, not the request's work: tried again with the next interval's uses.
        for (const [id, at] of uses) if (!kept.has(id)) kept.set(id, at);
      });
    return writing;
  };
  const timer = setInterval(flush, LAST_USED_EVERY_MS);
  timer.unref();

  return {
    record(key, at) {
      if (key.lastUsedAt === null && !firstWritten.has(key.id)) {
        firstWritten.add(key.id);
        touchKeysLastUsed(db, [[key.id, at]]).catch(() => {
          // The database is busy (another process writing): written with the next interval's.
          if (!kept.has(key.id)) kept.set(key.id, at);
        });
        return;
      }
      kept.set(key.id, at);
    },
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
