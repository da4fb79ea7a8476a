import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Config, loadConfig } from '../../src/config.ts';
import { createTestServices, type TestServices } from './services.ts';

// `sightline …` run as a child process, as a person runs it, on the test's database. Its
// environment is built from nothing (no engine key of the developer's shell reaches it).

/** The command as the package installs it (`npx sightline`). */
export const MAIN = join(import.meta.dirname, '..', '..', 'bin', 'sightline.js');

export interface CliRun {
  status: number;
  stdout: string;
  stderr: string;
}

export function runCli(databaseUrl: string, ...args: string[]): Promise<CliRun> {
  return runCliWith(databaseUrl, {}, ...args);
}

/** `runCli` with these settings added to its environment (SIGHTLINE_DRAFT_ENGINE, say). */
export function runCliWith(
  databaseUrl: string,
  env: Record<string, string>,
  ...args: string[]
): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [MAIN, ...args],
      { env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', ...env } },
      (error, stdout, stderr) => resolve({ status: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

/** A freshly minted API key as the CLI prints it. */
export const KEY = /^sl_live_[0-9A-Za-z]{8}_[0-9A-Za-z]{38,}$/;

export interface Result {
  status: number | null;
  stdout: string;
  stderr: string;
}

export interface Sandbox {
  dir: string;
  services: TestServices;
  env: NodeJS.ProcessEnv;
  cli(...args: string[]): Result;
  close(): Promise<void>;
}

/** A temporary directory and database of its own, and `sightline …` run synchronously on it. */
export async function sandbox(): Promise<Sandbox> {
  const dir = mkdtempSync(join(tmpdir(), 'sightline-cli-'));
  const services = await createTestServices(join(dir, 'cli.db'));
  const env = {
    ...process.env,
    DATABASE_URL: services.overrides.databaseUrl,
    LOG_LEVEL: 'silent',
    METRICS_PORT: '0',
    HOST: '127.0.0.1',
  };
  return {
    dir,
    services,
    env,
    cli: (...args) => {
      const run = spawnSync(process.execPath, [MAIN, ...args], { env, encoding: 'utf8', timeout: 120_000 });
      return { status: run.status, stdout: run.stdout, stderr: run.stderr };
    },
    async close() {
      await services.release();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A failure: the given exit code and exactly one line on stderr containing `message`. */
export function assertFails(result: Result, code: 1 | 2, message: RegExp): void {
  assert.equal(result.status, code, `exit ${result.status}; stderr: ${result.stderr}`);
  const lines = result.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `stderr is not one line: ${result.stderr}`);
  assert.match(lines[0] as string, message);
}

export function configFor(box: Sandbox): Config {
  return { ...loadConfig({}), databaseUrl: box.services.overrides.databaseUrl, logLevel: 'silent' };
}
