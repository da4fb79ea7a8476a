// `sightline reports generate`: generate a report artifact, for operators. Prints the new
// artifact's id as the last line (scripts take it with `tail -n 1`); a report that fails, or is
// interrupted (SIGINT, SIGTERM: the artifact is then aborted, not left running), still prints its
// id and exits 1.
import { type Command, InvalidArgumentError, Option } from 'commander';
import { brandOrganization, findMemberId } from '../../db/report-lookups.ts';
import { RANGES } from '../../domain/windows.ts';
import { REPORT_TYPES } from '../../reports/catalog.ts';
import { generateReport } from '../../reports/generate.ts';
import { InvalidReportRequest, REPORT_FORMATS, type ReportFormat } from '../../reports/request.ts';
import { UsageError } from '../errors.ts';
import { abortOnSignals, print, withDatabase } from './support.ts';

interface GenerateOptions {
  brand: number;
  type: string;
  category?: number;
  format: ReportFormat;
  range?: string;
  start?: string;
  end?: string;
  user?: string;
  branding: boolean;
}

function parseId(value: string): number {
  if (!/^[1-9]\d{0,15}$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new InvalidArgumentError('expected a positive whole number.');
  }
  return Number(value);
}

export function register(program: Command): void {
  const reports = program.command('reports').description('Report artifacts.');

  reports
    .command('generate')
    .description(
      'Generate a report (PDF or HTML) and store it; the new artifact id is printed on the last line.',
    )
    .requiredOption('--brand <id>', 'the brand the report is about', parseId)
    .addOption(
      new Option('--type <type>', 'the report type').choices([...REPORT_TYPES.keys()]).makeOptionMandatory(),
    )
    .option('--category <id>', 'cover one category of the brand instead of the whole brand', parseId)
    .addOption(
      new Option('--format <format>', 'pdf (with its HTML too) or html')
        .choices(REPORT_FORMATS)
        .default('pdf'),
    )
    .addOption(
      new Option(
        '--range <range>',
        'the window the figures cover: default 30d; the weekly update is always 7d',
      ).choices(RANGES),
    )
    .option('--start <date>', 'first day (YYYY-MM-DD) of a --range custom window')
    .option('--end <date>', 'last day (YYYY-MM-DD) of a --range custom window')
    .option('--user <email>', "the organization member generating it (the artifact's generatedByEmail)")
    .option('--no-branding', "leave the organization's name off the report")
    .action(async (options: GenerateOptions) => {
      // A second signal leaves at once; the artifact is then aborted later (docs/reports.md, Lifecycle).
      const controller = abortOnSignals();
      const result = await withDatabase(async (db, config) => {
        const orgId = await brandOrganization(db, options.brand);
        if (orgId === undefined) throw new UsageError(`no brand with id ${options.brand}`);
        let userId: number | null = null;
        if (options.user !== undefined) {
          userId = (await findMemberId(db, orgId, options.user)) ?? null;
          if (userId === null)
            throw new UsageError(`${options.user} is not a member of the brand's organization`);
        }
        try {
          return await generateReport(
            db,
            {
              orgId,
              brandId: options.brand,
              categoryId: options.category ?? null,
              reportType: options.type,
              format: options.format,
              range: options.range,
              start: options.start,
              end: options.end,
              userId,
              branded: options.branding,
            },
            { signal: controller.signal, fonts: config.reportFonts },
          );
        } catch (error) {
          if (error instanceof InvalidReportRequest) throw new UsageError(error.message);
          if (controller.signal.aborted)
            throw new Error(`interrupted (${controller.signal.reason}) before the report was queued`);
          throw error;
        }
      });
      if (result.status !== 'complete') {
        print(String(result.artifactId));
        throw new Error(
          result.status === 'failed'
            ? `report ${result.artifactId} failed ${result.failureDetail}`
            : `report ${result.artifactId} aborted: ${result.abortedReason}`,
        );
      }
      const missing = result.missingGlyphs;
      if (missing.length > 0) {
        const shown = missing.slice(0, 8).join(' ') + (missing.length > 8 ? ' …' : '');
        process.stderr.write(
          `sightline: warning: the PDF has no glyph for ${missing.length} character(s) (${shown}), drawn as empty boxes: name fonts that have them in REPORT_FONTS (docs/reports.md)\n`,
        );
      }
      print(`Generated ${options.type} report (${options.format}) for brand ${options.brand}.`);
      print(String(result.artifactId));
    });
}
