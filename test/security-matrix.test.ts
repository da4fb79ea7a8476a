import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { generateKey, hashSecret } from '../src/auth/keys.ts';
import type { Scope } from '../src/domain/scopes.ts';
import { bearer } from './support/context.ts';
import { allScopesBut, createDemoContext, type DemoContext } from './support/demo.ts';
import { ENDPOINTS, type Endpoint, label, pathFor, urlFor, validQuery } from './support/endpoints.ts';

// Every keyed endpoint against every way a caller can be refused (decisions.md, order of checks),
// plus the service-wide rules: read-only methods, areas closed to keys, unknown paths, trailing
// slashes, the plan gate and the public demo brand.

let demo: DemoContext;
/** Keys that must be refused, minted once for the whole file. */
const refusedKeys = {} as {
  unknown: string;
  wrongSecret: string;
  badChecksum: string;
  revoked: string;
  expired: string;
  missing: Record<Scope, string>;
};

before(async () => {
  demo = await createDemoContext();
  const { ctx, keys, mint } = demo;
  // Valid shape and checksum, but no such key id.
  refusedKeys.unknown = generateKey().key;
  // A real key id whose stored hash belongs to another secret.
  refusedKeys.wrongSecret = await mint('acme');
  const keyId = refusedKeys.wrongSecret.split('_')[2] as string;
  await ctx.dbs.primary
    .updateTable('api_keys')
    .set({ secret_hash: hashSecret(generateKey().secret, ctx.config.keyPepper) })
    .where('key_id', '=', keyId)
    .execute();
  // One character changed at the end: the checksum no longer matches.
  const last = keys.acme.slice(-1);
  refusedKeys.badChecksum = keys.acme.slice(0, -1) + (last === 'A' ? 'B' : 'A');
  refusedKeys.revoked = await mint('acme', { revokedAt: '2026-01-01T00:00:00.000Z' });
  refusedKeys.expired = await mint('acme', { expiresAt: '2020-01-01T00:00:00.000Z' });
  refusedKeys.missing = {
    'brands:read': await mint('acme', { scopes: allScopesBut('brands:read') }),
    'runs:read': await mint('acme', { scopes: allScopesBut('runs:read') }),
    'reports:read': await mint('acme', { scopes: allScopesBut('reports:read') }),
  };
});
after(() => demo?.ctx.close());

function get(url: string, headers: Record<string, string> = {}) {
  return demo.ctx.app.inject({ method: 'GET', url, headers });
}

/** A 401 with the challenge header and a `{detail}` body matching `why`. */
function assertUnauthenticated(res: LightMyRequestResponse, why: RegExp): void {
  assert.equal(res.statusCode, 401, res.body);
  assert.match(String(res.headers['www-authenticate']), /^Bearer/);
  const body = res.json();
  assert.deepEqual(Object.keys(body), ['detail']);
  assert.match(body.detail, why);
}

function assertDenied(res: LightMyRequestResponse, why: RegExp): void {
  assert.equal(res.statusCode, 403, res.body);
  const body = res.json();
  assert.deepEqual(Object.keys(body), ['detail']);
  assert.match(body.detail, why);
}

function assertNotFound(res: LightMyRequestResponse): void {
  assert.equal(res.statusCode, 404, res.body);
  assert.deepEqual(res.json(), { detail: 'Not found.' });
}

function assertOk(endpoint: Endpoint, res: LightMyRequestResponse): void {
  assert.equal(res.statusCode, 200, res.body.slice(0, 500));
  assert.equal(res.headers['ratelimit-policy'], `"default";q=${demo.ctx.config.rateLimitPerMinute};w=60`);
  assert.match(String(res.headers.ratelimit), /^"default";r=\d+;t=\d+$/);
  if (endpoint.download) {
    assert.match(String(res.headers['content-disposition']), /^attachment; filename=/);
  } else {
    assert.match(String(res.headers['content-type']), /^application\/json/);
  }
}

