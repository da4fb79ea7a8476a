// What the command groups share: opening the database from the environment's configuration,
// argument parsers (a bad value is a usage error, exit 2), and plain-text tables.
import { readFile, stat } from 'node:fs/promises';
import { InvalidArgumentError } from 'commander';
import { pino } from 'pino';
import { type Config, ENGINE_NAMES, type EngineName, loadConfig } from '../../config.ts';
import { type ConnectOptions, connectDatabases, type Db, requireDatabaseFile } from '../../db/connect.ts';
import { migrateToLatest, requireSchema } from '../../db/migrate.ts';
import { characters, controlCharacter } from '../../domain/catalog.ts';
import { isScope, SCOPES, type Scope } from '../../domain/scopes.ts';
import { MAX_SAMPLES } from '../../monitoring/settings.ts';
import { UsageError } from '../errors.ts';

/**
 * Runs `fn` on the primary database, then closes it. `schema` says what to do about the schema
 * first: bring it up to date, leave it alone, or (the default) require it, so that a database
 * that was never migrated fails with a hint instead of a missing-table error.
 */
export async function withDatabase<T>(
  fn: (db: Db, config: Config) => Promise<T>,
  options: { schema?: 'migrate' | 'require' | 'ignore' } & ConnectOptions = {},
): Promise<T> {
  const config = loadConfig();
  if (options.schema !== 'migrate' && options.schema !== 'ignore') requireDatabaseFile(config.databaseUrl);
  const dbs = connectDatabases(config, options);
  try {
    if (options.schema === 'migrate') await migrateToLatest(dbs.primary);
    else if (options.schema !== 'ignore') await requireSchema(dbs.primary);
    return await fn(dbs.primary, config);
  } finally {
    await dbs.close();
  }
}

export function parsePort(value: string): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) {
    throw new InvalidArgumentError('expected a port number from 0 to 65535.');
  }
  return Number(value);
}

export function parseSlug(value: string): string {
  if (!/^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/.test(value)) {
    throw new InvalidArgumentError(
      'expected 1-40 lowercase letters, digits or hyphens, starting and ending with a letter or digit.',
    );
  }
  return value;
}

/** A new organization's slug: also never all digits, which an answer line would read as an id. */
export function parseNewSlug(value: string): string {
  if (/^[0-9]+$/.test(value))
    throw new InvalidArgumentError('a slug is never all digits (a number is an id).');
  return parseSlug(value);
}

export function parseName(value: string): string {
  const name = value.trim();
  if (name === '' || characters(name) > 200)
    throw new InvalidArgumentError('expected a name of 1-200 characters.');
  // An organization's or key's name is printed as it is (the catalog's names check this too).
  if (controlCharacter(name) !== undefined)
    throw new InvalidArgumentError('expected a name on one line, without control characters.');
  return name;
}

/**
 * An IANA time zone, its case set right where ICU spells it the same ("europe/berlin" →
 * "Europe/Berlin"). ICU still resolves some zones to their former names (Asia/Kolkata to
 * Asia/Calcutta, Europe/Kyiv to Europe/Kiev, America/Nuuk to America/Godthab): such a name is kept
 * as given, not replaced by the one its country dropped.
 */
export function parseTimezone(value: string): string {
  // Intl also accepts fixed offsets such as "+01:00", which are not IANA zones and ignore DST.
  if (/^[+-]/.test(value))
    throw new InvalidArgumentError('expected an IANA time zone such as Europe/Berlin.');
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    throw new InvalidArgumentError('expected an IANA time zone such as Europe/Berlin or UTC.');
  }
  return resolved.toLowerCase() === value.toLowerCase() ? resolved : value;
}

/**
 * How a command whose writes are paid for (an engine's answers, a drafted artifact) opens the
 * database: where another process's long write (an import, for minutes) holds it, the write waits
 * for it without blocking the process, and on PostgreSQL `concurrency` such writes waiting on locks
 * leave a connection each for the rest (the leases' heartbeat, the queue's reads).
 */
export function paidWrites(concurrency?: number): ConnectOptions {
  return concurrency === undefined
    ? { sqliteWriters: 'yield' }
    : { sqliteWriters: 'yield', primaryConnections: concurrency + 2 };
}

/** What --scopes takes, as its help and its errors say it. */
export const SCOPE_CHOICES = `"all" or a comma-separated list of ${SCOPES.join(', ')}`;

