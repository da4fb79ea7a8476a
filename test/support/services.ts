import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Config } from '../../src/config.ts';

// The backing services of one test context. By default an embedded SQLite file; when the runner
// (scripts/test.mjs) sets TEST_DATABASE_URL / TEST_REDIS_URL, a fresh PostgreSQL database on that
// server and a key prefix of its own in that Redis, so test files running side by side (and
// concurrent runs on one machine) never see each other's data.

const PREFIX = /^[a-z][a-z0-9_]{0,39}$/;

export interface TestServices {
  overrides: Pick<Config, 'databaseUrl' | 'redisUrl' | 'redisKeyPrefix'>;
  release(): Promise<void>;
}

async function asAdmin(adminUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** A fresh, empty database on the server of `adminUrl`, with its URL and a way to drop it. */
export async function createTestDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const prefix = process.env.TEST_DATABASE_PREFIX || 'sl_test';
  if (!PREFIX.test(prefix)) throw new Error(`TEST_DATABASE_PREFIX must match ${PREFIX}, got "${prefix}"`);
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await asAdmin(adminUrl, `create database ${name}`);
  // A throwaway database needs no durable commits, and the suite commits a lot.
  await asAdmin(adminUrl, `alter database ${name} set synchronous_commit = off`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => asAdmin(adminUrl, `drop database if exists ${name} with (force)`),
  };
}

export async function createTestServices(sqliteFile: string): Promise<TestServices> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  const redisUrl = process.env.TEST_REDIS_URL || undefined;
  const database = adminUrl ? await createTestDatabase(adminUrl) : undefined;
  return {
    overrides: {
      databaseUrl: database?.url ?? `sqlite:${sqliteFile}`,
      redisUrl,
      redisKeyPrefix: `sl_test:${randomBytes(6).toString('hex')}:`,
    },
    release: async () => {
      await database?.drop();
    },
  };
}
