/** node:sqlite's SQLITE_BUSY: another connection holds the write lock (past any busy timeout). */
export function isSqliteBusy(error: unknown): boolean {
  const e = error as { code?: unknown; errcode?: unknown } | null;
  return e?.code === 'ERR_SQLITE_ERROR' && e.errcode === 5;
}
