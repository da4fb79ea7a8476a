import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/app.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { connectDatabases, type Databases, sqlitePath } from '../../src/db/connect.ts';
import type { App } from '../../src/http/types.ts';
import { copySqliteTemplate, createTestServices } from './services.ts';
import { prepareDatabase, type Template } from './templates.ts';

// Every test file gets its own fresh database: a temporary SQLite file by default, or (when the
// suite runs against PostgreSQL) a fresh database created for it. It starts as a copy of the
// runner's template (templates.ts) when there is one.

export interface TestContext {
  config: Config;
  dbs: Databases;
  app: App;
  close(): Promise<void>;
}

export interface TestContextOptions {
  /** Runs after the app is built and before `ready()`: the place to register test-only routes. */
  beforeReady?: (app: App) => void | Promise<void>;
  /** What the database holds before the test writes to it: the schema alone by default. */
  template?: Template;
  /** Where the app's "now" comes from; tests that compare whole bodies pin it. */
  clock?: () => Date;
}

export async function createTestContext(
  overrides: Partial<Config> = {},
  options: TestContextOptions = {},
): Promise<TestContext> {
  const dir = mkdtempSync(join(tmpdir(), 'sightline-test-'));
  const template = options.template ?? 'migrated';
  const services = await createTestServices(join(dir, 'test.db'), template);
  const config: Config = {
    ...loadConfig({}),
    ...services.overrides,
    logLevel: 'silent',
    rateLimitPerMinute: 1_000_000,
    ...overrides,
  };
  // A databaseUrl override (parity.test's SQLite side in the PostgreSQL pass) is not the pass's copy.
  const overridden = config.databaseUrl !== services.overrides.databaseUrl;
  const copied = overridden
    ? config.databaseUrl.startsWith('sqlite:') && copySqliteTemplate(template, sqlitePath(config.databaseUrl))
    : services.prepared;
  const dbs = connectDatabases(config);
  const release = async () => {
    await dbs.close();
    await services.release();
    rmSync(dir, { recursive: true, force: true });
  };
  let app: App | undefined;
  try {
    if (!copied) await prepareDatabase(dbs.primary, template);
    app = await buildApp(config, { databases: dbs, logger: false, clock: options.clock });
    await options.beforeReady?.(app);
    await app.ready();
  } catch (error) {
    // An app that cannot start must not leave its connections open: the test file would never exit.
    await app?.close().catch(() => {});
    await release();
    throw error;
  }
  const started = app;
  return {
    config,
    dbs,
    app: started,
    async close() {
      await started.close();
      await release();
    },
  };
}

/** Listens on a random loopback port and answers the app's base URL. */
export async function listen(app: App): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
