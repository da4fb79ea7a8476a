import { randomBytes } from 'node:crypto';
import { constants, copyFileSync, existsSync } from 'node:fs';
import pg from 'pg';
import type { Config } from '../../src/config.ts';
import { type Template, templateLocation } from './templates.ts';

// The backing services of one test context. By default an embedded SQLite file; when the runner
// (scripts/test.mjs) sets TEST_DATABASE_URL / TEST_REDIS_URL, a fresh PostgreSQL database on that
// server and a key prefix of its own in that Redis, so test files running side by side (and
// concurrent runs on one machine) never see each other's data.

const PREFIX = /^[a-z][a-z0-9_]{0,39}$/;
const NAME = /^[a-z][a-z0-9_]{0,62}$/;

export interface TestServices {
  overrides: Pick<Config, 'databaseUrl' | 'redisUrl' | 'redisKeyPrefix'>;
  /** The database is a copy of the runner's template: already migrated (and seeded). */
  prepared: boolean;
  release(): Promise<void>;
}

/** Runs one statement on its own connection to `adminUrl` (creating and dropping databases). */
export async function asAdmin(adminUrl: string, statement: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return (await client.query(statement)).rows;
  } finally {
    await client.end();
  }
}

/** Creates database `name` on the server of `adminUrl`: empty, or a copy of database `template`. */
export async function createDatabase(
  adminUrl: string,
  name: string,
  template?: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  for (const n of [name, template ?? name]) {
    if (!NAME.test(n)) throw new Error(`not a test database name: "${n}"`);
  }
  await asAdmin(adminUrl, `create database ${name}${template ? ` template ${template}` : ''}`);
  // A throwaway database needs no durable commits, and the suite commits a lot. (A copy does not
  // inherit the setting: it belongs to the database, not to its contents.)
  await asAdmin(adminUrl, `alter database ${name} set synchronous_commit = off`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await asAdmin(adminUrl, `drop database if exists ${name} with (force)`);
    },
  };
}

/** A fresh database of this run (empty, or a copy of `template`) on the server of `adminUrl`. */
export async function createTestDatabase(
  adminUrl: string,
  template?: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const prefix = process.env.TEST_DATABASE_PREFIX || 'sl_test';
  if (!PREFIX.test(prefix)) throw new Error(`TEST_DATABASE_PREFIX must match ${PREFIX}, got "${prefix}"`);
  return createDatabase(adminUrl, `${prefix}_${randomBytes(6).toString('hex')}`, template);
}

/**
 * A SQLite database beside the pass's own (parity.test's SQLite side in the PostgreSQL pass) starts
 * as a copy of the embedded pass's template, which the runner keeps in TEST_SQLITE_TEMPLATES; false
 * when there is none to copy (a file run on its own), and the caller prepares it.
 */
export function copySqliteTemplate(template: Template, file: string): boolean {
  const templates = process.env.TEST_SQLITE_TEMPLATES || undefined;
  const source = templates && templateLocation(templates, template, false);
  // The embedded pass prepares them only when it has files to run.
  if (!source || !existsSync(source)) return false;
  copyFileSync(source, file, constants.COPYFILE_FICLONE);
  return true;
}

/**
 * The services of one test context. With a `template`, and the runner's templates at hand, the
 * database starts as a copy of that template; otherwise it starts empty.
 */
export async function createTestServices(sqliteFile: string, template?: Template): Promise<TestServices> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  const redisUrl = process.env.TEST_REDIS_URL || undefined;
  const templates = process.env.TEST_TEMPLATES || undefined;
  const source = template && templates ? templateLocation(templates, template) : undefined;
  const database = adminUrl ? await createTestDatabase(adminUrl, source) : undefined;
  // A reflink where the file system has them (the demo file is ~100 MB), else a plain copy.
  if (!adminUrl && source) copyFileSync(source, sqliteFile, constants.COPYFILE_FICLONE);
  return {
    prepared: source !== undefined,
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