const hasIds = (endpoint: Endpoint) => endpoint.path.includes('{');

for (const endpoint of ENDPOINTS) {
  describe(label(endpoint), () => {
    const url = () => urlFor(endpoint, demo.fixtures);

    it('200 for a key of the owning organization, in either header', async () => {
      assertOk(endpoint, await get(url(), bearer(demo.keys.acme)));
      assertOk(endpoint, await get(url(), { 'x-api-key': demo.keys.acme }));
    });

    it('treats the trailing slash as optional', async () => {
      const path = pathFor(endpoint, demo.fixtures);
      const other = path.endsWith('/') ? path.slice(0, -1) : `${path}/`;
      const query = validQuery(endpoint, demo.fixtures);
      const res = await get(query ? `${other}?${query}` : other, bearer(demo.keys.acme));
      assert.equal(res.statusCode, 200, `${other}: ${res.statusCode} ${res.body.slice(0, 200)}`);
    });

    it('refuses write methods: 403 with a valid key, 401 without', async () => {
      const url = pathFor(endpoint, demo.fixtures);
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
        const keyed = await demo.ctx.app.inject({
          method,
          url,
          headers: bearer(demo.keys.acme),
          payload: {},
        });
        assertDenied(keyed, /read-only/);
        const anonymous = await demo.ctx.app.inject({ method, url, payload: {} });
        assertUnauthenticated(anonymous, /credentials were not provided/);
      }
    });

    it('401 without a key', async () => {
      // The demo brand's category list is public; any other brand's is not.
      const target = endpoint.anonymousForDemoBrand
        ? pathFor(endpoint, demo.fixtures, { brand_id: demo.fixtures.plainBrandId })
        : url();
      assertUnauthenticated(await get(target), /credentials were not provided/);
    });

    it('401 for a malformed key', async () => {
      assertUnauthenticated(await get(url(), bearer('sl_live_not-a-key')), /Invalid API key/);
      assertUnauthenticated(await get(url(), { 'x-api-key': 'hello' }), /Invalid API key/);
    });

    it('401 for a well-formed key that does not exist', async () => {
      assertUnauthenticated(await get(url(), bearer(refusedKeys.unknown)), /Invalid API key/);
    });

    it('401 for a known key id with the wrong secret', async () => {
      assertUnauthenticated(await get(url(), bearer(refusedKeys.wrongSecret)), /Invalid API key/);
    });

    it('401 for a bad checksum', async () => {
      assertUnauthenticated(await get(url(), bearer(refusedKeys.badChecksum)), /Invalid API key/);
    });

    it('401 for a revoked key', async () => {
      assertUnauthenticated(await get(url(), bearer(refusedKeys.revoked)), /revoked/);
    });

    it('401 for an expired key', async () => {
      assertUnauthenticated(await get(url(), bearer(refusedKeys.expired)), /expired/);
    });

    it('401 when both headers are sent', async () => {
      const headers = { ...bearer(demo.keys.acme), 'x-api-key': demo.keys.acme };
      assertUnauthenticated(await get(url(), headers), /one header/);
    });

    it(`403 naming ${endpoint.scope} for a key without it`, async () => {
      const res = await get(url(), bearer(refusedKeys.missing[endpoint.scope]));
      assertDenied(res, new RegExp(`scope: ${endpoint.scope}`));
    });

    it('403 when the organization lacks the API add-on (initech)', async () => {
      assertDenied(await get(url(), bearer(demo.keys.initech)), /API access is a paid add-on/);
    });

    if (hasIds(endpoint)) {
      it("404 for another organization's key (globex on acme's ids)", async () => {
        assertNotFound(await get(url(), bearer(demo.keys.globex)));
      });

      it('404 for another organization even with an invalid query string', async () => {
        const query = endpoint.invalidQuery ?? 'page=0&range=13d';
        const res = await get(urlFor(endpoint, demo.fixtures, query), bearer(demo.keys.globex));
        assertNotFound(res);
        if (endpoint.invalidQuery !== undefined) {
          // The same query is a 400 for the owner: the 404 above is not an accident of the query.
          assert.equal(
            (await get(urlFor(endpoint, demo.fixtures, query), bearer(demo.keys.acme))).statusCode,
            400,
          );
        }
      });
    } else {
      it("lists only the caller's organization (globex never sees acme's brands)", async () => {
        const res = await get('/api/brands/?page_size=100&archived=true', bearer(demo.keys.globex));
        assert.equal(res.statusCode, 200);
        const ids: string[] = res.json().results.map((b: { id: string }) => b.id);
        assert.deepEqual(ids.sort(), demo.brandIds.globex.map(String).sort());
        for (const acmeBrand of demo.brandIds.acme) assert.ok(!ids.includes(String(acmeBrand)));
      });
    }
  });
}

