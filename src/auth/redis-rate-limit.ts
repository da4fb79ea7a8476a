import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';
import { MemoryRateLimitStore, type RateLimitDecision, type RateLimitStore } from './rate-limit.ts';

// The rolling window of rate-limit.ts, kept in Redis so that every instance counts against the
// same window. One sorted set per bucket: a member per accepted request, scored by its time.
// The whole decision is one Lua script, so concurrent requests on different instances can never
// both take the last slot. Time comes from Redis itself (`TIME`) unless the caller's clock is
// asked for: one clock for every instance, so skew between hosts cannot widen the window.
const SLIDING_WINDOW_HIT = `
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
if now == nil then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local allowed = 0
if count < limit then
  redis.call('ZADD', key, now, ARGV[4])
  count = count + 1
  allowed = 1
end
redis.call('PEXPIRE', key, window)
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
local reset = -1
if oldest[2] then reset = tonumber(oldest[2]) + window - now end
return {allowed, limit - count, reset}
`;

type WithHitCommand = Redis & {
  slidingWindowHit(
    key: string,
    limit: number,
    windowMs: number,
    now: string,
    member: string,
  ): Promise<[number, number, number]>;
};

// A rate-limit check sits in front of every request: it must answer fast or not at all.
const COMMAND_TIMEOUT_MS = 500;
// Right after start-up the first requests wait this long for the first connection rather than
// being counted per instance while it is still being made.
const FIRST_CONNECTION_WAIT_MS = 2_000;

export type RateLimitLogger = Pick<FastifyBaseLogger, 'error' | 'warn'>;

export interface RedisRateLimitOptions {
  url: string;
  /** Prefix of every key this store writes. */
  prefix: string;
  /** `server` (default): Redis's clock. `caller`: the `now` passed to `hit`, for tests. */
  clock?: 'server' | 'caller';
  logger?: RateLimitLogger;
}

/**
 * The shared, exact limiter for several instances. When Redis cannot be reached each instance
 * keeps answering and limits on its own (in memory) until Redis returns: a rate-limit outage
 * must not become an API outage. The switch is logged once each way and shown by `degraded`.
 */
export class RedisRateLimitStore implements RateLimitStore {
  /** True while decisions are made per instance because Redis is unreachable. */
  degraded = false;
  /** Decisions made by the in-memory fallback since start. */
  fallbackDecisions = 0;

  private readonly redis: WithHitCommand;
  private readonly prefix: string;
  private readonly clock: 'server' | 'caller';
  private readonly logger: RateLimitLogger | undefined;
  private readonly fallback = new MemoryRateLimitStore();
  private readonly memberPrefix = randomUUID();
  private sequence = 0;
  private readonly firstConnection: Promise<void>;

  constructor(options: RedisRateLimitOptions) {
    this.prefix = options.prefix;
    this.clock = options.clock ?? 'server';
    this.logger = options.logger;
    this.redis = new Redis(options.url, {
      // Never park a request's check behind a reconnect: fall back at once instead.
      enableOfflineQueue: false,
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: COMMAND_TIMEOUT_MS * 4,
      maxRetriesPerRequest: 0,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    }) as WithHitCommand;
    this.redis.defineCommand('slidingWindowHit', { numberOfKeys: 1, lua: SLIDING_WINDOW_HIT });
    this.redis.on('error', (error: Error) => this.degrade(error));
    this.redis.on('ready', () => this.restore());
    this.firstConnection = new Promise((resolve) => {
      const timer = setTimeout(resolve, FIRST_CONNECTION_WAIT_MS);
      timer.unref();
      const settle = () => {
        clearTimeout(timer);
        resolve();
      };
      this.redis.once('ready', settle);
      this.redis.once('error', settle);
    });
  }

  async hit(bucket: string, limit: number, windowMs: number, now: number): Promise<RateLimitDecision> {
    if (this.redis.status !== 'ready') await this.firstConnection;
    if (this.redis.status === 'ready') {
      try {
        const [allowed, remaining, resetMs] = await this.redis.slidingWindowHit(
          `${this.prefix}ratelimit:${bucket}`,
          limit,
          windowMs,
          this.clock === 'caller' ? String(now) : '',
          `${this.memberPrefix}:${++this.sequence}`,
        );
        this.restore();
        return {
          allowed: allowed === 1,
          remaining: Math.max(0, remaining),
          resetSeconds: resetMs < 0 ? 0 : Math.max(1, Math.ceil(resetMs / 1000)),
        };
      } catch (error) {
        this.degrade(error as Error);
      }
    } else {
      this.degrade(new Error(`Redis connection is ${this.redis.status}`));
    }
    this.fallbackDecisions++;
    return this.fallback.hit(bucket, limit, windowMs, now);
  }

  /** Whether Redis answers a PING now; for readiness. */
  async ping(): Promise<boolean> {
    if (this.redis.status !== 'ready') await this.firstConnection;
    if (this.redis.status !== 'ready') return false;
    try {
      return (await this.redis.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.fallback.close();
    if (this.redis.status === 'ready') {
      try {
        await this.redis.quit();
        return;
      } catch {
        // fall through to a hard disconnect
      }
    }
    this.redis.disconnect();
  }

  private degrade(error: Error): void {
    if (this.degraded) return;
    this.degraded = true;
    this.logger?.error(
      { err: error },
      'Redis is unreachable: rate limits are enforced per instance, in memory, until it returns',
    );
  }

  private restore(): void {
    if (!this.degraded) return;
    this.degraded = false;
    this.logger?.warn('Redis is reachable again: rate limits are shared across instances again');
  }
}
