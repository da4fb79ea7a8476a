import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { Type } from 'typebox';
import { csvText, flatten } from '../src/http/csv.ts';
import { bearer } from './support/context.ts';
import { createDemoContext, type DemoContext } from './support/demo.ts';
import { ENDPOINTS, type Endpoint, label, urlFor, validQuery } from './support/endpoints.ts';
import { BrandFixture } from './support/fixtures.ts';
import { PINNED_DEMO_NOW } from './support/templates.ts';

// CSV answers (docs/csv.md): every CSV-capable endpoint's CSV, parsed with a real CSV parser, is
// its JSON answer to the same request, row for row and cell for cell, flattened by the documented
// rule; errors stay JSON.

let demo: DemoContext;
let tricky: { brandId: number; categoryId: number };
before(async () => {
  // One "now" for every request, so that a rolling window's JSON and CSV answers are the same window.
  demo = await createDemoContext({}, { clock: () => PINNED_DEMO_NOW });
  // Hand-made names that need quoting (comma, quote, CR LF, LF) or formula escaping.
  const brand = await BrandFixture.insert(demo.ctx.dbs.primary, demo.orgIds.acme, {
    name: 'Quote "Co", Ltd.\r\nSecond line',
  });
  const categoryId = await brand.category('Help desks, "best"');
  const names = ['Which, of these "tools"\nis best?', 'two\nlines', '=SUM(1,2)', '-- dashes', 'plain'];
  for (const text of names) await brand.prompt(categoryId, { text });
  tricky = { brandId: brand.brandId, categoryId };
});
after(() => demo?.ctx.close());

const get = (url: string, headers: Record<string, string> = {}) =>
  demo.ctx.app.inject({ url, headers: { ...bearer(demo.keys.acme), ...headers } });

const parseCsv = (text: string): string[][] => parse(text, { bom: false });

type Json = Record<string, unknown>;

/**
 * The rule written independently of src/http/csv.ts, from the JSON alone: objects spread into
 * dotted paths, arrays as JSON text, null as an empty cell (a null object: all its columns
 * empty), booleans true/false, numbers as JSON writes them, and text that a spreadsheet would
 * run as a formula behind a leading apostrophe.
 */
function expectedCells(value: unknown, path = ''): Array<[string, string | null]> {
  if (value === null) return [[path, null]];
  if (Array.isArray(value)) return [[path, JSON.stringify(value)]];
  if (typeof value === 'object') {
    return Object.entries(value as Json).flatMap(([k, v]) => expectedCells(v, path ? `${path}.${k}` : k));
  }
  if (typeof value === 'string') return [[path, /^[=+\-@\t\r]/.test(value) ? `'${value}` : value]];
  return [[path, String(value)]];
}

function rowsOf(body: Json, rowsPath: string, key?: string): Json[] {
  const node = rowsPath.split('.').reduce<unknown>((at, name) => (at as Json)[name], body);
  if (Array.isArray(node)) return node as Json[];
  if (key) return Object.entries(node as Json).map(([id, entry]) => ({ [key]: id, ...(entry as Json) }));
  return [node as Json];
}

/** Compares a parsed CSV with the JSON rows; returns the header. */
function assertSameRows(csv: string[][], rows: Json[], what: string): string[] {
  const [header, ...records] = csv;
  assert.ok(header && header.length > 0, `${what}: a header row`);
  assert.equal(new Set(header).size, header.length, `${what}: column names are unique`);
  assert.equal(records.length, rows.length, `${what}: one CSV row per JSON row`);
  rows.forEach((row, i) => {
    const record = records[i] as string[];
    assert.equal(record.length, header.length, `${what} row ${i}: a cell per column`);
    const cell = (column: string) => record[header.indexOf(column)];
    const covered = new Set<string>();
    for (const [path, expected] of expectedCells(row)) {
      if (expected === null && !header.includes(path)) {
        // A null object: each of its columns is empty.
        const columns: string[] = header.filter((c) => c.startsWith(`${path}.`));
        assert.ok(columns.length > 0, `${what} row ${i}: ${path} has columns`);
        for (const c of columns) {
          assert.equal(cell(c), '', `${what} row ${i}: ${c}`);
          covered.add(c);
        }
        continue;
      }
      assert.ok(header.includes(path), `${what}: the header has ${path}`);
      assert.equal(cell(path), expected ?? '', `${what} row ${i}: ${path}`);
      covered.add(path);
    }
    // Columns the JSON row does not carry (an empty object's fields) are empty.
    for (const column of header.filter((c) => !covered.has(c))) {
      assert.equal(cell(column), '', `${what} row ${i}: ${column} (absent from the JSON) is empty`);
    }
  });
  return header;
}

