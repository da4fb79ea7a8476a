import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { bearer, createTestContext } from './support/context.ts';
import { createDemoContext, type DemoContext } from './support/demo.ts';
import { ENDPOINTS, type Endpoint, label, urlFor } from './support/endpoints.ts';
import { insertOrg, mintKey } from './support/fixtures.ts';

// The OpenAPI document is the contract a client generates code from: it must list every endpoint,
// and what the service really sends must match what it documents, field for field.

type Json = Record<string, unknown>;
interface Operation {
  responses: Record<
    string,
    { content?: Record<string, { schema?: Json }>; headers?: Record<string, { $ref: string }> }
  >;
  parameters?: Array<{ in: string; name: string; schema?: { enum?: unknown[]; minimum?: number } }>;
  security?: Json[];
}
interface OpenApiDoc {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components?: Json;
}

let demo: DemoContext;
let doc: OpenApiDoc;
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);

before(async () => {
  demo = await createDemoContext();
  const res = await demo.ctx.app.inject({ url: '/api/openapi.json' });
  assert.equal(res.statusCode, 200);
  doc = res.json();
});
after(() => demo?.ctx.close());

/** Paths compare without parameter names or the optional trailing slash. */
const shape = (path: string) => path.replace(/\{[^}]+\}/g, '{}').replace(/\/$/, '');

function operationOf(endpoint: Endpoint): Operation | undefined {
  const entry = Object.entries(doc.paths).find(([path]) => shape(path) === shape(endpoint.path));
  return entry?.[1].get;
}

/**
 * Closes every object schema that lists its properties, so an undocumented field in a response
 * fails validation. `unevaluatedProperties` sees through anyOf/oneOf/$ref; the parts of an allOf
 * are left open because each part evaluates only its own properties.
 */
function closeObjects(schema: unknown, insideAllOf = false): unknown {
  if (Array.isArray(schema)) return schema.map((s) => closeObjects(s, insideAllOf));
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema as Json)) {
    // Ids would collide across the many schemas compiled from one document; refs are local anyway.
    if (key === '$id') continue;
    if (key === 'allOf') out[key] = (value as unknown[]).map((s) => closeObjects(s, true));
    else if (key === 'properties' || key === '$defs' || key === 'schemas') {
      out[key] = Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, closeObjects(v)]));
    } else if (typeof value === 'object') out[key] = closeObjects(value);
    else out[key] = value;
  }
  const open = 'additionalProperties' in out || 'unevaluatedProperties' in out || insideAllOf;
  if (out.properties && Object.keys(out.properties as Json).length > 0 && !open)
    out.unevaluatedProperties = false;
  return out;
}

/** Validation errors of a body against the schema documented for one status (null when valid). */
function schemaErrors(
  endpoint: Endpoint,
  status: number,
  contentType: string,
  body: unknown,
): ErrorObject[] | null {
  const operation = operationOf(endpoint);
  assert.ok(operation, `${endpoint.path} is documented`);
  const response = operation.responses[String(status)];
  assert.ok(response, `${endpoint.path} documents ${status}`);
  const schema = response.content?.[contentType]?.schema;
  assert.ok(schema, `${endpoint.path} documents a ${contentType} schema for ${status}`);
  // Refs point at #/components/...: carrying the components along lets them resolve locally.
  const validate = ajv.compile({
    ...(closeObjects(schema) as Json),
    components: closeObjects(doc.components),
  });
  return validate(body) ? null : (validate.errors ?? []);
}

function assertDocumented(endpoint: Endpoint, status: number, contentType: string, body: unknown): void {
  const errors = schemaErrors(endpoint, status, contentType, body);
  assert.equal(
    errors,
    null,
    `${status} body of ${endpoint.path} does not match its schema:\n${JSON.stringify(errors?.slice(0, 10), null, 1)}`,
  );
}

// The framing of any HTTP answer, not the API's own headers.
const FRAMING = new Set([
  'content-type',
  'content-length',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
]);

