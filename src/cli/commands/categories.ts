// `sightline categories create`: a category (a market the brand is monitored in) under a brand.
import type { Command } from 'commander';
import { createCategory } from '../../db/catalog/categories.ts';
import { requireBrand } from '../../db/catalog/refs.ts';
import type { Ref } from '../../domain/catalog.ts';
import { parseKeyOption, parseRefOption, withOrganization } from '../operator.ts';
import { parseName, print } from './support.ts';

export function register(program: Command): void {
  const categories = program.command('categories').description('Set up categories, by organization.');

  categories
    .command('create')
    .description('Create a category under a brand; its prompts and competitors come next.')
    .requiredOption('--org <slug>', 'organization')
    .requiredOption('--brand <brand>', 'brand id or key', parseRefOption)
    .requiredOption('--name <name>', 'category name, e.g. "Project management"', parseName)
    .option('--description <text>', 'what the category covers')
    .option('--key <key>', 'your own identifier for the category, usable in import files', parseKeyOption)
    .action(
      async (options: { org: string; brand: Ref; name: string; description?: string; key?: string }) => {
        const category = await withOrganization(options.org, async (db, org) =>
          createCategory(db, await requireBrand(db, org.id, options.brand, org.slug), {
            name: options.name,
            description: options.description,
            externalKey: options.key,
          }),
        );
        print(`Created category ${category.id} "${category.name}" under brand ${category.brandId}.`);
        print(String(category.id));
      },
    );
}