describe('service-wide rules', () => {
  it('refuses creating categories even on the public demo brand', async () => {
    const url = `/api/brands/${demo.fixtures.brandId}/categories/`;
    const anonymous = await demo.ctx.app.inject({ method: 'POST', url, payload: { name: 'x' } });
    assertUnauthenticated(anonymous, /credentials were not provided/);
  });

  it('keeps /api/v2/, billing, notification, organization and forum areas closed to keys', async () => {
    const closed = [
      '/api/v2/',
      `/api/v2/brands/${demo.fixtures.brandId}/analytics/`,
      '/api/billing/',
      '/api/billing/invoices/',
      '/api/notifications/',
      '/api/notification/settings/',
      `/api/organizations/${demo.orgIds.acme}/`,
      '/api/orgs/',
      '/api/forum/threads/',
      '/api/forums/',
      '/api/social/forum/',
    ];
    for (const url of closed) {
      assertDenied(await get(url, bearer(demo.keys.acme)), /not available to API keys/);
      assertUnauthenticated(await get(url), /credentials were not provided/);
    }
  });

  it('answers 404 {"detail":"Not found."} for unknown paths', async () => {
    const unknown = [
      '/api/',
      '/api/nothing-here/',
      '/api/brandsx/',
      `/api/brands/${demo.fixtures.brandId}/nothing/`,
      `/api/runs/${demo.fixtures.runId}/status/extra/`,
      '/not-api/',
    ];
    for (const url of unknown) assertNotFound(await get(url, bearer(demo.keys.acme)));
  });

  it('403 naming the plan for recommendations on starter (umbrella) and free (hooli)', async () => {
    const url = `/api/brands/${demo.fixtures.brandId}/recommendations/`;
    assertDenied(await get(url, bearer(demo.keys.umbrella)), /pro plan or higher.*starter/);
    assertDenied(await get(url, bearer(demo.keys.hooli)), /pro plan or higher.*free/);
  });

  it("answers the demo brand's category list without a key, and only that brand's", async () => {
    const demoCategories = await get(`/api/brands/${demo.fixtures.brandId}/categories/`);
    assert.equal(demoCategories.statusCode, 200, demoCategories.body);
    assert.ok(demoCategories.json().results.length > 0);

    assertUnauthenticated(
      await get(`/api/brands/${demo.fixtures.plainBrandId}/categories/`),
      /credentials were not provided/,
    );
    const globexBrand = demo.brandIds.globex[0];
    assertUnauthenticated(
      await get(`/api/brands/${globexBrand}/categories/`),
      /credentials were not provided/,
    );
    // The exception is for anonymous callers only: a key brings the normal rules back.
    assertUnauthenticated(
      await get(`/api/brands/${demo.fixtures.brandId}/categories/`, bearer('sl_live_bad')),
      /Invalid API key/,
    );
    assertNotFound(await get(`/api/brands/${demo.fixtures.brandId}/categories/`, bearer(demo.keys.globex)));
    // Nothing else about the demo brand is public.
    assertUnauthenticated(
      await get(`/api/brands/${demo.fixtures.brandId}/`),
      /credentials were not provided/,
    );
  });
});
