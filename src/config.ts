// Configuration is read once, from the environment, at start-up. Every value is validated here so
// that a typo fails the process with one clear line instead of surfacing later as odd behaviour.

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  databaseUrl: string;
  databaseReadUrl: string | undefined;
  databasePoolSize: number;
  redisUrl: string | undefined;
  /** Prefix of every Redis key, so several deployments can share one Redis. */
  redisKeyPrefix: string;
  port: number;
  host: string;
  publicBaseUrl: string | undefined;
  rateLimitPerMinute: number;
  queryTimeoutMs: number;
  logLevel: LogLevel;
  keyPepper: string | undefined;
  trustProxy: boolean;
  /** Port of the Prometheus metrics listener; 0 disables it. */
  metricsPort: number;
  metricsHost: string;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max)
    throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function databaseUrl(name: string, raw: string): string {
  if (raw.startsWith('sqlite:')) {
    if (raw.length <= 'sqlite:'.length)
      throw new ConfigError(`${name} "sqlite:" needs a file path, e.g. sqlite:./data/sightline.db`);
    return raw;
  }
  if (raw.startsWith('postgres://') || raw.startsWith('postgresql://')) {
    try {
      new URL(raw);
    } catch {
      throw new ConfigError(`${name} is not a valid postgres:// URL`);
    }
    return raw;
  }
  throw new ConfigError(`${name} must start with sqlite: or postgres://, got "${raw.split(':')[0]}:..."`);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const logLevel = (env.LOG_LEVEL || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`);
  }
  const publicBaseUrl = env.PUBLIC_BASE_URL || undefined;
  if (publicBaseUrl !== undefined) {
    let parsed: URL;
    try {
      parsed = new URL(publicBaseUrl);
    } catch {
      throw new ConfigError(`PUBLIC_BASE_URL must be an absolute http(s) URL, got "${publicBaseUrl}"`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new ConfigError(`PUBLIC_BASE_URL must be an http or https URL, got "${publicBaseUrl}"`);
    }
  }
  const redisUrl = env.REDIS_URL || undefined;
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) {
    throw new ConfigError('REDIS_URL must start with redis:// or rediss://');
  }
  const primaryUrl = databaseUrl('DATABASE_URL', env.DATABASE_URL || 'sqlite:./data/sightline.db');
  const readUrl = env.DATABASE_READ_URL ? databaseUrl('DATABASE_READ_URL', env.DATABASE_READ_URL) : undefined;
  if (readUrl !== undefined && (readUrl.startsWith('sqlite:') || primaryUrl.startsWith('sqlite:'))) {
    throw new ConfigError('DATABASE_READ_URL (a replica) needs both it and DATABASE_URL to be postgres://');
  }
  const trustProxy = env.TRUST_PROXY ?? 'false';
  if (trustProxy !== 'true' && trustProxy !== 'false') {
    throw new ConfigError(`TRUST_PROXY must be true or false, got "${trustProxy}"`);
  }
  const port = integer(env, 'PORT', 8000, 0, 65535);
  const metricsPort = integer(env, 'METRICS_PORT', 9464, 0, 65535);
  if (metricsPort !== 0 && metricsPort === port) {
    throw new ConfigError(`METRICS_PORT must differ from PORT (both ${port}); 0 disables metrics`);
  }
  return {
    databaseUrl: primaryUrl,
    databaseReadUrl: readUrl,
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 500),
    redisUrl,
    redisKeyPrefix: env.REDIS_KEY_PREFIX ?? 'sightline:',
    port,
    host: env.HOST || '127.0.0.1',
    publicBaseUrl: publicBaseUrl?.replace(/\/+$/, ''),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 60, 1, 1_000_000),
    queryTimeoutMs: integer(env, 'QUERY_TIMEOUT_MS', 15_000, 1, 3_600_000),
    logLevel,
    keyPepper: env.KEY_PEPPER || undefined,
    trustProxy: trustProxy === 'true',
    metricsPort,
    metricsHost: env.METRICS_HOST || env.HOST || '127.0.0.1',
  };
}
