// `sightline competitors add|candidates`: the rivals the analyzer looks for in a category's
// answers, and the untracked names answers keep ranking there.
import type { Command } from 'commander';
import { addCompetitor, listCandidates } from '../../db/catalog/competitors.ts';
import { requireBrand, requireCategory } from '../../db/catalog/refs.ts';
import type { Ref } from '../../domain/catalog.ts';
import { parseLimit, parseListOption, parseRefOption, withOrganization } from '../operator.ts';
import { formatTable, parseName, print } from './support.ts';

export function register(program: Command): void {
  const competitors = program.command('competitors').description('Set up competitors, by organization.');

  competitors
    .command('add')
    .description('Track a competitor in a category (answers imported from now on are read for it).')
    .requiredOption('--org <slug>', 'organization')
    .requiredOption('--category <category>', 'category id or key', parseRefOption)
    .requiredOption('--name <name>', 'canonical name, e.g. "monday.com"', parseName)
    .option(
      '--aliases <list>',
      'other names answers use, comma-separated (e.g. "Monday,monday work management")',
      parseListOption,
    )
    .action(async (options: { org: string; category: Ref; name: string; aliases?: string[] }) => {
      const competitor = await withOrganization(options.org, async (db, org) => {
        const category = await requireCategory(db, org.id, options.category, org.slug);
        const brand = await requireBrand(db, org.id, category.brandId, org.slug);
        return addCompetitor(db, brand, category, { name: options.name, aliases: options.aliases });
      });
      print(
        `Added competitor ${competitor.id} "${competitor.name}" (key ${competitor.canonicalKey}) to category ${competitor.categoryId}.`,
      );
    });

  competitors
    .command('candidates')
    .description('Names answers rank in a category that are not tracked yet, most frequent first.')
    .requiredOption('--org <slug>', 'organization')
    .requiredOption('--category <category>', 'category id or key', parseRefOption)
    .option('--limit <n>', 'how many to show (default 50)', parseLimit)
    .action(async (options: { org: string; category: Ref; limit?: number }) => {
      const candidates = await withOrganization(options.org, async (db, org) =>
        listCandidates(db, await requireCategory(db, org.id, options.category, org.slug), options.limit),
      );
      if (candidates.length === 0) {
        print('No candidates: imported answers rank no untracked names in this category.');
        return;
      }
      print(
        formatTable(
          ['NAME', 'KEY', 'ANSWERS', 'FIRST SEEN', 'LAST SEEN'],
          candidates.map((c) => [c.name, c.canonicalKey, String(c.answers), c.firstSeenAt, c.lastSeenAt]),
        ),
      );
    });
}