/** "all" or a comma-separated subset of the scopes. */
export function parseScopes(value: string): Scope[] {
  if (value.trim() === 'all') return [...SCOPES];
  const scopes = [...new Set(value.split(',').map((s) => s.trim()))];
  const unknown = scopes.filter((s) => !isScope(s));
  if (scopes.length === 0 || unknown.length > 0) {
    throw new InvalidArgumentError(`expected ${SCOPE_CHOICES}.`);
  }
  return scopes as Scope[];
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const TEN_YEARS_MS = 3653 * 86_400_000;

/** A lifetime such as 90s, 15m, 12h or 30d, as the expiry moment it gives from now. */
export function parseExpiresIn(value: string): string {
  const match = /^([1-9]\d{0,6})([smhd])$/.exec(value);
  const ms = match ? Number(match[1]) * (UNIT_MS[match[2] as string] as number) : Number.NaN;
  if (!match || ms > TEN_YEARS_MS) {
    throw new InvalidArgumentError(
      'expected a positive duration up to ten years, such as 90s, 15m, 12h or 30d.',
    );
  }
  return new Date(Date.now() + ms).toISOString();
}

/** True when a YYYY-MM-DD prefix names a real day (Date.parse rolls 02-30 over to March). */
export function realCalendarDay(value: string): boolean {
  const [year = 0, month = 0, day = 0] = value.slice(0, 10).split('-').map(Number);
  const probe = new Date(Date.UTC(year, month - 1, day));
  return probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day;
}

/** An ISO-8601 date or date-time in the future (without an offset, the machine's local time). */
export function parseExpiresAt(value: string): string {
  const shaped = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$/.test(value);
  const time = shaped && realCalendarDay(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(time))
    throw new InvalidArgumentError('expected an ISO-8601 date-time such as 2026-12-31T23:59:59Z.');
  if (time <= Date.now()) throw new InvalidArgumentError('the expiry must be in the future.');
  return new Date(time).toISOString();
}

/** Left-aligned columns separated by two spaces. */
export function formatTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

export function print(text: string): void {
  process.stdout.write(`${text}\n`);
}

/** "chatgpt,perplexity": known engine names, each once. */
export function parseEngines(value: string): EngineName[] {
  const names = [
    ...new Set(
      value
        .split(',')
        .map((n) => n.trim())
        .filter(Boolean),
    ),
  ];
  const unknown = names.find((n) => !(ENGINE_NAMES as readonly string[]).includes(n));
  if (names.length === 0 || unknown !== undefined) {
    throw new InvalidArgumentError(
      `${unknown ? `unknown engine "${unknown}"; ` : ''}expected a comma-separated list of ${ENGINE_NAMES.join(', ')}.`,
    );
  }
  return names as EngineName[];
}

export function parseSamples(value: string): number {
  if (!/^\d{1,2}$/.test(value) || Number(value) < 1 || Number(value) > MAX_SAMPLES) {
    throw new InvalidArgumentError(`expected a whole number from 1 to ${MAX_SAMPLES}.`);
  }
  return Number(value);
}

/** Run events as JSON lines (pino); `monitor run` keeps stdout for the run ids. */
export function monitorLogger(level: string, destination: 1 | 2) {
  return pino({ level, base: undefined }, pino.destination({ fd: destination, sync: true }));
}

const UNREADABLE: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'it is a directory',
  EACCES: 'permission denied',
};

/** Why `file` could not be read (Node's error, or its code), as one plain sentence. */
export function cannotRead(file: string, cause: unknown): Error {
  const code = typeof cause === 'string' ? cause : ((cause as NodeJS.ErrnoException).code ?? '');
  return new Error(`cannot read ${file}: ${UNREADABLE[code] ?? (cause as Error).message}`);
}

/**
 * The most a command reads whole (a prompts file, one answer to analyze): 25,000 prompts of 2,000
 * characters fit in it. Past it a file is refused before it is read (a 600 MB one ended in V8's
 * "Invalid string length").
 */
export const MAX_TEXT_INPUT_BYTES = 64 * 1024 * 1024;

const tooLarge = (what: string, size: string) =>
  new Error(`${what} is larger than 64 MiB (${size}), more than this command reads`);

/** A text file's content; one that cannot be read is one plain sentence, not Node's error. */
export async function readTextFile(file: string): Promise<string> {
  const size = await stat(file).then(
    (info) => info.size,
    (error: unknown) => {
      throw cannotRead(file, error);
    },
  );
  if (size > MAX_TEXT_INPUT_BYTES) throw tooLarge(file, `${size.toLocaleString('en-US')} bytes`);
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw cannotRead(file, error);
  }
  return utf8Text(bytes, file);
}

/**
 * UTF-8 text, a leading byte-order mark dropped; bytes that are not UTF-8 (a Windows-1252 export)
 * are refused, not stored as U+FFFD.
 */
function utf8Text(bytes: Buffer, what: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new Error(`${what} is not UTF-8 text: save it as UTF-8 (a spreadsheet's "CSV UTF-8")`);
  }
}

/** What is piped in; on a terminal, nothing is, and `hint` says how to give the input. */
export async function readStdin(hint: string): Promise<string> {
  if (process.stdin.isTTY) throw new UsageError(hint);
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > MAX_TEXT_INPUT_BYTES)
      throw tooLarge('the input', `${bytes.toLocaleString('en-US')} bytes so far`);
    chunks.push(chunk);
  }
  return utf8Text(Buffer.concat(chunks, bytes), 'the input');
}

/**
 * An AbortController the first SIGINT or SIGTERM aborts (its reason the signal's name), after
 * `onFirst`; a second one leaves at once with 130.
 */
export function abortOnSignals(onFirst?: (signal: NodeJS.Signals) => void): AbortController {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(130);
    onFirst?.(signal);
    controller.abort(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return controller;
}
