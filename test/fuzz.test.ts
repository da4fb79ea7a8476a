import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, it } from 'node:test';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { buildApp } from '../src/app.ts';
import type { App } from '../src/http/types.ts';
import { createTestContext, type TestContext } from './support/context.ts';
import { insertOrg, mintKey } from './support/fixtures.ts';
import { seedScoredBrand } from './support/scored-brand.ts';

// Property-based fuzzing of every path in the OpenAPI document over real HTTP: hostile ids, every
// query parameter with valid, odd and encoded values, credential headers in every arrangement,
// paths spelled with escapes. Whatever arrives: no 5xx, every body JSON in a contract shape, every
// status documented and every body valid against the document, and no key secret in the log.
//
//   FUZZ_RUNS  requests to send (default 3000: the CI-sized run in `npm test`)
//   FUZZ_SEED  fast-check seed (default fixed); `random` picks one and prints it
//   npm run fuzz   the long run: 50 000 requests, random seed (both can be overridden)

const RUNS = Number(process.env.FUZZ_RUNS || 3000);
const SEED =
  process.env.FUZZ_SEED === 'random'
    ? Math.floor(Math.random() * 2 ** 31)
    : Number(process.env.FUZZ_SEED || 20260314);

type Json = Record<string, unknown>;
interface Parameter {
  in: 'path' | 'query';
  name: string;
  schema: { type?: string; enum?: string[]; minimum?: number; maxLength?: number };
}
interface Operation {
  parameters?: Parameter[];
  responses: Record<string, { content?: Record<string, { schema: Json }> }>;
}

let ctx: TestContext;
let app: App;
let port: number;
let document: { paths: Record<string, { get: Operation }>; components: Json };
const keys: Record<'acme' | 'globex' | 'noScope', string> = { acme: '', globex: '', noScope: '' };
/** Ids of acme's seeded rows, by the path parameter that names them. */
const ids: Record<string, number[]> = {};
const logs: string[] = [];
const agent = new Agent({ keepAlive: true, maxSockets: 4 });

before(async () => {
  ctx = await createTestContext({ rateLimitPerMinute: 1_000_000 });
  const acme = await insertOrg(ctx.dbs.primary, 'acme');
  const globex = await insertOrg(ctx.dbs.primary, 'globex');
  const seeded = await seedScoredBrand(ctx.dbs.primary, acme, { name: 'Acme' });
  await seedScoredBrand(ctx.dbs.primary, globex, { name: 'Globex' });
  const responses = await ctx.dbs.primary
    .selectFrom('responses')
    .select('id')
    .where('org_id', '=', acme)
    .limit(5)
    .execute();
  Object.assign(ids, {
    brand_id: [seeded.brandId],
    category_id: [seeded.c1, seeded.c2, seeded.c3],
    prompt_id: Object.values(seeded.prompts),
    run_id: Object.values(seeded.runs),
    response_id: responses.map((r) => r.id),
  });
  keys.acme = await mintKey(ctx.dbs.primary, acme);
  keys.globex = await mintKey(ctx.dbs.primary, globex);
  keys.noScope = await mintKey(ctx.dbs.primary, acme, { scopes: ['reports:read'] });
  app = await buildApp(ctx.config, {
    databases: ctx.dbs,
    logger: { level: 'info', stream: { write: (line: string) => logs.push(line) } },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as AddressInfo).port;
  document = (await app.inject({ url: '/api/openapi.json' })).json();
});
after(async () => {
  agent.destroy();
  await app?.close();
  await ctx?.close();
});

// ---- what is sent ----------------------------------------------------------------------------

const hostileText = fc.oneof(
  fc.constantFrom(
    '',
    '0',
    '-1',
    '1e3',
    '0x10',
    '0b11',
    '1.0',
    ' 1',
    '+1',
    '1.19e+203',
    'NaN',
    'Infinity',
    '9'.repeat(40),
    '9'.repeat(400),
    '\u0000',
    '..',
    '../..',
    '%',
    '%ZZ',
    'true',
    'null',
    '[]',
    "'; drop table brands; --",
    'ünïcødé 🚀',
  ),
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary-ascii', maxLength: 20 }),
);

/** A value as it goes on the wire: percent-encoded, occasionally with raw escapes left in. */
const encoded = (value: fc.Arbitrary<string>) =>
  fc
    .tuple(value, fc.boolean())
    .map(([v, raw]) =>
      raw ? v.replace(/[^\x21-\x7e]|[#?&=]/gu, encodeURIComponent) : encodeURIComponent(v),
    );

function valueFor(parameter: Parameter): fc.Arbitrary<string> {
  const { schema } = parameter;
  const valid: fc.Arbitrary<string> =
    schema.type === 'integer'
      ? fc.integer({ min: -5, max: 2000 }).map(String)
      : schema.type === 'boolean'
        ? fc.constantFrom('true', 'false')
        : schema.enum
          ? fc.constantFrom(...schema.enum)
          : fc.constantFrom(
              '7d',
              '30d',
              '90d',
              'all',
              'custom',
              '2026-03-01',
              '2026-03-01T00:00:00Z',
              'in_depth_report',
            );
  return encoded(fc.oneof({ weight: 2, arbitrary: valid }, { weight: 1, arbitrary: hostileText }));
}

/** An id of the kind the parameter names (when acme has such rows), any number, or hostile text. */
const pathId = (name: string) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...(ids[name] ?? [1]).map(String)) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 10_000 }).map(String) },
    { weight: 1, arbitrary: encoded(hostileText) },
  );