/** Every header a real answer sent is declared for its status, and every required one was sent. */
function assertHeadersDocumented(endpoint: Endpoint, status: number, headers: Record<string, unknown>): void {
  const declared = operationOf(endpoint)?.responses[String(status)]?.headers ?? {};
  const names = Object.keys(declared).map((name) => name.toLowerCase());
  const sent = Object.keys(headers).filter((name) => !FRAMING.has(name));
  assert.deepEqual(
    sent.filter((name) => !names.includes(name)),
    [],
    `${status} of ${endpoint.path} sends headers its document does not declare`,
  );
  const components = (doc.components as { headers: Record<string, { required?: boolean }> }).headers;
  for (const [name, { $ref }] of Object.entries(declared)) {
    const required = components[$ref.replace('#/components/headers/', '')]?.required === true;
    if (required) assert.ok(name.toLowerCase() in headers, `${status} of ${endpoint.path} lacks ${name}`);
  }
}

const endpointAt = (path: string) => ENDPOINTS.find((e) => e.path === path) as Endpoint;

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1, served without a key', async () => {
    assert.match(doc.openapi, /^3\.1\./);
    assert.ok(doc.info.title && doc.info.version);
  });

  it('documents every endpoint with its error responses and path parameters', () => {
    for (const endpoint of ENDPOINTS) {
      const operation = operationOf(endpoint);
      assert.ok(operation, `${label(endpoint)} is missing from the document`);
      for (const status of ['200', '401', '403', '404', '429']) {
        assert.ok(operation.responses[status], `${label(endpoint)} documents ${status}`);
      }
      const pathParams = (operation.parameters ?? []).filter((p) => p.in === 'path').length;
      assert.equal(pathParams, endpoint.path.split('{').length - 1, `${label(endpoint)} path parameters`);
    }
  });

  it('documents no keyed GET endpoint that the test table lacks', () => {
    const known = new Set(ENDPOINTS.map((e) => shape(e.path)));
    const extra = Object.entries(doc.paths)
      .filter(([path, ops]) => path.startsWith('/api/') && ops.get && !path.startsWith('/api/docs'))
      .map(([path]) => path)
      .filter((path) => !known.has(shape(path)));
    assert.deepEqual(extra, [], 'add these to test/support/endpoints.ts');
  });

  it('says that the category list alone may be read without a key (the public demo brand)', () => {
    const anonymous = Object.entries(doc.paths)
      .filter(([, ops]) => ops.get?.security?.some((requirement) => Object.keys(requirement).length === 0))
      .map(([path]) => path);
    assert.deepEqual(anonymous, ['/api/brands/{brand_id}/categories/']);
    assert.deepEqual(
      doc.paths['/api/brands/{brand_id}/']?.get?.security,
      undefined,
      'the document-wide keys',
    );
  });

  it('names the window choices and the least limit, so a client is typed by them', () => {
    const parameter = (path: string, name: string) =>
      (operationOf(endpointAt(path))?.parameters ?? []).find((p) => p.name === name)?.schema;
    for (const path of [
      '/api/brands/{brand_id}/analytics/',
      '/api/categories/{category_id}/analytics/',
      '/api/brands/{brand_id}/score-history/',
      '/api/categories/{category_id}/score-history/',
      '/api/brands/{brand_id}/category-deltas/',
    ]) {
      assert.deepEqual(parameter(path, 'range')?.enum, ['7d', '30d', '90d', 'all', 'custom'], path);
    }
    for (const path of [
      '/api/brands/{brand_id}/score-history/',
      '/api/categories/{category_id}/score-history/',
    ]) {
      assert.equal(parameter(path, 'limit')?.minimum, 1, path);
    }
  });

  it('is checked strictly: an undocumented field fails validation, also deep inside', async () => {
    const keyed = bearer(demo.keys.acme);
    const brandEndpoint = endpointAt('/api/brands/{brand_id}/');
    const brand = (
      await demo.ctx.app.inject({ url: urlFor(brandEndpoint, demo.fixtures), headers: keyed })
    ).json();
    assert.equal(schemaErrors(brandEndpoint, 200, 'application/json', brand), null);
    assert.notEqual(
      schemaErrors(brandEndpoint, 200, 'application/json', { ...brand, undocumented: 1 }),
      null,
    );

    const runEndpoint = endpointAt('/api/runs/{run_id}/');
    const run = (
      await demo.ctx.app.inject({ url: urlFor(runEndpoint, demo.fixtures), headers: keyed })
    ).json();
    assert.equal(schemaErrors(runEndpoint, 200, 'application/json', run), null);
    run.responses[0].undocumented = 1;
    assert.notEqual(schemaErrors(runEndpoint, 200, 'application/json', run), null);
  });

  it('serves a readable documentation page at /api/docs without a key', async () => {
    let url = '/api/docs';
    let res = await demo.ctx.app.inject({ url });
    for (let hops = 0; hops < 3 && res.statusCode >= 300 && res.statusCode < 400; hops++) {
      url = new URL(String(res.headers.location), 'http://localhost/api/docs').pathname;
      res = await demo.ctx.app.inject({ url });
    }
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.match(res.body, /<html/i);
  });
});

