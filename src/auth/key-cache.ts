import { findKeyForAuthentication, type KeyForAuthentication } from '../db/api-keys.ts';
import type { Db } from '../db/connect.ts';

// Every keyed request starts by reading its key and organization. Those rows change rarely, so
// each process keeps them for a few seconds (decisions.md, "Key cache"): a revoked key, a new plan
// or a switched-off add-on takes effect everywhere within KEY_CACHE_MS. The gate still checks the
// secret, revocation and expiry on every request; only the read is saved.

export const KEY_CACHE_MS = 5_000;
// Only keys that exist are kept, so made-up key ids cannot grow the cache; this bounds the rest.
const MAX_KEYS = 10_000;

export type FindKey = (keyId: string) => Promise<KeyForAuthentication | undefined>;

export function cachedKeyLookup(db: Db, ttlMs = KEY_CACHE_MS, clock: () => number = Date.now): FindKey {
  const entries = new Map<string, { until: number; key: Promise<KeyForAuthentication | undefined> }>();
  return (keyId) => {
    const now = clock();
    const hit = entries.get(keyId);
    if (hit && hit.until > now) return hit.key;
    entries.delete(keyId);
    // Concurrent requests with the same key share one read.
    const key = findKeyForAuthentication(db, keyId);
    entries.set(keyId, { until: now + ttlMs, key });
    if (entries.size > MAX_KEYS) entries.delete(entries.keys().next().value as string);
    key.then(
      (found) => {
        if (!found) entries.delete(keyId);
      },
      () => entries.delete(keyId),
    );
    return key;
  };
}
