import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { crc32 } from 'node:zlib';
import { buildApp } from '../src/app.ts';
import { generateKey } from '../src/auth/keys.ts';
import { keyedGet } from '../src/http/endpoint.ts';
import type { App } from '../src/http/types.ts';
import { bearer, createTestContext, type TestContext } from './support/context.ts';
import { insertOrg, mintKey } from './support/fixtures.ts';
import { rawGet } from './support/raw-http.ts';

// The gate's order of checks (decisions.md): when a request fails several checks at once, the
// first in the order answers. Each test combines two failures and expects the earlier one.
// Probe routes keep this independent of the real endpoints.

const LIMIT = 3;

function addProbeRoutes(app: App): void {
  const handler = async () => ({ ok: true });
  keyedGet(app, '/api/test-probe/brands/', { scope: 'brands:read', schema: {}, handler });
  keyedGet(app, '/api/test-probe/pro/', { scope: 'brands:read', minimumPlan: 'pro', schema: {}, handler });
  keyedGet(app, '/api/test-probe/items/:item_id/', {
    scope: 'brands:read',
    schema: {},
    // Stands for any lookup: only item 1 exists.
    find: async (request) => ((request.params as { item_id: string }).item_id === '1' ? {} : undefined),
    handler,
  });
}

describe('gate smoke', () => {
  let ctx: TestContext;
  let key: string;
  before(async () => {
    ctx = await createTestContext();
    const org = await insertOrg(ctx.dbs.primary, 'acme');
    key = await mintKey(ctx.dbs.primary, org);
  });
  after(() => ctx?.close());

  it('401 without a key', async () => {
    const res = await ctx.app.inject({ url: '/api/brands/' });
    assert.equal(res.statusCode, 401);
    assert.ok(res.json().detail);
  });
  it('403 on POST with a valid key, 404 on unknown path', async () => {
    const post = await ctx.app.inject({ method: 'POST', url: '/api/brands/', headers: bearer(key) });
    assert.equal(post.statusCode, 403);
    const unknown = await ctx.app.inject({ url: '/api/nothing-here/', headers: bearer(key) });
    assert.equal(unknown.statusCode, 404);
    assert.deepEqual(unknown.json(), { detail: 'Not found.' });
  });
  it('refuses another secret under a key id whose secret was just accepted, and still takes the right one', async () => {
    // The format of decisions.md, built here: the prefix and id, a secret, then the base62 CRC32 of
    // all that. Checked on a generated key first, so that the forgeries below pass the checksum
    // and reach the secret's comparison.
    const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    const withSecret = (of: string, secret: string) => {
      const body = of.slice(0, 'sl_live_'.length + 9) + secret;
      let n = crc32(body);
      let check = '';
      for (let i = 0; i < 6; i++, n = Math.floor(n / 62)) check = BASE62[n % 62] + check;
      return body + check;
    };
    const generated = generateKey();
    assert.equal(withSecret(generated.key, generated.secret.slice(0, -6)), generated.key);

    const secret = key.slice('sl_live_'.length + 9, -6);
    const forgeries = [
      withSecret(key, `${secret.slice(0, -1)}${secret.endsWith('a') ? 'b' : 'a'}`),
      withSecret(key, `${secret}a`),
      withSecret(key, generated.secret.slice(0, -6)),
    ];
    const get = (presented: string) => ctx.app.inject({ url: '/api/brands/', headers: bearer(presented) });
    assert.equal((await get(key)).statusCode, 200);
    for (const forged of forgeries) {
      const res = await get(forged);
      assert.equal(res.statusCode, 401, forged);
      assert.deepEqual(res.json(), { detail: 'Invalid API key.' });
      assert.equal((await get(key)).statusCode, 200);
    }
  });
  it('serves the OpenAPI document without a key', async () => {
    const res = await ctx.app.inject({ url: '/api/openapi.json' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().openapi, '3.1.0');
    const docs = await ctx.app.inject({ url: '/api/docs' });
    assert.ok(docs.statusCode < 400, `docs: ${docs.statusCode}`);
  });
});

describe('order of checks', () => {
  let ctx: TestContext;
  const keys: Record<string, string> = {};
  const call = (key: string | undefined, url: string, method: 'GET' | 'POST' | 'HEAD' = 'GET') =>
    ctx.app.inject({ method, url, headers: key ? bearer(key) : {} });

  before(async () => {
    ctx = await createTestContext({ rateLimitPerMinute: LIMIT }, { beforeReady: addProbeRoutes });
    const acme = await insertOrg(ctx.dbs.primary, 'acme');
    const initech = await insertOrg(ctx.dbs.primary, 'initech', { apiAccess: false });
    const umbrella = await insertOrg(ctx.dbs.primary, 'umbrella', { plan: 'starter' });
    keys.acme = await mintKey(ctx.dbs.primary, acme);
    keys.acmeLastUsed = await mintKey(ctx.dbs.primary, acme);
    keys.acmeRunsOnly = await mintKey(ctx.dbs.primary, acme, { scopes: ['runs:read'] });
    keys.initechRunsOnly = await mintKey(ctx.dbs.primary, initech, { scopes: ['runs:read'] });
    keys.umbrella = await mintKey(ctx.dbs.primary, umbrella);
    keys.umbrellaRunsOnly = await mintKey(ctx.dbs.primary, umbrella, { scopes: ['runs:read'] });
    keys.revokedAndExpired = await mintKey(ctx.dbs.primary, acme, {
      revokedAt: '2026-01-01T00:00:00.000Z',
      expiresAt: '2020-01-01T00:00:00.000Z',
    });
  });
  after(() => ctx?.close());

  it('authentication before method: a write with a bad key is 401', async () => {
    const res = await call('sl_live_nope', '/api/test-probe/brands/', 'POST');
    assert.equal(res.statusCode, 401);
    assert.match(res.json().detail, /Invalid API key/);
  });

  it('revocation is reported before expiry', async () => {
    const res = await call(keys.revokedAndExpired, '/api/test-probe/brands/');
    assert.equal(res.statusCode, 401);
    assert.match(res.json().detail, /revoked/);
  });

  it('method and closed areas before the add-on', async () => {
    const write = await call(keys.initechRunsOnly, '/api/test-probe/brands/', 'POST');
    assert.equal(write.statusCode, 403);
    assert.match(write.json().detail, /read-only/);
    const v2 = await call(keys.initechRunsOnly, '/api/v2/brands/');
    assert.equal(v2.statusCode, 403);
    assert.match(v2.json().detail, /not available to API keys/);
  });

  it('add-on before scope', async () => {
    const res = await call(keys.initechRunsOnly, '/api/test-probe/brands/');
    assert.equal(res.statusCode, 403);
    assert.match(res.json().detail, /API access is a paid add-on/);
  });

  it('scope before plan', async () => {
    const res = await call(keys.umbrellaRunsOnly, '/api/test-probe/pro/');
    assert.equal(res.statusCode, 403);
    assert.match(res.json().detail, /scope: brands:read/);
  });

  it('plan before the rate limit, and the rate limit before the lookup', async () => {
    const key = keys.umbrella as string;
    for (let i = 0; i < LIMIT; i++)
      assert.equal((await call(key, '/api/test-probe/brands/')).statusCode, 200);
    // The quota is spent: a plan refusal still answers 403 (and spends nothing)...
    const plan = await call(key, '/api/test-probe/pro/');
    assert.equal(plan.statusCode, 403);
    assert.match(plan.json().detail, /requires the pro plan or higher; the organization is on starter/);
    // ...while an absent object is not looked up at all: the caller is throttled first.
    assert.equal((await call(key, '/api/test-probe/items/999/')).statusCode, 429);
  });

  it('lets HEAD through like GET', async () => {
    const res = await call(keys.acme, '/api/test-probe/brands/', 'HEAD');
    assert.equal(res.statusCode, 200);
  });

  it('records last use at most once a minute, not on every request', async () => {
    const key = keys.acmeLastUsed as string;
    const keyId = key.split('_')[2] as string;
    const lastUsed = async () =>
      (
        await ctx.dbs.primary
          .selectFrom('api_keys')
          .select('last_used_at')
          .where('key_id', '=', keyId)
          .executeTakeFirstOrThrow()
      ).last_used_at;

    assert.equal(await lastUsed(), null);
    assert.equal((await call(key, '/api/test-probe/brands/')).statusCode, 200);
    // The write is fire-and-forget after the answer: give it a moment.
    let first: string | null = null;
    for (let i = 0; i < 50 && first === null; i++) {
      await sleep(20);
      first = await lastUsed();
    }
    assert.ok(first, 'last_used_at was recorded');
    await sleep(5);
    assert.equal((await call(key, '/api/test-probe/brands/')).statusCode, 200);
    await sleep(100);
    assert.equal(await lastUsed(), first, 'a second use within the minute writes nothing');
  });

  it("writes a used key's later uses together, its latest, when the interval ends or the app closes", async () => {
    // Every commit empties the caches, so these wait for one write for all keys (auth/last-use.ts).
    const db = ctx.dbs.primary;
    const org = await insertOrg(db, 'last-use');
    const used = [await mintKey(db, org), await mintKey(db, org)];
    const ids = used.map((key) => key.split('_')[2] as string);
    const before = '2026-01-01T00:00:00.000Z';
    await db.updateTable('api_keys').set({ last_used_at: before }).where('key_id', 'in', ids).execute();
    const lastUsed = async () =>
      (
        await db
          .selectFrom('api_keys')
          .select('last_used_at')
          .where('key_id', 'in', ids)
          .orderBy('id')
          .execute()
      ).map((row) => row.last_used_at);

    const app = await buildApp(ctx.config, { databases: ctx.dbs, logger: false });
    const use = async () => {
      for (const key of used) {
        assert.equal((await app.inject({ url: '/api/brands/', headers: bearer(key) })).statusCode, 200);
      }
    };
    await use();
    await sleep(5);
    const secondUses = new Date().toISOString();
    await use();
    const lastRequest = new Date().toISOString();
    await sleep(100);
    assert.deepEqual(await lastUsed(), [before, before], 'nothing written per use');

    await app.close();
    const written = await lastUsed();
    for (const at of written) {
      assert.ok(at !== null && at >= secondUses && at <= lastRequest, `${at} is the key's second use`);
    }
  });
});

describe('exactly one credential header', () => {
  let ctx: TestContext;
  let port: number;
  let key: string;
  before(async () => {
    ctx = await createTestContext({}, { beforeReady: addProbeRoutes });
    key = await mintKey(ctx.dbs.primary, await insertOrg(ctx.dbs.primary, 'acme'));
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    port = (ctx.app.server.address() as AddressInfo).port;
  });
  after(() => ctx?.close());

  // Sent over a raw socket: Node's client and `inject` merge or refuse repeated headers.
  it('two of either header, or one of each, are a 401 whatever their values and spelling', async () => {
    const other = await mintKey(ctx.dbs.primary, await insertOrg(ctx.dbs.primary, 'globex'));
    const variants: Array<Array<[string, string]>> = [
      [
        ['Authorization', `Bearer ${key}`],
        ['Authorization', `Bearer ${key}`],
      ],
      [
        ['Authorization', 'Bearer sl_live_nope'],
        ['Authorization', `Bearer ${key}`],
      ],
      [
        ['Authorization', `Bearer ${key}`],
        ['authorization', 'Bearer garbage'],
      ],
      [
        ['Authorization', `Bearer ${key}`],
        ['AUTHORIZATION', `Bearer ${other}`],
      ],
      [
        ['X-API-Key', key],
        ['X-API-Key', key],
      ],
      [
        ['X-Api-Key', key],
        ['x-api-key', other],
      ],
      [
        ['X-API-Key', key],
        ['Authorization', `Bearer ${key}`],
      ],
      [
        ['Authorization', ''],
        ['X-API-Key', key],
      ],
      [
        ['X-API-Key', key],
        ['X-API-Key', key],
        ['Authorization', `Bearer ${key}`],
      ],
    ];
    for (const headers of variants) {
      const res = await rawGet(port, '/api/test-probe/brands/', headers);
      const label = JSON.stringify(headers.map(([name]) => name));
      assert.equal(res.statusCode, 401, `${label}: ${res.body}`);
      assert.deepEqual(JSON.parse(res.body), {
        detail: 'Send the API key in exactly one header: Authorization or X-API-Key, once.',
      });
      assert.equal(res.headers['www-authenticate'], 'Bearer realm="api"');
      assert.equal(res.headers.ratelimit, undefined, `${label}: no key's quota is spent`);
    }
    for (const header of [['Authorization', `Bearer ${key}`] as const, ['X-API-Key', key] as const]) {
      assert.equal((await rawGet(port, '/api/test-probe/brands/', [header])).statusCode, 200, header[0]);
    }
  });
});
