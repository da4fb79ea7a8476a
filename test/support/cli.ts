import { execFile } from 'node:child_process';
import { join } from 'node:path';

// `sightline …` run as a child process, as a person runs it, on the test's database. Its
// environment is built from nothing (no engine key of the developer's shell reaches it).

const MAIN = join(import.meta.dirname, '..', '..', 'src', 'cli', 'main.ts');

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
