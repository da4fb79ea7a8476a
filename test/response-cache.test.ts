import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { ConfigError, loadConfig } from '../src/config.ts';
import { sqlitePath } from '../src/db/connect.ts';
import { ResponseCache } from '../src/http/response-cache.ts';
import { bearer, createTestContext, type TestContext } from './support/context.ts';
import { BrandFixture, insertOrg, mintKey } from './support/fixtures.ts';

describe('response cache', () => {
  let ctx: TestContext;
  let acmeKey: string;
  let globexKey: string;
  let acmeBrand: number;

  const get = (url: string, key = acmeKey, headers: Record<string, string> = {}) =>
    ctx.app.inject({ url, headers: { ...bearer(key), ...headers } });
  const hits = () => ctx.app.responseCache?.stats().hits ?? Number.NaN;
  const lookups = () => {
    const stats = ctx.app.responseCache?.stats();
    return stats ? stats.hits + stats.misses : Number.NaN;
  };

  /**
   * The same request twice, until the second is answered from the cache. On SQLite the first pair
   * does it; on PostgreSQL the version is the cluster's snapshot, which the other test files'
   * databases move whenever they write, so a pair may straddle a commit.
   */
  async function repeatedUntilKept(url: string, key = acmeKey, headers: Record<string, string> = {}) {
    for (let attempt = 0; attempt < 100; attempt++) {
      const first = await get(url, key, headers);
      const before = hits();
      const second = await get(url, key, headers);
      if (hits() === before + 1) return { first, second };
    }
    assert.fail(`no answer of ${url} was kept`);
  }

  /** A commit made as an import in another process would make it: not through this app at all. */
  function renameElsewhere(brandId: number, name: string): Promise<unknown> {
    if (ctx.dbs.dialect === 'postgres') {
      return sql`update brands set name = ${name} where id = ${brandId}`.execute(ctx.dbs.primary);
    }
    const script = `const { DatabaseSync } = require('node:sqlite');
      const db = new DatabaseSync(process.argv[1], { timeout: 5000 });
      db.prepare('update brands set name = ? where id = ?').run(process.argv[2], Number(process.argv[3]));`;
    const child = spawnSync(
      process.execPath,
      ['-e', script, sqlitePath(ctx.config.databaseUrl), name, String(brandId)],
      { encoding: 'utf8' },
    );
    assert.equal(child.status, 0, child.stderr);
    return Promise.resolve();
  }

  before(async () => {
    ctx = await createTestContext();
    const db = ctx.dbs.primary;
    const acme = await insertOrg(db, 'acme');
    const globex = await insertOrg(db, 'globex');
    acmeKey = await mintKey(db, acme);
    globexKey = await mintKey(db, globex);
    const brand = await BrandFixture.insert(db, acme, { name: 'Acme One' });
    acmeBrand = brand.brandId;
    await BrandFixture.insert(db, acme, { name: 'Acme Two' });
    await BrandFixture.insert(db, globex, { name: 'Globex Only' });
    // A key's first request records its use (a commit, so a new data version); done here, and
    // waited for, so that the tests' requests meet a version that only they change.
    for (const key of [acmeKey, globexKey]) assert.equal((await get('/api/brands/', key)).statusCode, 200);
    for (let i = 0; i < 200; i++) {
      const unused = await db.selectFrom('api_keys').select('id').where('last_used_at', 'is', null).execute();
      if (unused.length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  });
  after(() => ctx.close());

  it('answers a repeated request from the cache, byte for byte and with the same headers', async () => {
    const { first, second } = await repeatedUntilKept('/api/brands/');
    assert.equal(first.statusCode, 200);
    assert.equal(second.statusCode, 200);
    assert.equal(second.body, first.body);
    for (const header of ['content-type', 'content-length', 'vary']) {
      assert.equal(second.headers[header], first.headers[header], header);
    }
    assert.ok(second.headers['x-request-id']);
    assert.notEqual(second.headers['x-request-id'], first.headers['x-request-id']);
    const metrics = await ctx.app.metrics.metrics();
    assert.match(
      metrics,
      new RegExp(`^sightline_response_cache_lookups_total\\{outcome="hit"\\} ${hits()}$`, 'm'),
    );
    assert.match(metrics, /^sightline_response_cache_bytes [1-9]\d*$/m);
  });

  it('serves the new data after a commit made outside the app, then keeps that', async () => {
    const url = `/api/brands/${acmeBrand}/`;
    assert.equal((await repeatedUntilKept(url)).second.json().name, 'Acme One');
    await renameElsewhere(acmeBrand, 'Acme Renamed');
    assert.equal((await get(url)).json().name, 'Acme Renamed');
    assert.equal((await repeatedUntilKept(url)).second.json().name, 'Acme Renamed');
  });

  it("never gives one organization another's kept answer for the same URL", async () => {
    await repeatedUntilKept('/api/brands/');
    const globex = await get('/api/brands/', globexKey);
    assert.deepEqual(
      globex.json().results.map((b: { name: string }) => b.name),
      ['Globex Only'],
    );
    // The other organization's brand by id is still a 404, kept answer or not.
    assert.equal((await get(`/api/brands/${acmeBrand}/`, globexKey)).statusCode, 404);
  });

  it('keeps answers per host, since pagination links carry it', async () => {
    const url = '/api/brands/?page_size=1&sort=name';
    const a = (await repeatedUntilKept(url, acmeKey, { host: 'a.example' })).second;
    const b = await get(url, acmeKey, { host: 'b.example' });
    assert.match(a.json().next, /^http:\/\/a\.example\/api\/brands\/\?/);
    assert.match(b.json().next, /^http:\/\/b\.example\/api\/brands\/\?/);
  });

  it('keeps no error and no CSV answer', async () => {
    const hitsBefore = hits();
    assert.equal((await get('/api/brands/999999/')).statusCode, 404);
    assert.equal((await get('/api/brands/999999/')).statusCode, 404);
    const csv = await get('/api/brands/', acmeKey, { accept: 'text/csv' });
    const again = await get('/api/brands/', acmeKey, { accept: 'text/csv' });
    assert.match(String(csv.headers['content-type']), /^text\/csv/);
    assert.equal(again.body, csv.body);
    assert.equal(hits(), hitsBefore);
    // The JSON answer of the same URL is still JSON.
    assert.match(String((await get('/api/brands/')).headers['content-type']), /^application\/json/);
  });

  it('does not look up answers that depend on the clock (analytics)', async () => {
    const before = lookups();
    assert.equal((await get(`/api/brands/${acmeBrand}/analytics/?range=7d`)).statusCode, 200);
    assert.equal((await get(`/api/brands/${acmeBrand}/score-history/`)).statusCode, 200);
    assert.equal(lookups(), before);
  });
});

describe('ResponseCache', () => {
  const bytes = (n: number) => Buffer.alloc(n, 120);

  it('drops an answer computed under a version that is no longer the current one', () => {
    const cache = new ResponseCache(800);
    const early = cache.lookup('v1', 'k');
    assert.equal(cache.lookup('v2', 'other').hit, undefined);
    cache.store(early, bytes(10));
    assert.equal(cache.lookup('v2', 'k').hit, undefined);
    assert.deepEqual(cache.stats(), { hits: 0, misses: 3, entries: 0, size: 0 });
  });

  it('keeps at most its bytes, dropping the least recently used, and no answer over an eighth', () => {
    // 800 bytes: entries of up to 100 bytes.
    const cache = new ResponseCache(800);
    for (const key of ['a', 'b', 'c', 'd']) cache.store(cache.lookup('v', key), bytes(100));
    cache.store(cache.lookup('v', 'huge'), bytes(101));
    assert.equal(cache.stats().size, 400);
    // Reading a makes b the least recently used; 600 more bytes push out b then c.
    assert.ok(cache.lookup('v', 'a').hit);
    for (const key of ['e', 'f', 'g', 'h', 'i', 'j']) cache.store(cache.lookup('v', key), bytes(100));
    assert.equal(cache.stats().size, 800);
    assert.ok(cache.lookup('v', 'a').hit);
    assert.equal(cache.lookup('v', 'b').hit, undefined);
    assert.equal(cache.lookup('v', 'c').hit, undefined);
    assert.ok(cache.lookup('v', 'd').hit);
    assert.equal(cache.lookup('v', 'huge').hit, undefined);
  });

  it('is sized by RESPONSE_CACHE_MB: 16 MiB by default, 0 for none, a clear error otherwise', () => {
    assert.equal(loadConfig({}).responseCacheBytes, 16 * 1024 * 1024);
    assert.equal(loadConfig({ RESPONSE_CACHE_MB: '0' }).responseCacheBytes, 0);
    assert.throws(() => loadConfig({ RESPONSE_CACHE_MB: 'lots' }), ConfigError);
    assert.throws(() => loadConfig({ RESPONSE_CACHE_MB: '-1' }), ConfigError);
  });
});
