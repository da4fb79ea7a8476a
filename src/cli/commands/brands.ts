// `sightline brands create|update`: an operator's brand set-up, validated by the catalog rules.
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { EngineName } from '../../config.ts';
import { createBrand, updateBrand } from '../../db/catalog/brands.ts';
import { competitorsNamedAsBrand } from '../../db/catalog/competitors.ts';
import { type BrandRecord, requireBrand } from '../../db/catalog/refs.ts';
import { BRAND_STATUSES, type EditableBrandStatus, type Ref } from '../../domain/catalog.ts';
import {
  CADENCES,
  type Cadence,
  parseTimeOfDay,
  parseWeekday,
  WEEKDAYS,
  type Weekday,
} from '../../domain/schedule.ts';
import {
  describeMonitoring,
  hasMonitoringChanges,
  updateBrandMonitoring,
} from '../../monitoring/settings.ts';
import { UsageError } from '../errors.ts';
import {
  parseKeyOption,
  parseListOption,
  parseRefOption,
  parseWebsiteOption,
  withOrganization,
} from '../operator.ts';
import { parseEngines, parseName, parseSamples, print } from './support.ts';

// A parser's null reaches the action as "" (commander), so "" stands for "clear it" until then.

/** "HH:MM" on the 24-hour clock, or "" to clear it. */
function parseTime(value: string): string {
  if (value !== '' && parseTimeOfDay(value) === null)
    throw new InvalidArgumentError('expected HH:MM on the 24-hour clock, e.g. 06:30, or "" to clear it.');
  return value;
}

/** "mon" or "Monday" (any case), or "" to clear it. */
function parseWeekdayOption(value: string): Weekday | '' {
  if (value === '') return '';
  const weekday = parseWeekday(value);
  if (weekday === null)
    throw new InvalidArgumentError(`expected a day of the week, ${WEEKDAYS.join(', ')}, or "" to clear it.`);
  return weekday;
}

const cleared = <T extends string>(value: T | '' | undefined): T | null | undefined =>
  value === '' ? null : value;

function describe(brand: BrandRecord): string {
  const parts = [brand.website || 'no website', `status ${brand.status}`];
  if (brand.aliases.length > 0) parts.push(`aliases ${brand.aliases.join(', ')}`);
  if (brand.externalKey) parts.push(`key ${brand.externalKey}`);
  return parts.join('; ');
}

export function register(program: Command): void {
  const brands = program.command('brands').description('Set up brands, by organization.');

  brands
    .command('create')
    .description('Create a brand.')
    .requiredOption('--org <slug>', 'organization')
    .requiredOption('--name <name>', 'brand name as answers write it', parseName)
    .option('--website <url>', "the brand's website, e.g. https://www.acme.com", parseWebsiteOption)
    .option(
      '--aliases <list>',
      'other names answers use, comma-separated (e.g. "Acme,Acme Cloud")',
      parseListOption,
    )
    .option('--key <key>', 'your own identifier for the brand, usable in import files', parseKeyOption)
    .action(
      async (options: { org: string; name: string; website?: string; aliases?: string[]; key?: string }) => {
        const brand = await withOrganization(options.org, (db, org) =>
          createBrand(db, org.id, {
            name: options.name,
            website: options.website,
            aliases: options.aliases,
            externalKey: options.key,
          }),
        );
        print(`Created brand ${brand.id} "${brand.name}" in ${options.org} (${describe(brand)}).`);
        print(String(brand.id));
      },
    );

  brands
    .command('update')
    .description('Change a brand; only the options given change.')
    .argument('<brand>', 'brand id or key', parseRefOption)
    .requiredOption('--org <slug>', 'organization')
    .option('--name <name>', 'new name', parseName)
    .option('--website <url>', 'new website ("" clears it)')
    .option('--aliases <list>', 'replacement aliases, comma-separated ("" clears them)')
    .option('--key <key>', 'new key', parseKeyOption)
    .addOption(new Option('--status <status>', 'brand status').choices(BRAND_STATUSES))
    .addOption(new Option('--cadence <cadence>', 'how often monitoring asks the engines').choices(CADENCES))
    .option(
      '--time <HH:MM>',
      'time of day of the runs, in the organization time zone ("" clears it)',
      parseTime,
    )
    .option(
      '--weekday <day>',
      'day of the week of weekly runs, mon … sun, in the organization time zone ("" clears it)',
      parseWeekdayOption,
    )
    .option('--engines <list>', 'engines to ask, comma-separated, e.g. chatgpt,perplexity', parseEngines)
    .option('--samples <n>', 'asks per prompt and engine in each run', parseSamples)
    .action(
      async (
        ref: Ref,
        options: {
          org: string;
          name?: string;
          website?: string;
          aliases?: string;
          key?: string;
          status?: EditableBrandStatus;
          cadence?: Cadence;
          time?: string;
          weekday?: Weekday | '';
          engines?: EngineName[];
          samples?: number;
        },
      ) => {
        const { org: _, ...changes } = options;
        // "Updated" with nothing given read as a change made.
        if (Object.values(changes).every((value) => value === undefined))
          throw new UsageError('nothing to change: give at least one option, e.g. --name or --status');
        const monitoring = {
          cadence: options.cadence,
          time: cleared(options.time),
          weekday: cleared(options.weekday),
          engines: options.engines,
          samples: options.samples,
        };
        // One transaction: a refused monitoring change leaves the other changes unmade too.
        const { brand, schedule, shadowed } = await withOrganization(options.org, (db, org) =>
          db.transaction().execute(async (trx) => {
            const brand = await updateBrand(trx, await requireBrand(trx, org.id, ref, org.slug), {
              name: options.name,
              website: options.website,
              aliases: options.aliases?.split(','),
              externalKey: options.key,
              status: options.status,
            });
            const schedule = hasMonitoringChanges(monitoring)
              ? await updateBrandMonitoring(trx, org.id, brand.id, monitoring, new Date())
              : undefined;
            return { brand, schedule, shadowed: await competitorsNamedAsBrand(trx, brand) };
          }),
        );
        print(`Updated brand ${brand.id} "${brand.name}" (${describe(brand)}).`);
        // Not refused: the competitor was there first, and no command removes one.
        for (const c of shadowed) {
          process.stderr.write(
            `sightline: warning: competitor ${c.id} "${c.name}" (category ${c.categoryId}) now goes by a name of the brand itself: answers naming it count for the brand\n`,
          );
        }
        if (schedule) print(`Brand ${brand.id}: ${describeMonitoring(schedule)}.`);
      },
    );
}
