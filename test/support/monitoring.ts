import { type ChildProcess, spawn } from 'node:child_process';
import { Registry } from 'prom-client';
import { type EngineName, loadConfig } from '../../src/config.ts';
import { createBrand } from '../../src/db/catalog/brands.ts';
import { createCategory } from '../../src/db/catalog/categories.ts';
import { addCompetitor } from '../../src/db/catalog/competitors.ts';
import { createPrompt } from '../../src/db/catalog/prompts.ts';
import type { Db } from '../../src/db/connect.ts';
import type { AskDeps, MonitorLog } from '../../src/monitoring/asks.ts';
import { createEngines } from '../../src/monitoring/engines/index.ts';
import { registerEngineMetrics } from '../../src/monitoring/engines/metrics.ts';
import { MAIN } from './cli.ts';
import { createTestContext, type TestContext } from './context.ts';
import { type FakeVendor, PROMPT, startFakeVendor } from './fake-engines.ts';
import { insertOrg } from './fixtures.ts';

// A monitored brand and the engines that ask it, against local fakes of the vendors' APIs: the
// only stand-in in the monitoring tests is the answer engine itself.

export const PROMPTS = [
  PROMPT,
  'Which CRM is easiest to set up?',
  'What CRM do sales teams of five use?',
  'Is there a CRM with simple pricing?',
];
export const OPENAI_KEY = 'sk-test-monitor-openai-1a2b3c';
export const PERPLEXITY_KEY = 'pplx-test-monitor-4d5e6f';

export interface MonitoredBrand {
  orgId: number;
  brandId: number;
  categoryId: number;
  promptIds: number[];
}

/** Brand "Acme CRM" with one category, `prompts` monitored prompts, and two tracked competitors. */
export async function monitoredBrand(db: Db, orgId: number, prompts = 2): Promise<MonitoredBrand> {
  const brand = await createBrand(db, orgId, { name: 'Acme CRM', website: 'https://www.acme.example' });
  const category = await createCategory(db, brand, { name: 'CRM' });
  const promptIds: number[] = [];
  for (const text of PROMPTS.slice(0, prompts))
    promptIds.push((await createPrompt(db, category, { text })).id);
  await addCompetitor(db, brand, category, { name: 'HubSpot CRM' });
  await addCompetitor(db, brand, category, { name: 'Pipedrive' });
  return { orgId, brandId: brand.id, categoryId: category.id, promptIds };
}

export interface Fakes {
  chatgpt: FakeVendor;
  perplexity: FakeVendor;
  /** The environment that points the engines at the fakes. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startFakes(): Promise<Fakes> {
  const chatgpt = await startFakeVendor('chatgpt', {
    key: OPENAI_KEY,
    model: 'gpt-5-mini',
    prompts: PROMPTS,
  });
  const perplexity = await startFakeVendor('perplexity', {
    key: PERPLEXITY_KEY,
    model: 'sonar',
    prompts: PROMPTS,
  });
  return {
    chatgpt,
    perplexity,
    env: {
      OPENAI_API_KEY: OPENAI_KEY,
      OPENAI_BASE_URL: chatgpt.baseUrl,
      PERPLEXITY_API_KEY: PERPLEXITY_KEY,
      PERPLEXITY_BASE_URL: perplexity.baseUrl,
      SIGHTLINE_ENGINE_MAX_ATTEMPTS: '2',
    },
    close: async () => {
      await Promise.all([chatgpt.close(), perplexity.close()]);
    },
  };
}

/** The prompt each recorded request asked (both fakes' wire formats). */
export function promptOf(body: unknown): string {
  const b = body as { input?: string; messages?: Array<{ content: string }> };
  return b.input ?? b.messages?.[0]?.content ?? '';
}

export interface LogLine {
  level: 'info' | 'warn' | 'error';
  fields: Record<string, unknown>;
  message: string;
}

export function memoryLog(): MonitorLog & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: LogLine['level']) => (fields: Record<string, unknown>, message: string) => {
    lines.push({ level, fields, message });
  };
  return { lines, info: at('info'), warn: at('warn'), error: at('error') };
}

/** Ask dependencies with engines on the fakes, metrics on `registry`, quick backoff. */
export function askDeps(
  db: Db,
  env: Record<string, string>,
  options: { registry?: Registry; owner?: string; leaseMs?: number } = {},
): AskDeps & { log: ReturnType<typeof memoryLog>; configured: Set<EngineName> } {
  const log = memoryLog();
  const engines = createEngines(loadConfig(env).engines, {
    backoff: { initialDelayMs: 1, maxDelayMs: 5 },
    metrics: registerEngineMetrics(options.registry ?? new Registry()),
  });
  return {
    db,
    engines,
    owner: options.owner ?? 'test-worker',
    leaseMs: options.leaseMs ?? 30_000,
    clock: () => new Date(),
    log,
    configured: new Set(engines.keys()),
  };
}

/**
 * `sightline monitor run` for the acme organization's `brand` on ChatGPT's fake, as a child
 * process: leases short enough to run out while a test watches, and engine requests that never
 * time out while the fake holds them.
 */
export function spawnMonitorRun(
  databaseUrl: string,
  fakes: Fakes,
  brand: MonitoredBrand,
  options: { logLevel: string; args?: string[] },
): ChildProcess {
  return spawn(
    process.execPath,
    [
      MAIN,
      'monitor',
      'run',
      '--org',
      'acme',
      '--brand',
      String(brand.brandId),
      '--engines',
      'chatgpt',
      ...(options.args ?? []),
    ],
    {
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: databaseUrl,
        LOG_LEVEL: options.logLevel,
        ...fakes.env,
        SIGHTLINE_MONITOR_LEASE_MS: '1500',
        SIGHTLINE_CHATGPT_TIMEOUT_MS: '600000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
}

/** A test database holding the acme organization's monitored brand, and the vendors' fakes. */
export async function monitoringScene(
  prompts: number,
): Promise<{ ctx: TestContext; fakes: Fakes; brand: MonitoredBrand; close(): Promise<void> }> {
  const ctx = await createTestContext();
  const fakes = await startFakes();
  const brand = await monitoredBrand(ctx.dbs.primary, await insertOrg(ctx.dbs.primary, 'acme'), prompts);
  return {
    ctx,
    fakes,
    brand,
    close: async () => {
      await fakes.close();
      await ctx.close();
    },
  };
}