/** Mostly a valid key of acme (so requests reach the lookups), else every other arrangement. */
const credentials = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom<Array<[string, string]>>(
      [['Authorization', 'Bearer KEY:acme']],
      [['X-API-Key', 'KEY:acme']],
      [['authorization', 'bearer   KEY:acme']],
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Array<[string, string]>>(
      [],
      [['Authorization', 'Bearer KEY:globex']],
      [['Authorization', 'Bearer KEY:noScope']],
      [['Authorization', 'Bearer sl_live_AAAAAAAA_notarealkeyatallnotarealkeyatall00']],
      [['Authorization', 'Basic dXNlcjpwYXNz']],
      [
        ['Authorization', 'Bearer KEY:acme'],
        ['X-API-Key', 'KEY:acme'],
      ],
      [
        ['X-API-Key', 'KEY:acme'],
        ['X-API-Key', 'KEY:acme'],
      ],
    ),
  },
);

/** Extra headers that must never matter, or never leak: a key in a User-Agent or request id. */
const noise = fc.subarray<[string, string]>([
  ['User-Agent', 'KEY:acme'],
  ['X-Request-Id', 'KEY:acme'],
  ['X-Request-Id', 'trace-1'],
  ['Accept', 'text/html'],
  ['X-Forwarded-For', '203.0.113.9'],
]);

/** Spells a path differently: escapes of unreserved characters, a dropped trailing slash. */
const spelling = fc.constantFrom<(path: string) => string>(
  (path) => path,
  (path) => path.replace(/\/$/, ''),
  (path) => path.replace('/api/', '/%61pi/'),
  (path) => path.replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
  (path) => path.replace('/api/', '/api//'),
);

const operationRequest = () =>
  fc.constantFrom(...Object.keys(document.paths)).chain((template) => {
    const parameters = document.paths[template]?.get.parameters ?? [];
    const pathParams = parameters.filter((p) => p.in === 'path');
    const queryParams = parameters.filter((p) => p.in === 'query');
    return fc.record({
      template: fc.constant(template),
      path: fc.tuple(...pathParams.map((p) => pathId(p.name))).map((values) => {
        let i = 0;
        return template.replace(/\{[^}]+\}/g, () => values[i++] as string);
      }),
      query: fc
        .subarray(queryParams)
        .chain((chosen) => fc.tuple(...chosen.map((p) => valueFor(p).map((v) => `${p.name}=${v}`)))),
      unknown: fc.option(fc.constantFrom('foo=1', 'page=1&page=2', 'includeHtml', '&&&', 'a%00=b')),
      credentials,
      noise,
      spelling,
    });
  });

// ---- what is checked --------------------------------------------------------------------------

const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
const validators = new Map<string, ValidateFunction>();

