// Configuration is read once, from the environment, at start-up. Every value is validated here so
// that a typo fails the process with one clear line instead of surfacing later as odd behaviour.

import { statSync } from 'node:fs';
import { looksLikeKey } from '../clients/typescript/src/http.ts';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  databaseUrl: string;
  databaseReadUrl: string | undefined;
  databasePoolSize: number;
  /** Named prepared statements each PostgreSQL read connection keeps (src/db/postgres/pool.ts); 0 prepares none. */
  databasePreparedStatements: number;
  redisUrl: string | undefined;
  /** Prefix of every Redis key, so several deployments can share one Redis. */
  redisKeyPrefix: string;
  port: number;
  host: string;
  publicBaseUrl: string | undefined;
  rateLimitPerMinute: number;
  queryTimeoutMs: number;
  /** Bytes of answers each process keeps (src/http/response-cache.ts); 0 keeps none. */
  responseCacheBytes: number;
  /** Bytes (estimated) of analytics sums and histories each process keeps (src/analytics/cache.ts); 0 keeps none. */
  analyticsCacheBytes: number;
  logLevel: LogLevel;
  keyPepper: string | undefined;
  trustProxy: boolean;
  /** Port of the Prometheus metrics listener; 0 disables it. */
  metricsPort: number;
  metricsHost: string;
  engines: EnginesConfig;
  monitor: MonitorConfig;
  /** Fonts a PDF report draws what DejaVu Sans has no glyph for with (docs/reports.md). */
  reportFonts: readonly ReportFontFile[];
}

/** A font file, and for a collection (.ttc) the PostScript name of the face to use. */
export interface ReportFontFile {
  file: string;
  face: string | undefined;
}

/** The monitoring runs' pace and safety margins (docs/monitoring.md). */
export interface MonitorConfig {
  /**
   * How long a claimed ask stays a worker's without news from it. The worker renews its leases
   * every third of this while it asks, so only a dead worker's asks run out and are asked again.
   */
  leaseMs: number;
  /** How often the worker looks for due schedules and for asks to take when it has none. */
  pollMs: number;
  /** Asks a worker has in flight at once, over all engines (each engine has its own limit too). */
  concurrency: number;
}

/** The answer engines Sightline can ask (docs/monitoring.md). */
export const ENGINE_NAMES = [
  'chatgpt',
  'claude',
  'gemini',
  'perplexity',
  'openai_compatible',
  'simulated',
] as const;
export type EngineName = (typeof ENGINE_NAMES)[number];

export interface EngineLimits {
  /** Asks in flight at once. */
  concurrency: number;
  /** 0: no limit of Sightline's own (the vendor's still applies). */
  requestsPerMinute: number;
  /** Input plus output tokens in any 60 seconds; 0: no limit. */
  tokensPerMinute: number;
  /** One attempt's time; retries get their own. */
  timeoutMs: number;
}

export interface EngineConfig {
  name: EngineName;
  /** False when the engine's key (or base URL) is absent: listed, never asked. */
  configured: boolean;
  /** What to set to configure it, when it is not. */
  needs: string | undefined;
  apiKey: string | undefined;
  /** Unset: the SDK's own default endpoint. */
  baseUrl: string | undefined;
  model: string;
  limits: EngineLimits;
}

