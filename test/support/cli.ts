import { execFile } from 'node:child_process';
import { join } from 'node:path';

// `sightline …` as a person runs it: a child process with an environment built from nothing but
// PATH, a silent log and what the test passes, so a key or database URL in the developer's shell
// can never leak in.

const MAIN = join(import.meta.dirname, '..', '..', 'src', 'cli', 'main.ts');

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(env: Record<string, string>, ...args: string[]): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [MAIN, ...args],
      { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({ status: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr });
      },
    );
  });
}
