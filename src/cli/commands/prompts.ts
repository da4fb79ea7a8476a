// `sightline prompts create|import`: the questions monitoring asks, one at a time or from a CSV file.
import type { Command } from 'commander';
import { createPrompt, importPrompts, RowsRejected } from '../../db/catalog/prompts.ts';
import { requireBrand, requireCategory } from '../../db/catalog/refs.ts';
import type { Ref } from '../../domain/catalog.ts';
import { parsePromptCsv } from '../../domain/prompt-csv.ts';
import { printable } from '../errors.ts';
import { parseKeyOption, parseRefOption, withOrganization } from '../operator.ts';
import { print, readStdin, readTextFile } from './support.ts';

export function register(program: Command): void {
  const prompts = program.command('prompts').description('Set up prompts, by organization.');

  prompts
    .command('create')
    .description('Add one prompt to a category.')
    .requiredOption('--org <slug>', 'organization')
    .requiredOption('--category <category>', 'category id or key', parseRefOption)
    .option('--brand <brand>', "brand id or key (checked: the category must be this brand's)", parseRefOption)
    .requiredOption('--text <text>', 'the question, as asked of the answer engines')
    .option('--key <key>', 'your own identifier for the prompt, usable in import files', parseKeyOption)
    .option('--unmonitored', 'add it without monitoring it')
    .action(
      async (options: {
        org: string;
        category: Ref;
        brand?: Ref;
        text: string;
        key?: string;
        unmonitored?: boolean;
      }) => {
        const prompt = await withOrganization(options.org, async (db, org) => {
          const brand =
            options.brand === undefined ? undefined : await requireBrand(db, org.id, options.brand, org.slug);
          const category = await requireCategory(db, org.id, options.category, org.slug, brand);
          return createPrompt(db, category, {
            text: options.text,
            externalKey: options.key,
            monitored: !options.unmonitored,
          });
        });
        print(
          `Created prompt ${prompt.id} in category ${prompt.categoryId}${prompt.isMonitored ? '' : ' (not monitored)'}.`,
        );
        print(String(prompt.id));
      },
    );

  prompts
    .command('import')
    .description(
      'Add or update prompts from a CSV file with a header: text[,key][,category][,monitored]. All or nothing.',
    )
    .argument('<file>', 'CSV file, or - for stdin')
    .requiredOption('--org <slug>', 'organization')
    .option('--category <category>', 'category id or key for rows without a category column', parseRefOption)
    .action(async (file: string, options: { org: string; category?: Ref }) => {
      const fromStdin = file === '-';
      const source = fromStdin ? 'stdin' : file;
      const text = fromStdin
        ? await readStdin('pipe the prompts in (… | npx sightline prompts import - --org S) or name a file')
        : await readTextFile(file);
      const result = await withOrganization(options.org, async (db, org) => {
        const fallback =
          options.category === undefined
            ? null
            : await requireCategory(db, org.id, options.category, org.slug);
        const parsed = parsePromptCsv(text);
        try {
          if (parsed.errors.length > 0) throw new RowsRejected(parsed.errors);
          return await importPrompts(db, org.id, parsed.rows, fallback);
        } catch (error) {
          if (error instanceof RowsRejected)
            for (const message of error.errors) process.stderr.write(`${source}: ${printable(message)}\n`);
          throw error;
        }
      });
      print(
        `Prompts from ${source}: ${result.created} created, ${result.updated} updated, ${result.unchanged} unchanged.`,
      );
    });
}
