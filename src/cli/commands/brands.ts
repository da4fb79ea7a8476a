// `sightline brands create|update`: an operator's brand set-up, validated by the catalog rules.
import { type Command, Option } from 'commander';
import { createBrand, updateBrand } from '../../db/catalog/brands.ts';
import { type BrandRecord, requireBrand } from '../../db/catalog/refs.ts';
import { BRAND_STATUSES, type EditableBrandStatus, type Ref } from '../../domain/catalog.ts';
import {
  parseKeyOption,
  parseListOption,
  parseRefOption,
  parseWebsiteOption,
  withOrganization,
} from '../operator.ts';
import { parseName, print } from './support.ts';

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
        },
      ) => {
        const brand = await withOrganization(options.org, async (db, org) =>
          updateBrand(db, await requireBrand(db, org.id, ref, org.slug), {
            name: options.name,
            website: options.website,
            aliases: options.aliases?.split(','),
            externalKey: options.key,
            status: options.status,
          }),
        );
        print(`Updated brand ${brand.id} "${brand.name}" (${describe(brand)}).`);
      },
    );
}
