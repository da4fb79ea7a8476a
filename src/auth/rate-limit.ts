// An exact rolling-window limiter: a key gets at most `limit` accepted requests in any span of
// `windowMs`. Each accepted request's time is kept until it leaves the window, so there is no
// fixed-window burst at the boundary. The store is behind an interface so several instances can
// share one (Redis) while a single instance keeps it in memory.

export interface RateLimitDecision {
  allowed: boolean;
  /** Requests still allowed in the window after this one. */
  remaining: number;
  /** Whole seconds until the oldest counted request leaves the window (a slot frees). */
  resetSeconds: number;
}

export interface RateLimitStore {
  hit(bucket: string, limit: number, windowMs: number, now: number): Promise<RateLimitDecision>;
  close(): Promise<void>;
  // A store shared between instances (Redis) also says how it stands, for metrics and readiness.
  /** True while decisions are made per instance because the shared store is unreachable. */
  readonly degraded?: boolean;
  /** Decisions made per instance since start because the shared store was unreachable. */
  readonly fallbackDecisions?: number;
  /** Whether the shared store answers now. */
  ping?(): Promise<boolean>;
}

/** A bucket's accepted times, oldest first; those before `head` have left the window. */
interface Bucket {
  times: number[];
  head: number;
}

export class MemoryRateLimitStore implements RateLimitStore {
  private readonly buckets = new Map<string, Bucket>();
  private sweeps = 0;

  async hit(bucket: string, limit: number, windowMs: number, now: number): Promise<RateLimitDecision> {
    const since = now - windowMs;
    let kept = this.buckets.get(bucket);
    if (!kept) {
      kept = { times: [], head: 0 };
      this.buckets.set(bucket, kept);
    }
    const { times } = kept;
    while (kept.head < times.length && (times[kept.head] as number) <= since) kept.head++;
    // Expired times are skipped, and dropped only once they are most of the array: removing them
    // from its front on every request moved the whole window's times each time, a cost that grew
    // with the limit (docs/performance.md, "The rate limit's window").
    if (kept.head >= 64 && kept.head * 2 >= times.length) {
      times.splice(0, kept.head);
      kept.head = 0;
    }
    const counted = times.length - kept.head;
    const allowed = counted < limit;
    if (allowed) times.push(now);
    if (++this.sweeps % 10_000 === 0) this.sweep(since);
    const oldest = times[kept.head];
    return {
      allowed,
      remaining: Math.max(0, limit - (times.length - kept.head)),
      resetSeconds: oldest === undefined ? 0 : Math.max(1, Math.ceil((oldest + windowMs - now) / 1000)),
    };
  }

  async close(): Promise<void> {
    this.buckets.clear();
  }

  private sweep(since: number): void {
    for (const [bucket, { times }] of this.buckets) {
      if (times.length === 0 || (times[times.length - 1] as number) <= since) this.buckets.delete(bucket);
    }
  }
}