const withFormat = (url: string, extra: string) => `${url}${url.includes('?') ? '&' : '?'}${extra}`;
const withoutFormat = (link: string) => {
  const url = new URL(link, 'http://x');
  url.searchParams.delete('format');
  url.searchParams.sort();
  return `${url.pathname}?${url.searchParams}`;
};

describe('the flattening rule', () => {
  it('spreads objects into dotted columns, keeps arrays as JSON text, leaves null empty', () => {
    const Interval = Type.Union([Type.Object({ low: Type.Number(), high: Type.Number() }), Type.Null()]);
    const schema = Type.Object({
      name: Type.String(),
      share: Type.Number(),
      isUserBrand: Type.Boolean(),
      interval: Interval,
      previous: Interval,
      mergedInto: Type.Object({ id: Type.Optional(Type.String()), name: Type.Optional(Type.String()) }),
      sources: Type.Array(Type.String()),
      breakdown: Type.Array(Type.Object({ domain: Type.String(), count: Type.Integer() })),
      rank: Type.Union([Type.Integer(), Type.Null()]),
    });
    const row = {
      name: 'Acme',
      share: 0.25,
      isUserBrand: true,
      interval: { low: 0.1, high: 0.4 },
      previous: null,
      mergedInto: {},
      sources: ['https://a.example/x', 'https://b.example/'],
      breakdown: [{ domain: 'a.example', count: 2 }],
      rank: null,
    };
    assert.deepEqual(flatten(schema, row), [
      ['name', 'Acme'],
      ['share', 0.25],
      ['isUserBrand', true],
      ['interval.low', 0.1],
      ['interval.high', 0.4],
      ['previous.low', null],
      ['previous.high', null],
      ['mergedInto.id', null],
      ['mergedInto.name', null],
      ['sources', '["https://a.example/x","https://b.example/"]'],
      ['breakdown', '[{"domain":"a.example","count":2}]'],
      ['rank', null],
    ]);
    // Without a value: the header alone.
    assert.deepEqual(
      flatten(schema).map(([column]) => column),
      [
        'name',
        'share',
        'isUserBrand',
        'interval.low',
        'interval.high',
        'previous.low',
        'previous.high',
        'mergedInto.id',
        'mergedInto.name',
        'sources',
        'breakdown',
        'rank',
      ],
    );
  });

  it('writes RFC 4180: CRLF, quotes doubled, quoting only where needed, formulas escaped', () => {
    const text = csvText(
      ['name', 'share', 'flag', 'delta', 'note'],
      [
        ['a, "b"', 0.5, true, -1.5, 'line\nbreak'],
        ['=1+1', null, false, 0, '-x'],
        ['cr\ronly', 1, true, 2, 'crlf\r\nend'],
      ],
    );
    assert.equal(
      text,
      'name,share,flag,delta,note\r\n' +
        '"a, ""b""",0.5,true,-1.5,"line\nbreak"\r\n' +
        "'=1+1,,false,0,'-x\r\n" +
        '"cr\ronly",1,true,2,"crlf\r\nend"\r\n',
    );
  });

  it('escapes a formula behind spaces, a line break or an invisible character too', () => {
    const hidden = [
      ' =1+1',
      '\n=1+1',
      '\u00a0+1',
      '\u200b@SUM(1)',
      '\ufeff-1',
      '\u200e\u2066=1',
      '\u061c=1',
      ' plain',
      '\u200bplain',
    ];
    assert.equal(
      csvText(
        ['cell'],
        hidden.map((cell) => [cell]),
      ),
      "cell\r\n' =1+1\r\n\"'\n=1+1\"\r\n'\u00a0+1\r\n'\u200b@SUM(1)\r\n'\ufeff-1\r\n'\u200e\u2066=1\r\n'\u061c=1\r\n plain\r\n\u200bplain\r\n",
    );
  });
});

