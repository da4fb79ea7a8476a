import { insertKey } from '../db/api-keys.ts';
import type { Db } from '../db/connect.ts';
import type { Scope } from '../domain/scopes.ts';
import { generateKey, hashSecret } from './keys.ts';

export interface MintedKey {
  /** The full key: shown to its owner once, never stored. */
  key: string;
  keyId: string;
}

/** Creates an API key for an organization; only the hash of its secret is kept. */
export async function mintApiKey(
  db: Db,
  input: {
    orgId: number;
    name: string;
    scopes: readonly Scope[];
    expiresAt: string | null;
    pepper: string | undefined;
    createdByUserId?: number | null;
  },
): Promise<MintedKey> {
  const { key, keyId, secret } = generateKey();
  await insertKey(db, {
    orgId: input.orgId,
    keyId,
    name: input.name,
    secretHash: hashSecret(secret, input.pepper),
    scopes: input.scopes,
    createdByUserId: input.createdByUserId ?? null,
    expiresAt: input.expiresAt,
  });
  return { key, keyId };
}
