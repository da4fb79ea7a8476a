import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { cachedKeyLookup } from '../src/auth/key-cache.ts';
import { generateKey } from '../src/auth/keys.ts';
import { createTestContext, type TestContext } from './support/context.ts';
import { insertOrg, mintKey } from './support/fixtures.ts';

// The gate's key cache: a revocation takes effect once the kept row is older than the cache's
// time to live, and a key id that did not exist is looked up again next time.

let ctx: TestContext;
let orgId: number;
before(async () => {
  ctx = await createTestContext();
  orgId = await insertOrg(ctx.dbs.primary, 'acme');
});
after(() => ctx?.close());

const idOf = (key: string) => key.split('_')[2] as string;

it('serves a key from memory for its time to live, then sees a revocation', async () => {
  // A clock the test moves, so a slow database read cannot outlast the time to live.
  let now = 1_000_000;
  const find = cachedKeyLookup(ctx.dbs.read, 300, () => now);
  const keyId = idOf(await mintKey(ctx.dbs.primary, orgId));
  assert.equal((await find(keyId))?.revokedAt, null);
  await ctx.dbs.primary
    .updateTable('api_keys')
    .set({ revoked_at: '2026-03-01T00:00:00.000Z' })
    .where('key_id', '=', keyId)
    .execute();
  // Within the time to live: the row read before the revocation.
  now += 299;
  assert.equal((await find(keyId))?.revokedAt, null);
  now += 1;
  assert.equal((await find(keyId))?.revokedAt, '2026-03-01T00:00:00.000Z');
});

it('does not remember that a key id was unknown', async () => {
  const find = cachedKeyLookup(ctx.dbs.read, 60_000);
  const { keyId } = generateKey();
  assert.equal(await find(keyId), undefined);
  const minted = await mintKey(ctx.dbs.primary, orgId);
  await ctx.dbs.primary
    .updateTable('api_keys')
    .set({ key_id: keyId })
    .where('key_id', '=', idOf(minted))
    .execute();
  assert.equal((await find(keyId))?.keyId, keyId);
});
