import type { RateLimitStore } from '../auth/rate-limit.ts';
import { type Databases, type Db, ping } from '../db/connect.ts';
import type { App } from '../http/types.ts';

// A probe must answer within the load balancer's own timeout, whatever the dependency does.
const CHECK_TIMEOUT_MS = 2_000;

type CheckResult = 'ok' | 'unreachable' | 'not_configured';

async function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function databaseAnswers(db: Db): Promise<boolean> {
  try {
    await within(ping(db), CHECK_TIMEOUT_MS);
    return true;
  } catch {
    return false;
  }
}

export interface HealthOptions {
  dbs: Databases;
  rateLimit: RateLimitStore;
}

/**
 * Liveness and readiness for orchestrators and load balancers: no key, no rate limit.
 * `/readyz` is 503 when the database the API reads from cannot be reached: the instance can
 * serve nothing. The primary (when reads go to a replica) and Redis are shared by every
 * instance and losing them only degrades bookkeeping and rate limiting (then per instance), so
 * failing readiness for them would take the whole fleet out of rotation at once: they are
 * reported as `degraded` with 200 instead.
 */
export async function healthRoutes(app: App, options: HealthOptions): Promise<void> {
  const route = { schema: { hide: true }, config: { access: { public: true } } };
  const { rateLimit } = options;

  app.get('/healthz', route, async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    return { status: 'ok' };
  });

  app.get('/readyz', route, async (_request, reply) => {
    const [read, primary, redisUp] = await Promise.all([
      databaseAnswers(options.dbs.read),
      databaseAnswers(options.dbs.primary),
      rateLimit.ping ? rateLimit.ping() : Promise.resolve(undefined),
    ]);
    const checks: Record<'database' | 'primaryDatabase' | 'redis', CheckResult> = {
      database: read ? 'ok' : 'unreachable',
      primaryDatabase: primary ? 'ok' : 'unreachable',
      redis: redisUp === undefined ? 'not_configured' : redisUp ? 'ok' : 'unreachable',
    };
    const status = !read ? 'unavailable' : !primary || redisUp === false ? 'degraded' : 'ready';
    reply.header('cache-control', 'no-store');
    if (status === 'unavailable') reply.status(503).header('retry-after', '5');
    return { status, checks };
  });
}
