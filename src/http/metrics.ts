import { createServer, type Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RateLimitStore } from '../auth/rate-limit.ts';
import type { Databases } from '../db/connect.ts';
import type { CacheStats } from '../domain/versioned-cache.ts';

const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30];
const DB_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15];

type Cached = { stats(): CacheStats };

/** A cache's lookups (hit or miss) and what it keeps: sightline_<name>_cache_{lookups_total,bytes}. */
function cacheInstruments(registers: Registry[], name: string, asked: string, kept: string, cache?: Cached) {
  new Counter({
    name: `sightline_${name}_cache_lookups_total`,
    help: `${asked}, by whether the cache served them (hit) or the database (miss).`,
    labelNames: ['outcome'],
    registers,
    collect() {
      const stats = cache?.stats();
      this.reset();
      this.inc({ outcome: 'hit' }, stats?.hits ?? 0);
      this.inc({ outcome: 'miss' }, stats?.misses ?? 0);
    },
  });
  new Gauge({
    name: `sightline_${name}_cache_bytes`,
    help: `${kept} the cache keeps.`,
    registers,
    collect() {
      this.set(cache?.stats().size ?? 0);
    },
  });
}

/**
 * The app's Prometheus instruments, in a registry of its own (several apps share a process in
 * tests). Served by `startMetricsServer` on a separate port, never on the API's.
 */
export function registerMetrics(
  app: FastifyInstance,
  sources: {
    dbs: Databases;
    rateLimit: RateLimitStore;
    responseCache: Cached | undefined;
    analyticsCache: Cached | undefined;
  },
): Registry {
  const registry = new Registry();
  const registers = [registry];

  const requests = new Counter({
    name: 'sightline_http_requests_total',
    help: 'HTTP requests answered, by route template and status.',
    labelNames: ['method', 'route', 'status_code'],
    registers,
  });
  const latency = new Histogram({
    name: 'sightline_http_request_duration_seconds',
    help: 'Time to answer HTTP requests, by route template and status.',
    labelNames: ['method', 'route', 'status_code'],
    buckets: HTTP_BUCKETS,
    registers,
  });
  const refusals = new Counter({
    name: 'sightline_rate_limit_refusals_total',
    help: 'Requests refused with 429, by what was limited: an API key or a client address.',
    labelNames: ['limited'],
    registers,
  });
  const dbTime = new Histogram({
    name: 'sightline_db_query_duration_seconds',
    help: 'Time of database statements, by pool and outcome (ok, error, timeout).',
    labelNames: ['pool', 'outcome'],
    buckets: DB_BUCKETS,
    registers,
  });
  const { dbs, rateLimit, responseCache, analyticsCache } = sources;
  new Gauge({
    name: 'sightline_db_pool_connections_in_use',
    help: 'Database connections checked out of the pool.',
    labelNames: ['pool'],
    registers,
    collect() {
      for (const usage of dbs.monitor.pools()) this.set({ pool: usage.pool }, usage.inUse);
    },
  });
  new Gauge({
    name: 'sightline_db_pool_connections_max',
    help: 'Connections the pool may open.',
    labelNames: ['pool'],
    registers,
    collect() {
      for (const usage of dbs.monitor.pools()) this.set({ pool: usage.pool }, usage.max);
    },
  });
  new Gauge({
    name: 'sightline_db_pool_waiting',
    help: 'Callers queued for a database connection.',
    labelNames: ['pool'],
    registers,
    collect() {
      for (const usage of dbs.monitor.pools()) this.set({ pool: usage.pool }, usage.waiting);
    },
  });
  new Gauge({
    name: 'sightline_rate_limit_degraded',
    help: '1 while Redis is unreachable and each instance limits on its own; 0 otherwise.',
    registers,
    collect() {
      this.set(rateLimit.degraded ? 1 : 0);
    },
  });
  new Counter({
    name: 'sightline_rate_limit_fallback_decisions_total',
    help: 'Rate-limit decisions made in this instance memory because Redis was unreachable.',
    registers,
    collect() {
      // The store keeps the count; the counter mirrors it at each scrape.
      this.reset();
      this.inc(rateLimit.fallbackDecisions ?? 0);
    },
  });
  cacheInstruments(registers, 'response', 'Cacheable requests', 'Bytes of answers', responseCache);
  cacheInstruments(
    registers,
    'analytics',
    'Analytics bounds, window sums and score histories asked for',
    'Estimated bytes of analytics sums and histories',
    analyticsCache,
  );

  const unsubscribe = dbs.monitor.subscribe((o) =>
    dbTime.observe({ pool: o.pool, outcome: o.outcome }, o.seconds),
  );
  app.addHook('onClose', async () => {
    unsubscribe();
  });

  app.decorate('metrics', registry);
  app.addHook('onResponse', async (request, reply) => {
    // The route template, not the URL: ids in paths would make every brand its own series.
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status_code: String(reply.statusCode),
    };
    requests.inc(labels);
    latency.observe(labels, reply.elapsedTime / 1000);
    if (reply.statusCode === 429) {
      refusals.inc({ limited: reply.hasHeader('ratelimit-policy') ? 'key' : 'address' });
    }
  });
  return registry;
}

/** Serves `GET /metrics` from `registry` on its own listener. */
export async function startMetricsServer(registry: Registry, port: number, host: string): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
      return;
    }
    registry.metrics().then(
      (body) => response.writeHead(200, { 'content-type': registry.contentType }).end(body),
      () => response.writeHead(500, { 'content-type': 'text/plain' }).end('Metrics collection failed\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Registry;
  }
}