describe('CSV answers equal the JSON of the same request', () => {
  for (const endpoint of ENDPOINTS.filter((e): e is Endpoint & { csv: NonNullable<Endpoint['csv']> } =>
    Boolean(e.csv),
  )) {
    const { rows: blocks, key } = endpoint.csv;
    it(`${label(endpoint)}: every block, parsed, matches the flattened JSON`, async () => {
      const url = urlFor(endpoint, demo.fixtures, validQuery(endpoint, demo.fixtures));
      const json = await get(url);
      assert.equal(json.statusCode, 200, json.body.slice(0, 300));
      const body = json.json() as Json;
      for (const [i, block] of blocks.entries()) {
        // The first block is the default: asked without `block`, and with Accept instead of format.
        const asked = i === 0 ? url : withFormat(url, `block=${encodeURIComponent(block)}`);
        const res =
          i === 0 ? await get(asked, { accept: 'text/csv' }) : await get(withFormat(asked, 'format=csv'));
        assert.equal(res.statusCode, 200, `${block}: ${res.body.slice(0, 300)}`);
        assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8; header=present');
        assert.equal(res.headers.vary, 'Accept');
        assert.ok(res.body.endsWith('\r\n'), 'records end with CRLF');
        const header = assertSameRows(
          parseCsv(res.body),
          rowsOf(body, block, key),
          `${label(endpoint)} ${block}`,
        );
        if (key) assert.equal(header[0], key);
      }
      if ('count' in body) {
        const csv = await get(withFormat(url, 'format=csv'));
        assert.equal(csv.headers['x-total-count'], String(body.count));
        const next = /<([^>]*)>; rel="next"/.exec(String(csv.headers.link ?? ''))?.[1];
        assert.equal(
          next === undefined ? null : withoutFormat(next),
          body.next && withoutFormat(String(body.next)),
        );
        if (next) assert.equal(new URL(next, 'http://x').searchParams.get('format'), 'csv');
      }
    });
  }

  it('carries the interval columns beside each rate and share', async () => {
    const url = `/api/brands/${demo.fixtures.brandId}/analytics/?range=90d&format=csv`;
    const [metrics] = parseCsv((await get(url)).body);
    for (const column of ['mentionRate.interval.low', 'mentionRate.interval.high', 'avgRank.interval.low']) {
      assert.ok(metrics?.includes(column), column);
    }
    const [platforms] = parseCsv((await get(`${url}&block=platforms.apiPlatforms`)).body);
    assert.ok(
      platforms?.includes('mentionRateInterval.low') && platforms.includes('mentionRateInterval.high'),
    );
    const [voices] = parseCsv((await get(`${url}&block=shareOfVoice.visible`)).body);
    assert.ok(voices?.includes('interval.low') && voices.includes('interval.high'));
  });

  it("run detail: the page's responses, the total and the next page as headers", async () => {
    const url = `/api/runs/${demo.fixtures.runId}/?page_size=2`;
    const body = (await get(url)).json() as { responsesCount: number; responses: Json[] };
    const res = await get(`${url}&format=csv`);
    assert.equal(res.headers['x-total-count'], String(body.responsesCount));
    // The next page keeps asking for CSV: responsesNext is built without the caller's query.
    assert.equal(
      res.headers.link,
      `</api/runs/${demo.fixtures.runId}/?page=2&page_size=2&format=csv>; rel="next"`,
    );
    const next = await get(`/api/runs/${demo.fixtures.runId}/?page=2&page_size=2&format=csv`);
    const second = (await get(`/api/runs/${demo.fixtures.runId}/?page=2&page_size=2`)).json() as {
      responses: Json[];
    };
    assertSameRows(parseCsv(next.body), second.responses, 'run detail page 2');
  });
});

