// `sightline orgs list|create|update`: organizations, their plan, API add-on and time zone.
import { type Command, Option } from 'commander';
import {
  createOrganization,
  findOrganizationBySlug,
  listOrganizations,
  type Organization,
  PLANS,
  type Plan,
  updateOrganization,
} from '../../db/organizations.ts';
import { UsageError } from '../errors.ts';
import { formatTable, parseName, parseNewSlug, parseTimezone, print, withDatabase } from './support.ts';

interface SettingsOptions {
  plan?: Plan;
  apiAccess?: 'on' | 'off';
  timezone?: string;
}

const settingOptions = () => [
  new Option('--plan <plan>', 'subscription plan').choices(PLANS),
  new Option('--api-access <state>', 'API access add-on').choices(['on', 'off']),
  new Option('--timezone <tz>', 'IANA time zone for calendar dates, e.g. Europe/Berlin').argParser(
    parseTimezone,
  ),
];

function describe(org: Organization): string {
  return `plan ${org.plan}, API access ${org.apiAccess ? 'on' : 'off'}, timezone ${org.timezone}`;
}

function addOnHint(org: Organization): void {
  if (!org.apiAccess) {
    print(
      `Keys of ${org.slug} get 403 until the add-on is on: npx sightline orgs update ${org.slug} --api-access on`,
    );
  }
}

export function register(program: Command): void {
  const orgs = program.command('orgs').description('Manage organizations.');

  orgs
    .command('list')
    .description('List every organization.')
    .action(async () => {
      const all = await withDatabase((db) => listOrganizations(db));
      if (all.length === 0) {
        print('No organizations yet. Create one with: npx sightline orgs create --slug SLUG --name NAME');
        return;
      }
      print(
        formatTable(
          ['SLUG', 'NAME', 'PLAN', 'API ACCESS', 'TIMEZONE', 'CREATED'],
          all.map((o) => [o.slug, o.name, o.plan, o.apiAccess ? 'on' : 'off', o.timezone, o.createdAt]),
        ),
      );
    });

  const create = orgs
    .command('create')
    .description('Create an organization (defaults: plan free, API access off, timezone UTC).')
    .requiredOption('--slug <slug>', 'short unique identifier, e.g. acme', parseNewSlug)
    .requiredOption('--name <name>', 'display name', parseName);
  for (const option of settingOptions()) create.addOption(option);
  create.action(async (options: SettingsOptions & { slug: string; name: string }) => {
    const org = await withDatabase(async (db) => {
      const created = await createOrganization(db, {
        slug: options.slug,
        name: options.name,
        plan: options.plan ?? 'free',
        apiAccess: options.apiAccess === 'on',
        timezone: options.timezone ?? 'UTC',
      });
      if (!created) throw new Error(`an organization with slug "${options.slug}" already exists`);
      return created;
    });
    print(`Created organization ${org.slug} (${describe(org)}).`);
    addOnHint(org);
  });

  const update = orgs
    .command('update')
    .description("Change an organization's plan, API add-on or time zone.")
    .argument('<slug>', 'the organization to change');
  for (const option of settingOptions()) update.addOption(option);
  update.action(async (slug: string, options: SettingsOptions) => {
    if (options.plan === undefined && options.apiAccess === undefined && options.timezone === undefined) {
      throw new UsageError('nothing to update: give --plan, --api-access or --timezone');
    }
    const org = await withDatabase(async (db) => {
      if (!(await findOrganizationBySlug(db, slug))) throw new Error(`no organization with slug "${slug}"`);
      return updateOrganization(db, slug, {
        plan: options.plan,
        apiAccess: options.apiAccess === undefined ? undefined : options.apiAccess === 'on',
        timezone: options.timezone,
      });
    });
    if (!org) throw new Error(`no organization with slug "${slug}"`);
    print(`Updated organization ${org.slug} (${describe(org)}).`);
    addOnHint(org);
  });
}
