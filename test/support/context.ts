import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/app.ts';
import { generateKey, hashSecret } from '../../src/auth/keys.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { connectDatabases, type Databases } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { SCOPES, type Scope } from '../../src/domain/scopes.ts';
import type { App } from '../../src/http/types.ts';
import { createTestServices } from './services.ts';

// Every test file gets its own fresh database: a temporary SQLite file by default, or (when the
// suite runs against PostgreSQL) a fresh database created for it.

export interface TestContext {
  config: Config;
  dbs: Databases;
  app: App;
  close(): Promise<void>;
}

export interface TestContextOptions {
  /** Runs after the app is built and before `ready()`: the place to register test-only routes. */
  beforeReady?: (app: App) => void | Promise<void>;
  /** Where the app's "now" comes from; tests that compare whole bodies pin it. */
  clock?: () => Date;
}

export async function createTestContext(
  overrides: Partial<Config> = {},
  options: TestContextOptions = {},
): Promise<TestContext> {
  const dir = mkdtempSync(join(tmpdir(), 'sightline-test-'));
  const services = await createTestServices(join(dir, 'test.db'));
  const config: Config = {
    ...loadConfig({}),
    ...services.overrides,
    logLevel: 'silent',
    rateLimitPerMinute: 1_000_000,
    ...overrides,
  };
  const dbs = connectDatabases(config);
  await migrateToLatest(dbs.primary);
  const app = await buildApp(config, { databases: dbs, logger: false, clock: options.clock });
  await options.beforeReady?.(app);
  await app.ready();
  return {
    config,
    dbs,
    app,
    async close() {
      await app.close();
      await dbs.close();
      await services.release();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Inserts an organization directly and returns its id. */
export async function insertOrg(
  dbs: Databases,
  slug: string,
  values: { plan?: string; apiAccess?: boolean; timezone?: string } = {},
): Promise<number> {
  const row = await dbs.primary
    .insertInto('organizations')
    .values({
      slug,
      name: slug.toUpperCase(),
      plan: values.plan ?? 'pro',
      api_access: values.apiAccess === false ? 0 : 1,
      timezone: values.timezone ?? 'UTC',
      free_report_used: 0,
      created_at: '2026-01-01T00:00:00.000Z',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Mints a key for an organization and returns the full key text. */
export async function mintKey(
  dbs: Databases,
  orgId: number,
  options: {
    scopes?: readonly Scope[];
    expiresAt?: string | null;
    revokedAt?: string | null;
    pepper?: string;
  } = {},
): Promise<string> {
  const { key, keyId, secret } = generateKey();
  await dbs.primary
    .insertInto('api_keys')
    .values({
      org_id: orgId,
      key_id: keyId,
      name: 'test',
      secret_hash: hashSecret(secret, options.pepper),
      scopes: (options.scopes ?? SCOPES).join(' '),
      created_by_user_id: null,
      created_at: new Date().toISOString(),
      last_used_at: null,
      expires_at: options.expiresAt ?? null,
      revoked_at: options.revokedAt ?? null,
    })
    .execute();
  return key;
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