function validatorFor(template: string, status: number): ValidateFunction | undefined {
  const key = `${template} ${status}`;
  if (!validators.has(key)) {
    const schema =
      document.paths[template]?.get.responses[String(status)]?.content?.['application/json']?.schema;
    if (schema) validators.set(key, ajv.compile({ ...schema, components: document.components }));
  }
  return validators.get(key);
}

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

function send(path: string, headers: Array<[string, string]>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent, method: 'GET' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: String(res.headers['content-type'] ?? ''),
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    for (const [name, value] of headers) req.appendHeader(name, value);
    req.on('error', reject);
    req.end();
  });
}

// The documented paths as patterns, made once the document is read (before()).
let routes: { template: string; pattern: RegExp }[] | undefined;

/**
 * The documented path a sent path reaches, if any: escapes of unreserved characters decoded and a
 * dropped trailing slash put back (the service reads them so), each parameter a non-empty segment.
 * An empty id with its trailing slash dropped spells another operation (`/api/brands//` →
 * `/api/brands/`), whose body is the one to check.
 */
function reached(path: string): string | undefined {
  const plain = path.replace(/%([0-9A-Fa-f]{2})/g, (escaped, hex: string) => {
    const c = String.fromCharCode(Number.parseInt(hex, 16));
    return /[A-Za-z0-9\-._~]/.test(c) ? c : escaped;
  });
  const slashed = plain.endsWith('/') ? plain : `${plain}/`;
  routes ??= Object.keys(document.paths).map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
  }));
  return routes.find((route) => route.pattern.test(slashed))?.template;
}

const withKeys = (text: string) =>
  text.replace(/KEY:(acme|globex|noScope)/g, (_, who: keyof typeof keys) => keys[who]);

const statuses = new Map<number, number>();

it(`${RUNS} hostile requests over every documented path: no 5xx, contract shapes, documented bodies, no secret logged`, async (t) => {
  t.diagnostic(`fast-check seed ${SEED} (FUZZ_SEED=${SEED} to replay), ${RUNS} runs`);
  await fc.assert(
    fc.asyncProperty(operationRequest(), async (r) => {
      const query = [...r.query, ...(r.unknown ? [r.unknown] : [])].join('&');
      const spelled = r.spelling(r.path);
      const path = spelled + (query ? `?${query}` : '');
      const template = reached(spelled) ?? r.template;
      const headers = [...r.credentials, ...r.noise].map(([n, v]) => [n, withKeys(v)] as [string, string]);
      const res = await send(path, headers);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      const what = `GET ${path} ${JSON.stringify(r.credentials)} → ${res.status} ${res.body.slice(0, 300)}`;
      assert.ok(res.status < 500, what);
      if (res.status === 200 && !res.contentType.startsWith('application/json')) {
        // A download (PDF, HTML) or a CSV answer (format=csv, Accept: text/csv): a media type the
        // operation documents.
        const documented = Object.keys(document.paths[template]?.get.responses['200']?.content ?? {});
        assert.ok(documented.includes(res.contentType.split(';')[0] ?? ''), what);
        return;
      }
      assert.match(res.contentType, /^application\/json/, what);
      const body = JSON.parse(res.body);
      if (res.status >= 400) {
        if (res.status === 400) {
          assert.ok(
            Object.values(body).every((m) => Array.isArray(m) && m.every((s) => typeof s === 'string')),
            what,
          );
        } else assert.deepEqual(Object.keys(body), ['detail'], what);
      }
      // Also a spelling no route serves (a double slash) answers with a status and body that the
      // operation it points at documents.
      const validate = validatorFor(template, res.status);
      assert.ok(validate, `${template} documents ${res.status}: ${what}`);
      assert.ok(validate(body), `${what}\n${JSON.stringify(validate.errors?.slice(0, 5))}`);
    }),
    { numRuns: RUNS, seed: SEED, endOnFailure: true },
  );

  // Let the access lines of the last requests land, then search every line for every key.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const output = logs.join('');
  for (const key of Object.values(keys)) {
    const secret = key.split('_')[3] as string;
    assert.ok(!output.includes(secret.slice(0, 12)), 'no key secret in the log');
  }
  t.diagnostic(`statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
  // The run reached past the gate and the lookups, not only their refusals.
  assert.ok((statuses.get(200) ?? 0) > RUNS / 10 && (statuses.get(400) ?? 0) > 0, 'a useful mix of answers');
});