export interface EnginesConfig {
  engines: Record<EngineName, EngineConfig>;
  /** Attempts per ask, the first included. */
  maxAttempts: number;
  /** Consecutive failed attempts that open an engine's circuit. */
  breakerFailures: number;
  /** How long an open circuit refuses asks before letting one through to probe. */
  breakerCooldownMs: number;
  /**
   * The engine that drafts recommendation artifacts (docs/recommendations.md); unset: they are
   * templates. Never a default: a draft sends the brand's own figures to the vendor and costs.
   */
  draftEngine: EngineName | undefined;
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

/**
 * A URL that did not parse, as a message may show it: everything from `//` to its last `@` left
 * out. Its password may hold the `/`, `?` or `#` that made it fail to parse.
 */
const shownUrl = (raw: string) => raw.replace(/\/\/.*@/s, '//…@');

function httpUrl(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${shownUrl(raw)}"`);
  }
  // fetch refuses a URL with credentials, so it could never work, and the URL is printed (start-up
  // lines, errors): the message leaves them out.
  if (parsed.username !== '' || parsed.password !== '') {
    throw new ConfigError(
      `${name} must not carry a user name or password (${parsed.protocol}//…@${parsed.host})`,
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(`${name} must be an http or https URL, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

interface EngineDefaults {
  /** The SDK's standard key variable; none for the simulated engine. */
  keyVar?: string;
  baseUrlVar?: string;
  modelVar?: string;
  model: string;
  limits: EngineLimits;
}

// Defaults are a first paid tier's limits, and models that answer with web search at a modest
// price; docs/monitoring.md lists them.
const ENGINE_DEFAULTS: Record<EngineName, EngineDefaults> = {
  chatgpt: {
    keyVar: 'OPENAI_API_KEY',
    baseUrlVar: 'OPENAI_BASE_URL',
    modelVar: 'SIGHTLINE_CHATGPT_MODEL',
    model: 'gpt-5-mini',
    limits: { concurrency: 4, requestsPerMinute: 60, tokensPerMinute: 200_000, timeoutMs: 90_000 },
  },
  claude: {
    keyVar: 'ANTHROPIC_API_KEY',
    baseUrlVar: 'ANTHROPIC_BASE_URL',
    modelVar: 'SIGHTLINE_CLAUDE_MODEL',
    model: 'claude-sonnet-5-5',
    limits: { concurrency: 2, requestsPerMinute: 50, tokensPerMinute: 30_000, timeoutMs: 90_000 },
  },
  gemini: {
    keyVar: 'GEMINI_API_KEY',
    baseUrlVar: 'GEMINI_BASE_URL',
    modelVar: 'SIGHTLINE_GEMINI_MODEL',
    model: 'gemini-2.5-flash',
    limits: { concurrency: 4, requestsPerMinute: 60, tokensPerMinute: 1_000_000, timeoutMs: 90_000 },
  },
  perplexity: {
    keyVar: 'PERPLEXITY_API_KEY',
    baseUrlVar: 'PERPLEXITY_BASE_URL',
    modelVar: 'SIGHTLINE_PERPLEXITY_MODEL',
    model: 'sonar',
    limits: { concurrency: 4, requestsPerMinute: 50, tokensPerMinute: 0, timeoutMs: 90_000 },
  },
  openai_compatible: {
    keyVar: 'OPENAI_COMPATIBLE_API_KEY',
    baseUrlVar: 'OPENAI_COMPATIBLE_BASE_URL',
    modelVar: 'OPENAI_COMPATIBLE_MODEL',
    model: '',
    limits: { concurrency: 2, requestsPerMinute: 60, tokensPerMinute: 0, timeoutMs: 120_000 },
  },
  simulated: {
    model: 'simulated',
    limits: { concurrency: 8, requestsPerMinute: 0, tokensPerMinute: 0, timeoutMs: 5_000 },
  },
};

function engineConfig(env: NodeJS.ProcessEnv, name: EngineName): EngineConfig {
  const defaults = ENGINE_DEFAULTS[name];
  const prefix = `SIGHTLINE_${name.toUpperCase()}`;
  const limits: EngineLimits = {
    concurrency: integer(env, `${prefix}_CONCURRENCY`, defaults.limits.concurrency, 1, 1000),
    requestsPerMinute: integer(
      env,
      `${prefix}_REQUESTS_PER_MINUTE`,
      defaults.limits.requestsPerMinute,
      0,
      1_000_000,
    ),
    tokensPerMinute: integer(
      env,
      `${prefix}_TOKENS_PER_MINUTE`,
      defaults.limits.tokensPerMinute,
      0,
      1_000_000_000,
    ),
    timeoutMs: integer(env, `${prefix}_TIMEOUT_MS`, defaults.limits.timeoutMs, 100, 3_600_000),
  };
  // A key of spaces (an empty value quoted in a .env file) is no key: the engine is not configured.
  const apiKey = (defaults.keyVar && env[defaults.keyVar]?.trim()) || undefined;
  const baseUrl = defaults.baseUrlVar ? httpUrl(env, defaults.baseUrlVar) : undefined;
  const model = (defaults.modelVar && env[defaults.modelVar]?.trim()) || defaults.model;
  if (name === 'simulated') {
    return { name, configured: true, needs: undefined, apiKey, baseUrl, model, limits };
  }
  if (name === 'openai_compatible') {
    // Local servers (vLLM, Ollama) take no key: the base URL is what configures this engine.
    if (baseUrl !== undefined && model === '') {
      throw new ConfigError('OPENAI_COMPATIBLE_MODEL is required when OPENAI_COMPATIBLE_BASE_URL is set');
    }
    const configured = baseUrl !== undefined;
    const needs = configured ? undefined : 'OPENAI_COMPATIBLE_BASE_URL and OPENAI_COMPATIBLE_MODEL';
    return { name, configured, needs, apiKey, baseUrl, model, limits };
  }
  const configured = apiKey !== undefined;
  return {
    name,
    configured,
    needs: configured ? undefined : defaults.keyVar,
    apiKey,
    baseUrl,
    model,
    limits,
  };
}

function draftEngine(env: NodeJS.ProcessEnv, engines: Record<EngineName, EngineConfig>) {
  const raw = env.SIGHTLINE_DRAFT_ENGINE?.trim();
  if (!raw) return undefined;
  if (!(ENGINE_NAMES as readonly string[]).includes(raw)) {
    throw new ConfigError(`SIGHTLINE_DRAFT_ENGINE must be one of ${ENGINE_NAMES.join(', ')}, got "${raw}"`);
  }
  const engine = engines[raw as EngineName];
  if (!engine.configured) {
    throw new ConfigError(`SIGHTLINE_DRAFT_ENGINE is ${raw}, which is not configured: set ${engine.needs}`);
  }
  return engine.name;
}

function enginesConfig(env: NodeJS.ProcessEnv): EnginesConfig {
  const engines = Object.fromEntries(ENGINE_NAMES.map((name) => [name, engineConfig(env, name)])) as Record<
    EngineName,
    EngineConfig
  >;
  return {
    engines,
    draftEngine: draftEngine(env, engines),
    maxAttempts: integer(env, 'SIGHTLINE_ENGINE_MAX_ATTEMPTS', 4, 1, 20),
    breakerFailures: integer(env, 'SIGHTLINE_ENGINE_BREAKER_FAILURES', 5, 1, 1000),
    breakerCooldownMs: integer(env, 'SIGHTLINE_ENGINE_BREAKER_COOLDOWN_MS', 60_000, 100, 3_600_000),
  };
}

/**
 * REPORT_FONTS: comma-separated font files, each `FILE` or `FILE#FACE`. Only that each is a file
 * is checked here: reading a font (~20 MB for a CJK collection) is left to the reports that use
 * it, which refuse one that is not a font before anything is written.
 */
function reportFontFiles(raw: string | undefined): ReportFontFile[] {
  if (!raw?.trim()) return [];
  return raw.split(',').map((entry) => {
    const spec = entry.trim();
    const hash = spec.lastIndexOf('#');
    const file = hash === -1 ? spec : spec.slice(0, hash);
    const face = hash === -1 ? undefined : spec.slice(hash + 1);
    if (file === '' || face === '')
      throw new ConfigError(
        `REPORT_FONTS must list font files, each FILE or FILE#FACE (a face of a collection), got "${spec}"`,
      );
    let isFile = false;
    try {
      isFile = statSync(file).isFile();
    } catch {}
    if (!isFile) throw new ConfigError(`REPORT_FONTS: ${file} is not a file`);
    return { file, face };
  });
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
  // Its links go to every client: a user and password in it would be handed to them all.
  const publicBaseUrl = httpUrl(env, 'PUBLIC_BASE_URL');
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
    databasePreparedStatements: integer(env, 'DATABASE_PREPARED_STATEMENTS', 100, 0, 10_000),
    redisUrl,
    redisKeyPrefix: env.REDIS_KEY_PREFIX ?? 'sightline:',
    port,
    host: env.HOST || '127.0.0.1',
    publicBaseUrl: publicBaseUrl?.replace(/\/+$/, ''),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 60, 1, 1_000_000),
    queryTimeoutMs: integer(env, 'QUERY_TIMEOUT_MS', 15_000, 1, 3_600_000),
    responseCacheBytes: integer(env, 'RESPONSE_CACHE_MB', 16, 0, 4096) * 1024 * 1024,
    analyticsCacheBytes: integer(env, 'ANALYTICS_CACHE_MB', 16, 0, 4096) * 1024 * 1024,
    logLevel,
    keyPepper: env.KEY_PEPPER || undefined,
    trustProxy: trustProxy === 'true',
    metricsPort,
    metricsHost: env.METRICS_HOST || env.HOST || '127.0.0.1',
    engines: enginesConfig(env),
    monitor: {
      leaseMs: integer(env, 'SIGHTLINE_MONITOR_LEASE_MS', 60_000, 1_000, 3_600_000),
      pollMs: integer(env, 'SIGHTLINE_MONITOR_POLL_MS', 15_000, 50, 3_600_000),
      concurrency: integer(env, 'SIGHTLINE_WORKER_CONCURRENCY', 8, 1, 1000),
    },
    reportFonts: reportFontFiles(env.REPORT_FONTS),
  };
}

/** `sightline mcp`: the API it speaks to, as an SDK client would (the SDK's own variables). */
export interface McpClientConfig {
  apiKey: string;
  baseUrl: string;
}

export function loadMcpClientConfig(env: NodeJS.ProcessEnv = process.env): McpClientConfig {
  const apiKey = env.SIGHTLINE_API_KEY?.trim();
  if (!apiKey) {
    throw new ConfigError(
      'SIGHTLINE_API_KEY is not set: create a key with `sightline keys create` and export it',
    );
  }
  // The SDK refuses such a key too; here it is a configuration error (exit 2) like the others.
  if (!looksLikeKey(apiKey)) {
    throw new ConfigError(
      'SIGHTLINE_API_KEY has characters no key has (spaces, quotes or letters outside ASCII): copy it again',
    );
  }
  return { apiKey, baseUrl: httpUrl(env, 'SIGHTLINE_BASE_URL') ?? 'http://127.0.0.1:8000' };
}
