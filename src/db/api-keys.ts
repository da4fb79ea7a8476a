import type { Selectable } from 'kysely';
import type { Scope } from '../domain/scopes.ts';
import type { Db } from './connect.ts';
import type { Organization, Plan } from './organizations.ts';
import { executeShaped } from './shaped.ts';
import { inTransaction } from './transaction.ts';
import type { ApiKeysTable } from './types.ts';

export interface ApiKeyRecord {
  id: number;
  orgId: number;
  keyId: string;
  name: string;
  scopes: Scope[];
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
}

/** A key with the hash needed to verify it and the organization it is pinned to. */
export interface KeyForAuthentication extends ApiKeyRecord {
  secretHash: string;
  organization: Organization;
}

// The columns behind an ApiKeyRecord; the authentication lookup reads them next to the hash.
const KEY_COLUMNS = [
  'id',
  'org_id',
  'key_id',
  'name',
  'scopes',
  'created_at',
  'last_used_at',
  'expires_at',
  'revoked_at',
] as const;

type KeyRow = Pick<Selectable<ApiKeysTable>, (typeof KEY_COLUMNS)[number]>;

function toKeyRecord(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    orgId: row.org_id,
    keyId: row.key_id,
    name: row.name,
    scopes: row.scopes.split(' ').filter(Boolean) as Scope[],
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
  };
}

export async function findKeyForAuthentication(
  db: Db,
  keyId: string,
): Promise<KeyForAuthentication | undefined> {
  const { rows } = await executeShaped(
    db,
    'findKeyForAuthentication',
    { keyId },
    ({ keyId }) =>
      db
        .selectFrom('api_keys as k')
        .innerJoin('organizations as o', 'o.id', 'k.org_id')
        .select(KEY_COLUMNS.map((column) => `k.${column}` as const))
        .select([
          'k.secret_hash',
          'o.slug as org_slug',
          'o.name as org_name',
          'o.plan as org_plan',
          'o.api_access as org_api_access',
          'o.timezone as org_timezone',
          'o.free_report_used as org_free_report_used',
          'o.created_at as org_created_at',
        ])
        .where('k.key_id', '=', keyId),
    { lookup: true },
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    ...toKeyRecord(row),
    secretHash: row.secret_hash,
    organization: {
      id: row.org_id,
      slug: row.org_slug,
      name: row.org_name,
      plan: row.org_plan as Plan,
      apiAccess: row.org_api_access === 1,
      timezone: row.org_timezone,
      freeReportUsed: row.org_free_report_used === 1,
      createdAt: row.org_created_at,
    },
  };
}

export async function insertKey(
  db: Db,
  input: {
    orgId: number;
    keyId: string;
    name: string;
    secretHash: string;
    scopes: readonly Scope[];
    createdByUserId: number | null;
    expiresAt: string | null;
  },
): Promise<void> {
  await db
    .insertInto('api_keys')
    .values({
      org_id: input.orgId,
      key_id: input.keyId,
      name: input.name,
      secret_hash: input.secretHash,
      scopes: input.scopes.join(' '),
      created_by_user_id: input.createdByUserId,
      created_at: new Date().toISOString(),
      last_used_at: null,
      expires_at: input.expiresAt,
      revoked_at: null,
    })
    .execute();
}

export async function listKeys(db: Db, orgId: number): Promise<ApiKeyRecord[]> {
  const rows = await db
    .selectFrom('api_keys')
    .select(KEY_COLUMNS)
    .where('org_id', '=', orgId)
    .orderBy('id')
    .execute();
  return rows.map(toKeyRecord);
}

/** Revokes a key by its identifier segment; false when no such key exists. */
export async function revokeKey(db: Db, keyId: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('key_id', '=', keyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (result.numUpdatedRows > 0n) return true;
  const existing = await db
    .selectFrom('api_keys')
    .select('id')
    .where('key_id', '=', keyId)
    .executeTakeFirst();
  return existing !== undefined;
}

/** Sets keys' last-used times, all in one transaction: one commit however many keys. */
export async function touchKeysLastUsed(
  db: Db,
  uses: readonly (readonly [id: number, at: string])[],
): Promise<void> {
  await inTransaction(db, async (trx) => {
    for (const [id, at] of uses) {
      await trx.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
    }
  });
}