describe('real responses match the documented schemas', () => {
  for (const endpoint of ENDPOINTS) {
    it(`${label(endpoint)}: 200 on the demo data`, async () => {
      const res = await demo.ctx.app.inject({
        url: urlFor(endpoint, demo.fixtures),
        headers: bearer(demo.keys.acme),
      });
      assert.equal(res.statusCode, 200, res.body.slice(0, 500));
      assertHeadersDocumented(endpoint, 200, res.headers);
      const contentType = String(res.headers['content-type']).split(';')[0] as string;
      if (endpoint.download) {
        const documented = Object.keys(operationOf(endpoint)?.responses['200']?.content ?? {});
        assert.ok(documented.includes(contentType), `${contentType} is among the documented ${documented}`);
        return;
      }
      if (endpoint.csv) {
        const asCsv = await demo.ctx.app.inject({
          url: urlFor(endpoint, demo.fixtures),
          headers: { ...bearer(demo.keys.acme), accept: 'text/csv' },
        });
        assert.equal(asCsv.statusCode, 200);
        assertHeadersDocumented(endpoint, 200, asCsv.headers);
        // A CSV answer carrying its page's envelope always has the total: declared where sent.
        const declared = Object.keys(operationOf(endpoint)?.responses['200']?.headers ?? {});
        assert.equal(declared.includes('X-Total-Count'), 'x-total-count' in asCsv.headers, label(endpoint));
      }
      const body = res.json();
      if (Array.isArray(body.results)) {
        assert.ok(body.results.length > 0, 'the example query returns rows, so item schemas are exercised');
      }
      assertDocumented(endpoint, 200, 'application/json', body);
    });

    it(`${label(endpoint)}: error bodies match too`, async () => {
      const unauthenticated = await demo.ctx.app.inject({ url: urlFor(endpoint, demo.fixtures) });
      // The demo brand's category list is public: its 401 is checked through another brand.
      if (unauthenticated.statusCode === 401) {
        assertDocumented(endpoint, 401, 'application/json', unauthenticated.json());
        assertHeadersDocumented(endpoint, 401, unauthenticated.headers);
      }
      const keyed = bearer(demo.keys.acme);
      if (endpoint.path.includes('{')) {
        const hidden = await demo.ctx.app.inject({
          url: urlFor(endpoint, demo.fixtures),
          headers: bearer(demo.keys.globex),
        });
        assert.equal(hidden.statusCode, 404);
        assertDocumented(endpoint, 404, 'application/json', hidden.json());
        assertHeadersDocumented(endpoint, 404, hidden.headers);
      }
      if (endpoint.invalidQuery !== undefined) {
        const bad = await demo.ctx.app.inject({
          url: urlFor(endpoint, demo.fixtures, endpoint.invalidQuery),
          headers: keyed,
        });
        assert.equal(bad.statusCode, 400);
        assertDocumented(endpoint, 400, 'application/json', bad.json());
        assertHeadersDocumented(endpoint, 400, bad.headers);
      }
    });
  }
});

describe('the headers of a refusal for too many requests', () => {
  it('are the ones the document declares for 429, Retry-After among them', async () => {
    const ctx = await createTestContext({ rateLimitPerMinute: 1 });
    try {
      const key = await mintKey(ctx.dbs.primary, await insertOrg(ctx.dbs.primary, 'acme'));
      assert.equal((await ctx.app.inject({ url: '/api/brands/', headers: bearer(key) })).statusCode, 200);
      const refused = await ctx.app.inject({ url: '/api/brands/', headers: bearer(key) });
      assert.equal(refused.statusCode, 429);
      assertHeadersDocumented(endpointAt('/api/brands/'), 429, refused.headers);
      assert.ok('retry-after' in refused.headers);
    } finally {
      await ctx.close();
    }
  });
});