describe('quoting round-trips', () => {
  it('a brand name with a comma, quotes and a line break comes back as it was', async () => {
    const res = await get('/api/brands/?q=Quote&format=csv');
    const [header, row, ...rest] = parseCsv(res.body);
    assert.equal(rest.length, 0);
    assert.equal(row?.[header?.indexOf('name') ?? -1], 'Quote "Co", Ltd.\r\nSecond line');
  });

  it('prompt texts come back as they were; formula-like text behind an apostrophe', async () => {
    const res = await get(`/api/categories/${tricky.categoryId}/prompts/?format=csv`);
    const [header, ...rows] = parseCsv(res.body);
    const text = header?.indexOf('text') ?? -1;
    assert.deepEqual(
      rows.map((row) => row[text]),
      ['Which, of these "tools"\nis best?', 'two\nlines', "'=SUM(1,2)", "'-- dashes", 'plain'],
    );
    const categories = parseCsv((await get(`/api/brands/${tricky.brandId}/categories/?format=csv`)).body);
    assert.equal(categories[1]?.[categories[0]?.indexOf('name') ?? -1], 'Help desks, "best"');
  });
});

describe('same rules as JSON', () => {
  const brandCsv = () => `/api/brands/${demo.fixtures.brandId}`;

  it('pages: page 2 is the JSON page 2; a page past the end is the JSON 404', async () => {
    const json = (await get('/api/brands/?sort=name&page_size=1&page=2&archived=true')).json() as {
      results: Json[];
    };
    const csv = await get('/api/brands/?sort=name&page_size=1&page=2&archived=true&format=csv');
    assertSameRows(parseCsv(csv.body), json.results, 'brands page 2');
    const past = await get('/api/brands/?page=999&format=csv');
    assert.equal(past.statusCode, 404);
    assert.match(String(past.headers['content-type']), /^application\/json/);
    assert.deepEqual(past.json(), { detail: 'Invalid page.' });
  });

  it('an empty page still has its header row', async () => {
    const res = await get('/api/brands/?q=no-such-brand-anywhere&format=csv');
    const rows = parseCsv(res.body);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.[0], 'id');
    assert.equal(res.headers['x-total-count'], '0');
  });

  it('400, 401, 403 and 404 stay JSON with their status', async () => {
    const bad = await get(`${brandCsv()}/score-history/?format=xyz`);
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(bad.json(), { format: ['"xyz" is not a valid choice.'] });
    const badBlock = await get(`${brandCsv()}/analytics/?format=csv&block=everything`);
    assert.deepEqual(badBlock.json(), { block: ['"everything" is not a valid choice.'] });
    const badRange = await get(`${brandCsv()}/analytics/?range=13d`, { accept: 'text/csv' });
    assert.deepEqual(badRange.json(), { range: ['"13d" is not a valid choice.'] });

    const anonymous = await demo.ctx.app.inject({
      url: '/api/brands/?format=csv',
      headers: { accept: 'text/csv' },
    });
    assert.equal(anonymous.statusCode, 401);
    assert.deepEqual(anonymous.json(), { detail: 'Authentication credentials were not provided.' });

    const globexBrand = demo.brandIds.globex[0];
    const hidden = await get(`/api/brands/${globexBrand}/runs/?format=csv`);
    assert.equal(hidden.statusCode, 404);
    assert.deepEqual(hidden.json(), { detail: 'Not found.' });
    // A hidden object is a 404 even when its query is invalid too (order of checks).
    assert.equal((await get(`/api/brands/${globexBrand}/runs/?format=xyz`)).statusCode, 404);
  });

  it('the public demo brand answers CSV without a key', async () => {
    const url = `/api/brands/${demo.manifest.demoBrandId}/categories/`;
    const res = await demo.ctx.app.inject({ url: `${url}?format=csv` });
    assert.equal(res.statusCode, 200);
    const json = (await demo.ctx.app.inject({ url })).json() as { results: Json[] };
    assertSameRows(parseCsv(res.body), json.results, 'anonymous demo categories');
  });

  it('format wins over Accept; an Accept naming neither JSON nor CSV gets JSON', async () => {
    const json = await get('/api/brands/?format=json', { accept: 'text/csv' });
    assert.match(String(json.headers['content-type']), /^application\/json/);
    const xml = await get('/api/brands/', { accept: 'application/xml' });
    assert.equal(xml.statusCode, 200);
    assert.match(String(xml.headers['content-type']), /^application\/json/);
    const preferJson = await get('/api/brands/', { accept: 'text/csv;q=0.5, application/json' });
    assert.match(String(preferJson.headers['content-type']), /^application\/json/);
    // An endpoint without CSV ignores both.
    const one = await get(`${brandCsv()}/?format=csv`, { accept: 'text/csv' });
    assert.match(String(one.headers['content-type']), /^application\/json/);
  });

  it('an endpoint with one table ignores `block`, as any parameter it does not read', async () => {
    for (const endpoint of ENDPOINTS.filter((e) => e.csv?.rows.length === 1)) {
      const url = withFormat(
        urlFor(endpoint, demo.fixtures, validQuery(endpoint, demo.fixtures)),
        'format=csv',
      );
      const plain = await get(url);
      assert.equal(plain.statusCode, 200, `${label(endpoint)}: ${plain.body.slice(0, 200)}`);
      for (const block of ['bogus', '', 'results.0', '__proto__', 'permissions', 'count']) {
        const res = await get(withFormat(url, `block=${block}`));
        assert.equal(res.statusCode, 200, `${label(endpoint)} block=${block}: ${res.body.slice(0, 200)}`);
        assert.equal(res.body, plain.body, `${label(endpoint)} block=${block}`);
      }
    }
  });

  it('reads an Accept of text/csv with the parameters its answer has', async () => {
    const asked: Array<[string, RegExp]> = [
      ['text/csv; charset=utf-8', /^text\/csv/],
      ['text/csv;charset=UTF-8', /^text\/csv/],
      ['text/csv; charset=utf-8; header=present', /^text\/csv/],
      ['application/json;q=0.5, text/csv; charset=utf-8', /^text\/csv/],
      ['application/json; charset=utf-8, text/csv;q=0.5', /^application\/json/],
      // Parameters the CSV answer cannot meet: no CSV, so JSON as for any other type.
      ['text/csv; charset=iso-8859-1', /^application\/json/],
      ['text/csv; header=absent', /^application\/json/],
    ];
    for (const [accept, type] of asked) {
      const res = await get('/api/brands/', { accept });
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), type, accept);
    }
  });

  it('answers each Accept by its own value, however often the values alternate', async () => {
    const asked: Array<[Record<string, string>, RegExp]> = [
      [{ accept: 'text/csv' }, /^text\/csv/],
      [{}, /^application\/json/],
      [{ accept: 'application/json;q=0.1, text/csv' }, /^text\/csv/],
      [{ accept: '' }, /^application\/json/],
    ];
    for (const round of [1, 2]) {
      for (const [headers, type] of asked) {
        const res = await get('/api/brands/', headers);
        assert.match(String(res.headers['content-type']), type, `round ${round}: ${JSON.stringify(headers)}`);
      }
    }
  });
});
