// `sightline runs import|publish|unpublish`: captured answers in (NDJSON, docs/ingest.md), and
// the switch that shows a run through the API.
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { loadConfig } from '../../config.ts';
import { requireOrganization } from '../../db/catalog/refs.ts';
import type { Db } from '../../db/connect.ts';
import { findRunId, findRunOrganization } from '../../db/run-writes.ts';
import type { ImportProgress, ImportRejected, ImportSummary } from '../../ingest/import.ts';
import { setRunPublished } from '../../ingest/runs.ts';
import { afterRunPublished } from '../../recommendations/after-publish.ts';
import { DraftInterrupted } from '../../recommendations/artifacts.ts';
import { printable, UsageError } from '../errors.ts';
import { parseLimit } from '../operator.ts';
import { configuredDrafter } from './recommendation-drafts.ts';
import { abortOnSignals, cannotRead, monitorLogger, parseSlug, print, withDatabase } from './support.ts';

/** The input as a file that can be read twice: `-` (stdin) is copied to a temporary file first. */
async function asFile<T>(file: string, fn: (path: string) => Promise<T>): Promise<T> {
  if (file !== '-') {
    const info = await stat(file).catch((error: unknown) => {
      throw cannotRead(file, error);
    });
    if (info.isDirectory()) throw cannotRead(file, 'EISDIR');
    // The import reads its input twice; a pipe or a device can be read once.
    if (!info.isFile())
      throw new UsageError(
        `${file} is not a regular file; pipe it in instead: … | npx sightline runs import -`,
      );
    return fn(file);
  }
  if (process.stdin.isTTY)
    throw new UsageError('pipe the answers in (… | npx sightline runs import -) or name a file');
  // A signal ends the process without running `finally`: the copy of stdin, which may be large,
  // would stay in the temporary folder. The import's transaction is rolled back either way. The
  // folder is made synchronously once the handlers listen, so no signal falls between the two.
  let dir: string | undefined;
  const interrupted = (signal: NodeJS.Signals) => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  dir = mkdtempSync(join(tmpdir(), 'sightline-import-'));
  try {
    const path = join(dir, 'answers.ndjson');
    await pipeline(process.stdin, createWriteStream(path));
    return await fn(path);
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    await rm(dir, { recursive: true, force: true });
  }
}

async function countLines(path: string): Promise<number> {
  let lines = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
  }
  return lines + 1;
}

/** A progress bar on a terminal (stderr), nothing otherwise. */
async function progressReporter(path: string): Promise<{ update(p: ImportProgress): void; stop(): void }> {
  if (!process.stderr.isTTY) return { update() {}, stop() {} };
  const lines = await countLines(path);
  const bar = new SingleBar({
    stream: process.stderr,
    format: '{phase} [{bar}] {percentage}% | {value}/{total} | {eta_formatted} left',
    hideCursor: true,
  });
  let phase = '';
  return {
    update(p) {
      // Nothing to write (every answer already stored): no bar, whose time left would read "NULL".
      if (p.total === 0) return;
      const label = p.phase.padEnd(10);
      if (label !== phase) {
        if (phase) bar.stop();
        phase = label;
        bar.start(p.total ?? lines, 0, { phase });
      }
      bar.update(p.done, { phase });
    },
    stop: () => bar.stop(),
  };
}

const count = (n: number, noun: string) => `${n.toLocaleString('en-US')} ${noun}${n === 1 ? '' : 's'}`;

function summaryLine(summary: ImportSummary, seconds: number): string {
  const runs = summary.runs;
  const ids =
    runs.length <= 5 ? ` (${runs.map((r) => `run ${r.id}${r.created ? ' new' : ''}`).join(', ')})` : '';
  const visible = runs.filter((r) => r.visible).length;
  const parts = [
    `imported ${count(summary.imported, 'answer')} into ${count(runs.length, 'run')}${ids}`,
    `${summary.alreadyPresent.toLocaleString('en-US')} already present`,
    `${visible} of ${runs.length} run(s) visible through the API`,
  ];
  if (summary.candidates > 0)
    parts.push(
      `${count(summary.candidates, 'untracked name')} ranked (npx sightline competitors candidates)`,
    );
  const rate = seconds > 0 ? Math.round(summary.imported / seconds) : summary.imported;
  parts.push(`${seconds.toFixed(1)} s, ${rate.toLocaleString('en-US')} answers/s`);
  return `${parts.join('; ')}.`;
}

function reportRejection(error: ImportRejected, file: string): void {
  const name = file === '-' ? 'stdin' : file;
  // Line 0 is the input as a whole (one without answers): named without a line.
  for (const e of error.errors)
    process.stderr.write(`${name}${e.line > 0 ? `:${e.line}` : ''}: ${printable(e.message)}\n`);
  const hidden = error.errorCount - error.errors.length;
  if (hidden > 0) process.stderr.write(`… and ${hidden} more problem(s)\n`);
}

interface PublishOptions {
  org?: string;
  externalId?: boolean;
}

/**
 * The run `given` names: a Sightline run id (digits), or with --org the run id of the import file,
 * which may be any text the file's `run` may be (digits too: `--external-id` says which is meant,
 * and digits that name two different runs are refused rather than guessed).
 */
