import { execFileSync } from 'node:child_process';

// The SQLite reader processes of this test process (src/db/sqlite/reader-pool-dialect.ts).

/** PIDs of this test process's SQLite reader children. */
export function readerPids(): number[] {
  let out = '';
  try {
    out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  } catch {
    return []; // ps exits 1 when the process has no children
  }
  return out
    .split('\n')
    .filter((line) => line.includes('reader-child'))
    .map((line) => Number.parseInt(line.trim(), 10));
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
