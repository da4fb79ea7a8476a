// `sightline recommendations generate|list|start|implement|dismiss|measure`: the operator's hand on
// the recommendations the API lists (docs/recommendations.md). The API stays read-only.
import { type Command, InvalidArgumentError } from 'commander';
import { loadConfig } from '../../config.ts';
import { requireBrand, requireOrganization } from '../../db/catalog/refs.ts';
import { recommendationsPage } from '../../db/recommendations.ts';
import { hasStrayControl, type Ref } from '../../domain/catalog.ts';
import { DraftInterrupted, draftGeneration } from '../../recommendations/artifacts.ts';
import { generateRecommendations } from '../../recommendations/generate.ts';
import { type Action, changeStatus, MAX_REASON_LENGTH } from '../../recommendations/lifecycle.ts';
import { measureOutcomes } from '../../recommendations/outcomes.ts';
import { parseRefOption, withOrganization } from '../operator.ts';
import { configuredDrafter } from './recommendation-drafts.ts';
import {
  abortOnSignals,
  formatTable,
  monitorLogger,
  paidWrites,
  print,
  realCalendarDay,
  withDatabase,
} from './support.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function parseRecommendationId(value: string): string {
  if (!UUID.test(value)) throw new InvalidArgumentError('expected a recommendation id (a UUID).');
  return value.toLowerCase();
}

/** A moment no later than now: YYYY-MM-DD (00:00 UTC) or a date-time with Z or an offset. */
export function parseAt(value: string): Date {
  const shaped = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/.test(value);
  const time =
    shaped && realCalendarDay(value)
      ? Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value)
      : Number.NaN;
  if (Number.isNaN(time))
    throw new InvalidArgumentError(
      'expected an ISO-8601 date or date-time with an offset, such as 2026-03-01T09:00:00Z.',
    );
  if (time > Date.now()) throw new InvalidArgumentError('cannot be in the future.');
  return new Date(time);
}

function parseReason(value: string): string {
  const reason = value.trim();
  if (reason === '' || reason.length > MAX_REASON_LENGTH)
    throw new InvalidArgumentError(`expected a reason of 1-${MAX_REASON_LENGTH} characters.`);
  if (hasStrayControl(reason))
    throw new InvalidArgumentError(
      'expected a reason without control characters (line breaks and tabs are fine).',
    );
  return reason;
}

const ACTION_WORDS: Record<Action, string> = {
  start: 'Start work on a recommendation (open → in_progress).',
  implement: 'Mark a recommendation implemented and record its outcome baseline.',
  dismiss: 'Dismiss a recommendation, with a reason.',
};

export function register(program: Command): void {
  const recs = program
    .command('recommendations')
    .description('Generate recommendations from a brand’s analytics, act on them, measure outcomes.');

  recs
    .command('generate')
    .description(
      'Run the rules over the brand’s last 30 days and draft the new ones’ artifacts; prints the ids of new recommendations.',
    )
    .requiredOption('--org <slug>', 'organization')
    .requiredOption('--brand <brand>', 'brand id or key', parseRefOption)
    .option('--at <iso>', 'as of this moment instead of now', parseAt)
    .action(async (options: { org: string; brand: Ref; at?: Date }) => {
      const config = loadConfig();
      const log = monitorLogger(config.logLevel, 2);
      const drafter = configuredDrafter(config, log);
      const { signal } = abortOnSignals();
      let interrupted: DraftInterrupted | undefined;
      const generation = await withOrganization(
        options.org,
        async (db, org) => {
          const brand = await requireBrand(db, org.id, options.brand, org.slug);
          const at = options.at ?? new Date();
          const generated = await generateRecommendations(db, { orgId: org.id, brandId: brand.id }, at);
          // Generated first, then drafted: a draft that fails leaves the recommendations, and
          // `recommendations draft ID` (or the next generation) carries on.
          try {
            await draftGeneration(db, org.id, generated, drafter, at, { log, signal });
          } catch (error) {
            if (!(error instanceof DraftInterrupted)) throw error;
            interrupted = error;
          }
          return generated;
        },
        paidWrites(),
      );
      for (const rec of generation.created) print(rec.id);
      if (interrupted) {
        throw new Error(
          `${interrupted.message}; the recommendations are generated (the new ones' ids above): the next generation, or recommendations draft ID, drafts the rest`,
        );
      }
    });

  recs
    .command('list')
    .description('The brand’s recommendations as the API lists them (superseded ones left out).')
    .requiredOption('--org <slug>', 'organization')
    .requiredOption('--brand <brand>', 'brand id or key', parseRefOption)
    .action(async (options: { org: string; brand: Ref }) => {
      const rows = await withOrganization(options.org, async (db, org) => {
        const brand = await requireBrand(db, org.id, options.brand, org.slug);
        return recommendationsPage(db, org.id, brand.id, 'all');
      });
      if (rows.length === 0) {
        print('No recommendations (sightline recommendations generate makes them from the analytics).');
        return;
      }
      print(
        formatTable(
          ['ID', 'TYPE', 'STATUS', 'PRIORITY', 'SCORE', 'TITLE'],
          rows.map((r) => [r.id, r.rec_type, r.status, r.priority, String(r.score), r.title]),
        ),
      );
    });

  for (const action of ['start', 'implement', 'dismiss'] as const) {
    const command = recs
      .command(action)
      .description(ACTION_WORDS[action])
      .argument('<id>', 'recommendation id', parseRecommendationId)
      .requiredOption('--org <slug>', 'organization the recommendation belongs to')
      .option('--at <iso>', 'when it happened (default now)', parseAt);
    if (action === 'dismiss') command.requiredOption('--reason <text>', 'why it is dismissed', parseReason);
    command.action(async (id: string, options: { org: string; at?: Date; reason?: string }) => {
      const change = await withOrganization(options.org, (db, org) => {
        const now = new Date();
        return changeStatus(db, org.id, id, action, { at: options.at ?? now, now, reason: options.reason });
      });
      const baseline = change.baseline
        ? `; baseline ${change.baseline.metricName} = ${change.baseline.value.toFixed(4)} over ${change.baseline.sampleSize} samples`
        : '';
      print(`Recommendation ${change.id} is ${change.status}${baseline}.`);
    });
  }

  recs
    .command('measure')
    .description('Measure the outcomes whose window has passed (all organizations unless --org).')
    .option('--org <slug>', 'only this organization')
    .option('--at <iso>', 'as of this moment instead of now', parseAt)
    .action(async (options: { org?: string; at?: Date }) => {
      const measured = await withDatabase(async (db) => {
        const orgId = options.org === undefined ? null : (await requireOrganization(db, options.org)).id;
        return measureOutcomes(db, { orgId, at: options.at ?? new Date() });
      });
      for (const m of measured) {
        print(
          `${m.recommendationId} ${m.metricName} ${m.baselineValue.toFixed(4)} -> ${m.currentValue.toFixed(4)} ` +
            `(${m.baselineSampleSize} -> ${m.currentSampleSize} samples, attribution ${m.attributionConfidence})`,
        );
      }
      if (measured.length === 0) print('No outcome is due.');
    });
}
