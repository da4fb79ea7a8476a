import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Type } from 'typebox';
import { keyedGet } from '../src/http/endpoint.ts';
import type { App } from '../src/http/types.ts';
import { bearer, createTestContext, type TestContext } from './support/context.ts';
import { insertOrg, mintKey } from './support/fixtures.ts';

// The route toolkit (src/http/endpoint.ts): the order of checks and the query validation happen
// without the handler asking, and a keyed /api route that bypasses the toolkit cannot start.

describe('route toolkit', () => {
  let ctx: TestContext;
  let key: string;
  const handled: string[] = [];

  function addProbe(app: App): void {
    keyedGet(app, '/api/test-probe/items/:item_id/', {
      scope: 'brands:read',
      schema: {
        params: Type.Object({ item_id: Type.Integer() }),
        querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })) }),
      },
      // Only item 1 exists.
      find: async (request) => (request.params.item_id === 1 ? { id: 1 } : undefined),
      // Validates nothing itself: the toolkit must have judged the query before it runs.
      handler: async (request, { caller, found }) => {
        handled.push(request.url);
        return { item: found.id, org: caller.organization.slug };
      },
    });
  }

  before(async () => {
    ctx = await createTestContext({}, { beforeReady: addProbe });
    key = await mintKey(ctx.dbs.primary, await insertOrg(ctx.dbs.primary, 'toolkit'));
  });
  after(() => ctx.close());

  const get = (url: string) => ctx.app.inject({ url, headers: bearer(key) });

  it('hands the handler the caller and the object the path names', async () => {
    const response = await get('/api/test-probe/items/1/?limit=3');
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { item: 1, org: 'toolkit' });
  });

  it('answers 400 in the field shape for a bad query the handler never looked at', async () => {
    const before = handled.length;
    const response = await get('/api/test-probe/items/1/?limit=11');
    assert.equal(response.statusCode, 400);
    assert.deepEqual(response.json(), { limit: ['Ensure this value is less than or equal to 10.'] });
    assert.equal(handled.length, before, 'the handler must not run');
  });

  it('answers 404 for a missing object before judging its query', async () => {
    const response = await get('/api/test-probe/items/2/?limit=zero');
    assert.equal(response.statusCode, 404);
    assert.deepEqual(response.json(), { detail: 'Not found.' });
  });

  it('answers 401 without a key before anything else', async () => {
    const response = await ctx.app.inject({ url: '/api/test-probe/items/2/?limit=zero' });
    assert.equal(response.statusCode, 401);
  });

  it('tells every cache between the service and its caller to keep nothing, answers and refusals alike', async () => {
    // A shared cache may store an answer to a request with X-API-Key (it only holds back for
    // Authorization), and would serve one organization's body to another.
    const answers = [
      await ctx.app.inject({ url: '/api/test-probe/items/1/', headers: { 'x-api-key': key } }),
      await get('/api/test-probe/items/1/'),
      await get('/api/test-probe/items/2/'),
      await ctx.app.inject({ url: '/api/test-probe/items/1/' }),
    ];
    assert.deepEqual(
      answers.map((r) => [r.statusCode, r.headers['cache-control']]),
      [
        [200, 'private, no-store'],
        [200, 'private, no-store'],
        [404, 'private, no-store'],
        [401, 'private, no-store'],
      ],
    );
  });
});

describe('a keyed route declared around the toolkit', () => {
  it('stops the app from starting', async () => {
    await assert.rejects(
      createTestContext(
        {},
        {
          beforeReady: (app) => {
            app.get(
              '/api/test-probe/raw/',
              { config: { access: { scope: 'brands:read' } } },
              async () => ({}),
            );
          },
        },
      ),
      /\/api\/test-probe\/raw\/ is an \/api route not declared through src\/http\/endpoint\.ts/,
    );
  });
});
