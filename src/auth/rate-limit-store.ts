import type { Config } from '../config.ts';
import { MemoryRateLimitStore, type RateLimitStore } from './rate-limit.ts';
import type { RateLimitLogger } from './redis-rate-limit.ts';

/**
 * The store `buildApp` uses: shared in Redis when REDIS_URL is set, else this instance's memory.
 * The Redis client is loaded only then: ioredis is ~8 MiB of a service that never talks to Redis.
 */
export async function createRateLimitStore(
  config: Pick<Config, 'redisUrl' | 'redisKeyPrefix'>,
  logger: RateLimitLogger,
): Promise<RateLimitStore> {
  if (!config.redisUrl) return new MemoryRateLimitStore();
  const { RedisRateLimitStore } = await import('./redis-rate-limit.ts');
  return new RedisRateLimitStore({ url: config.redisUrl, prefix: config.redisKeyPrefix, logger });
}
