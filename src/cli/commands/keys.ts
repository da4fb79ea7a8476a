// `sightline keys create|list|revoke`: API keys. The full key is shown once, at creation, as the
// last line of output so scripts can take it with `tail -n 1`; only a hash of its secret is kept.
import { type Command, Option } from 'commander';
import { parseKey } from '../../auth/keys.ts';
import { mintApiKey } from '../../auth/mint.ts';
import { type ApiKeyRecord, findKeyForAuthentication, listKeys, revokeKey } from '../../db/api-keys.ts';
import type { Db } from '../../db/connect.ts';
import { findOrganizationBySlug, type Organization } from '../../db/organizations.ts';
import type { Scope } from '../../domain/scopes.ts';
import { UsageError } from '../errors.ts';
import {
  formatTable,
  parseExpiresAt,
  parseExpiresIn,
  parseName,
  parseScopes,
  parseSlug,
  print,
  SCOPE_CHOICES,
  withDatabase,
} from './support.ts';

async function organization(db: Db, slug: string): Promise<Organization> {
  const org = await findOrganizationBySlug(db, slug);
  if (!org) throw new Error(`no organization with slug "${slug}"`);
  return org;
}

function state(key: ApiKeyRecord, now: string): string {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt && key.expiresAt <= now) return 'expired';
  return 'active';
}

export function register(program: Command): void {
  const keys = program.command('keys').description('Manage API keys.');

  keys
    .command('create')
    .description('Create an API key; the full key is printed once, alone, on the last line.')
    .requiredOption('--org <slug>', 'organization the key belongs to', parseSlug)
    // Not commander's required option: its message for a missing one would not name the scopes.
    .option('--scopes <list>', `required: ${SCOPE_CHOICES}`, parseScopes)
    .option('--name <name>', 'a label to recognise the key by', parseName, 'cli')
    .addOption(
      new Option('--expires-in <duration>', 'lifetime such as 90s, 15m, 12h or 30d')
        .argParser(parseExpiresIn)
        .conflicts('expiresAt'),
    )
    .addOption(new Option('--expires-at <iso>', 'expiry date-time (ISO 8601)').argParser(parseExpiresAt))
    .action(
      async (options: {
        org: string;
        scopes?: Scope[];
        name: string;
        expiresIn?: string;
        expiresAt?: string;
      }) => {
        const { scopes } = options;
        if (!scopes) throw new UsageError(`--scopes is required: ${SCOPE_CHOICES}`);
        const expiresAt = options.expiresIn ?? options.expiresAt ?? null;
        const { org, minted } = await withDatabase(async (db, config) => {
          const org = await organization(db, options.org);
          const minted = await mintApiKey(db, {
            orgId: org.id,
            name: options.name,
            scopes,
            expiresAt,
            pepper: config.keyPepper,
          });
          return { org, minted };
        });
        print(`Created key ${minted.keyId} "${options.name}" for ${options.org}`);
        print(`Scopes: ${scopes.join(', ')}; expires: ${expiresAt ?? 'never'}`);
        if (!org.apiAccess) {
          print(
            `Note: the API access add-on of ${org.slug} is off: this key gets 403 until it is turned on.`,
          );
        }
        print('Copy the key now: it is shown only this once.');
        print(minted.key);
      },
    );

  keys
    .command('list')
    .description("List an organization's keys (never their secrets).")
    .requiredOption('--org <slug>', 'organization', parseSlug)
    .action(async (options: { org: string }) => {
      const all = await withDatabase(async (db) => listKeys(db, (await organization(db, options.org)).id));
      if (all.length === 0) {
        print(
          `No keys for ${options.org}. Create one with: npx sightline keys create --org ${options.org} --scopes all`,
        );
        return;
      }
      const now = new Date().toISOString();
      const dash = (value: string | null) => value ?? '-';
      print(
        formatTable(
          ['ID', 'NAME', 'SCOPES', 'STATUS', 'CREATED', 'LAST USED', 'EXPIRES', 'REVOKED'],
          all.map((k) => [
            k.keyId,
            k.name,
            k.scopes.join(','),
            state(k, now),
            k.createdAt,
            dash(k.lastUsedAt),
            dash(k.expiresAt),
            dash(k.revokedAt),
          ]),
        ),
      );
    });

  keys
    .command('revoke')
    .description('Revoke a key by its identifier (the 8 characters after sl_live_).')
    .argument('<key-id>', 'the key identifier, as shown by keys list (or the whole key)')
    .action(async (given: string) => {
      // The whole key names its identifier too; whatever was given, a secret is never printed back.
      const keyId = parseKey(given)?.keyId ?? given;
      if (!/^[0-9A-Za-z]{8}$/.test(keyId)) {
        // Quoted only while too short to be a secret or much of one (a mistyped identifier).
        throw new UsageError(
          `${keyId.length <= 12 ? `"${keyId}"` : `a value of ${keyId.length} characters`} is not a key identifier: expected the 8 characters after sl_live_`,
        );
      }
      const revokedBefore = await withDatabase(async (db) => {
        const key = await findKeyForAuthentication(db, keyId);
        if (!key) throw new Error(`no API key with identifier ${keyId}`);
        if (key.revokedAt) return key.revokedAt;
        await revokeKey(db, keyId, new Date().toISOString());
        return null;
      });
      print(
        revokedBefore ? `Key ${keyId} was already revoked at ${revokedBefore}.` : `Revoked key ${keyId}.`,
      );
    });
}