async function resolveRun(
  db: Db,
  given: string,
  options: PublishOptions,
): Promise<{ orgId: number; runId: number } | undefined> {
  const digits = /^[0-9]+$/.test(given) && !options.externalId;
  if (options.org === undefined) {
    if (!digits) throw new UsageError('a run named by its external id needs --org');
    const id = Number(given);
    const orgId = Number.isSafeInteger(id) ? await findRunOrganization(db, id) : undefined;
    return orgId === undefined ? undefined : { orgId, runId: id };
  }
  const orgId = (await requireOrganization(db, options.org)).id;
  const external = given.length <= 128 ? await findRunId(db, orgId, given) : undefined;
  if (!digits) return external === undefined ? undefined : { orgId, runId: external };
  const id = Number(given);
  const byId = Number.isSafeInteger(id) ? await findRunId(db, orgId, id) : undefined;
  if (byId !== undefined && external !== undefined && byId !== external)
    throw new UsageError(
      `"${given}" names run ${byId} by its id and run ${external} by the import file's run id: add --external-id for the second`,
    );
  const runId = byId ?? external;
  return runId === undefined ? undefined : { orgId, runId };
}

/**
 * What a publication sets off (recommendations regenerated and drafted, outcomes measured), once
 * per brand whatever number of its runs were published; a failure is a warning, the runs stay
 * published.
 */
async function followPublications(
  db: Db,
  runs: readonly { orgId: number; brandId: number; runId: number }[],
): Promise<void> {
  if (runs.length === 0) return;
  const config = loadConfig();
  const drafter = configuredDrafter(config, monitorLogger(config.logLevel, 2));
  const warn = (_fields: unknown, message: string) =>
    process.stderr.write(`sightline: warning: ${message}\n`);
  const byBrand = new Map(runs.map((run) => [`${run.orgId}/${run.brandId}`, run]));
  // Ctrl-C stops what follows the publication (a drafting ask is given up, its artifact let go at
  // once), never the publication itself; whichever step it came in, the command says so.
  const { signal } = abortOnSignals();
  const stopped = () =>
    new Error(
      `interrupted (${String(signal.reason)}) after publishing: the runs are published; sightline recommendations generate and recommendations measure catch up`,
    );
  for (const run of byBrand.values()) {
    if (signal.aborted) throw stopped();
    try {
      await afterRunPublished(db, run, new Date(), drafter, { info() {}, warn, error: warn }, signal);
    } catch (error) {
      throw error instanceof DraftInterrupted ? stopped() : error;
    }
  }
  if (signal.aborted) throw stopped();
}

async function publishCommand(given: string, options: PublishOptions, publish: boolean): Promise<void> {
  const result = await withDatabase(async (db) => {
    const found = await resolveRun(db, given, options);
    if (!found) {
      throw new Error(
        `run ${JSON.stringify(given)} does not exist${options.org ? ` in organization ${options.org}` : ''}`,
      );
    }
    const { orgId, runId } = found;
    const now = new Date();
    const published = await setRunPublished(db, orgId, runId, publish ? now.toISOString() : null);
    if (publish && published.changed)
      await followPublications(db, [{ orgId, brandId: published.brandId, runId }]);
    return published;
  });
  const label = `${result.id}${result.externalId ? ` (${result.externalId})` : ''}`;
  if (!result.changed) print(`Run ${label} was already ${publish ? 'published' : 'unpublished'}.`);
  else
    print(
      publish
        ? `Published run ${label}: the API shows it now.`
        : `Unpublished run ${label}: the API answers 404 for it now.`,
    );
}

export function register(program: Command): void {
  const runs = program.command('runs').description('Import captured answers and publish runs.');

  runs
    .command('import')
    .description(
      'Import captured answers (NDJSON, one per line; see docs/ingest.md). All or nothing; safe to repeat.',
    )
    .argument('<file>', 'NDJSON file, or - for stdin')
    // A slug, as every command's --org: read as a ref, digits named an organization by id, and an
    // import meant for an organization whose slug is digits went into another.
    .option(
      '--org <slug>',
      'organization of lines that name none; lines naming another are refused',
      parseSlug,
    )
    .option('--publish', 'publish the completed runs the file touches')
    .option('--max-errors <n>', 'problems to list before only counting them (default 100)', parseLimit)
    .action(async (file: string, options: { org?: string; publish?: boolean; maxErrors?: number }) => {
      const started = performance.now();
      // Here rather than at the top: the import's line checker and analyzer are two thirds of this
      // group's modules, which `runs publish` does not use.
      const [{ importAnswers, ImportRejected: Rejected }, { withAnswersFile }] = await Promise.all([
        import('../../ingest/import.ts'),
        import('../../ingest/answers-file.ts'),
      ]);
      const summary = await asFile(file, async (path) => {
        const progress = await progressReporter(path);
        try {
          const result = await withAnswersFile(path, (lines) =>
            withDatabase(async (db) => {
              // Said once, not on every line of the file.
              if (options.org !== undefined) await requireOrganization(db, options.org);
              return importAnswers(db, lines, {
                organization: options.org,
                publish: options.publish,
                maxErrors: options.maxErrors,
                onProgress: (p) => progress.update(p),
              });
            }),
          );
          progress.stop();
          return result;
        } catch (error) {
          progress.stop();
          if (error instanceof Rejected) reportRejection(error, file);
          throw error;
        }
      });
      print(summaryLine(summary, (performance.now() - started) / 1000));
      // After the import is written and said, outside the copy of stdin's signal handling: a
      // signal here does not undo an import that is done (the recommendations catch up with
      // `recommendations generate`).
      const published = summary.runs.filter((r) => r.published).map((r) => ({ ...r, runId: r.id }));
      if (published.length > 0) await withDatabase((db) => followPublications(db, published));
    });

  for (const publish of [true, false]) {
    runs
      .command(publish ? 'publish' : 'unpublish')
      .description(
        publish
          ? 'Publish a completed run: the API shows it.'
          : 'Unpublish a run: the API answers 404 for it.',
      )
      .argument('<run>', "run id, or the import file's run id with --org")
      .option('--org <slug>', "organization (required for the import file's run id)")
      .option('--external-id', "<run> is the import file's run id, digits or not")
      .action((given: string, options: PublishOptions) => publishCommand(given, options, publish));
  }
}
