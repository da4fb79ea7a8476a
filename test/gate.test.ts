import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, createTestContext, insertOrg, mintKey, type TestContext } from './support/context.ts';

describe('gate smoke', () => {
  let ctx: TestContext;
  let key: string;
  before(async () => {
    ctx = await createTestContext();
    const org = await insertOrg(ctx.dbs, 'acme');
    key = await mintKey(ctx.dbs, org);
  });
  after(() => ctx.close());

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
  it('serves the OpenAPI document without a key', async () => {
    const res = await ctx.app.inject({ url: '/api/openapi.json' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().openapi, '3.1.0');
    const docs = await ctx.app.inject({ url: '/api/docs' });
    assert.ok(docs.statusCode < 400, `docs: ${docs.statusCode}`);
  });
});
