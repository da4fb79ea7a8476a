import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { Config } from '../../src/config.ts';

const entry = fileURLToPath(new URL('./serve-for-test.ts', import.meta.url));

/** A free TCP port on the loopback interface, for listeners that cannot take port 0. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Parsed JSON log lines so far. */
  logs(): Array<Record<string, unknown>>;
  waitForLog(predicate: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `serve-for-test.ts` in its own process on the test context's database (and Redis), on a
 * random API port, and resolves once it listens.
 */
export async function startServerProcess(
  config: Config,
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  const child = spawn(process.execPath, [entry], {
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: config.databaseUrl,
      ...(config.redisUrl ? { REDIS_URL: config.redisUrl, REDIS_KEY_PREFIX: config.redisKeyPrefix } : {}),
      HOST: '127.0.0.1',
      PORT: '0',
      METRICS_PORT: '0',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const logs = () =>
    text
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const waitForLog = async (predicate: (line: Record<string, unknown>) => boolean, timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!logs().some(predicate)) {
      if (Date.now() > deadline || child.exitCode !== null) {
        throw new Error(`server process: expected log line not seen. Output:\n${text}`);
      }
      await sleep(20);
    }
  };
  await waitForLog((line) => String(line.msg).startsWith('Server listening at'));
  const listening = logs().find((line) => String(line.msg).startsWith('Server listening at'));
  const baseUrl = String(listening?.msg).replace('Server listening at ', '');
  return { child, baseUrl, output: () => text, logs, waitForLog, exited };
}
