import assert from 'node:assert/strict';
import { once } from 'node:events';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  type ClientOptions,
  parseRetryAfter,
  Sightline,
  SightlineAuthError,
  SightlineConnectionError,
  SightlineError,
  SightlineNotFoundError,
  SightlinePermissionError,
  SightlineRateLimitError,
  SightlineServerError,
  SightlineUnavailableError,
  SightlineValidationError,
} from '../clients/typescript/src/index.ts';
import { renderSchema, SCHEMA_FILE } from '../scripts/sdk-generate.ts';
import { buildApp } from '../src/app.ts';
import { listen } from './support/context.ts';
import { allScopesBut, createDemoContext, type DemoContext } from './support/demo.ts';
import { freePort } from './support/server-process.ts';

// The TypeScript SDK (clients/typescript) against a real server on the demo data: what it returns
// is compared with the raw JSON of the same requests, and its errors with the contract's statuses.
// The package as a newcomer installs it is sdk-package.test's.

let demo: DemoContext;
let baseUrl: string;
let sl: Sightline;
let dir: string;
before(async () => {
  demo = await createDemoContext();
  baseUrl = await listen(demo.ctx.app);
  sl = new Sightline({ apiKey: demo.keys.acme, baseUrl });
  dir = mkdtempSync(join(tmpdir(), 'sightline-sdk-'));
});
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await demo?.ctx.close();
});

/** The same request without the SDK. */
// biome-ignore lint/suspicious/noExplicitAny: raw JSON, compared with what the SDK typed
async function raw(url: string): Promise<any> {
  const res = await fetch(new URL(url, baseUrl), { headers: { authorization: `Bearer ${demo.keys.acme}` } });
  assert.equal(res.status, 200, url);
  return res.json();
}

async function rejection(promise: Promise<unknown>): Promise<SightlineError> {
  const error = await promise.then(
    () => assert.fail('expected an error'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof SightlineError, String(error));
  return error;
}

/**
 * A stand-in for the service answering with `handler`, and a client on it (with `options`); closed
 * after `use`, connections it left open too.
 */
async function withStandIn(
  handler: RequestListener,
  use: (client: Sightline, base: string) => Promise<void>,
  options: Omit<ClientOptions, 'baseUrl'> = {},
): Promise<void> {
  const server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    await use(new Sightline({ apiKey: 'sl_live_any', baseUrl: base, ...options }), base);
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

describe('schema.ts', () => {
  it('is what `npm run sdk:generate` makes of the current OpenAPI document', async () => {
    const document = (await demo.ctx.app.inject({ url: '/api/openapi.json' })).json();
    assert.ok(
      (await renderSchema(document)) === readFileSync(SCHEMA_FILE, 'utf8'),
      'clients/typescript/src/schema.ts is stale: run `npm run sdk:generate`',
    );
  });
});

describe('reading through the SDK', () => {
  it('walks every brand across pages, as the raw pages list them', async () => {
    // archived: the manifest lists every acme brand, the archived one too.
    const params = { sort: 'name', page_size: 2, archived: true } as const;
    const fromSdk = [];
    for await (const brand of sl.brands.list(params)) fromSdk.push(brand);

    const fromRaw = [];
    let next: string | null = '/api/brands/?sort=name&page_size=2&archived=true';
    let pages = 0;
    while (next !== null) {
      const page = await raw(next);
      fromRaw.push(...page.results);
      next = page.next;
      pages++;
    }
    assert.ok(pages >= 2, `the demo's acme brands span ${pages} pages of 2`);
    assert.deepEqual(fromSdk, fromRaw);
    assert.deepEqual(
      fromSdk.map((b) => Number(b.id)).sort((a, b) => a - b),
      [...demo.brandIds.acme].sort((a, b) => a - b),
    );
    const names = fromSdk.map((b) => b.name);
    assert.deepEqual(
      names,
      [...names].sort((a, b) => a.localeCompare(b, 'en', { sensitivity: 'base' })),
    );

    const second = await sl.brands.list({ ...params, page: 2 }).page();
    assert.deepEqual(second.results, fromSdk.slice(2, 4));
    assert.equal(second.count, fromSdk.length);
  });

  it('gets a brand, its categories and its analytics', async () => {
    const { brandId, categoryId } = demo.fixtures;
    assert.deepEqual(await sl.brands.get(brandId), await raw(`/api/brands/${brandId}/`));
    const categories = [];
    for await (const category of sl.brands.categories(brandId, { page_size: 1 })) categories.push(category);
    assert.ok(categories.some((c) => c.id === String(categoryId)));

    // Over the whole history the figures do not depend on the request time (asOf does).
    const analytics = await sl.brands.analytics(brandId, { range: 'all' });
    assert.equal(analytics.window.range, 'all');
    assert.deepEqual(analytics.metrics, (await raw(`/api/brands/${brandId}/analytics/?range=all`)).metrics);
  });

  it("walks a run's responses through responsesNext", async () => {
    const { runId } = demo.fixtures;
    const all = await raw(`/api/runs/${runId}/?page_size=500`);
    assert.ok(all.responsesCount > 2, 'the run has more responses than one page of 2');
    const walked = [];
    for await (const response of sl.runs.responses(runId, { page_size: 2 })) walked.push(response);
    assert.equal(walked.length, all.responsesCount);
    assert.deepEqual(walked, all.responses);

    const full = await sl.responses.get(walked[0]!.id, { includeHtml: true });
    assert.equal(full.id, walked[0]!.id);
    assert.equal(typeof full.answerHtml, 'string');
  });

  it('waits for a completed run at once', async () => {
    const started = Date.now();
    const status = await sl.runs.waitUntilDone(demo.fixtures.runId, { timeoutMs: 5000 });
    assert.equal(status.status, 'completed');
    assert.equal(status.pollUrl, `/api/runs/${demo.fixtures.runId}/`);
    assert.ok(status.finishedAt !== null);
    assert.ok(Date.now() - started < 1000, 'a finished run needs one poll, no pause');
  });

  it('downloads a complete report as PDF bytes, and to a file', async () => {
    const { report } = demo.fixtures;
    assert.equal((await sl.reports.waitUntilComplete(report.id, { timeoutMs: 5000 })).status, 'complete');
    const file = await sl.reports.download(report.id);
    assert.equal(file.contentType, 'application/pdf');
    assert.match(file.filename ?? '', /\.pdf$/);
    const bytes = await file.bytes();
    assert.equal(Buffer.from(bytes.subarray(0, 4)).toString('latin1'), '%PDF');
    // Once: a second read found the stream spent and gave an empty file.
    await assert.rejects(file.bytes(), { name: 'TypeError' });

    const target = join(dir, 'report.pdf');
    await sl.reports.downloadTo(report.id, target, { pdf: true });
    assert.deepEqual(readFileSync(target), Buffer.from(bytes));

    // Over a private file, and through a link to it: the file keeps its permissions, the link stays.
    chmodSync(target, 0o600);
    const link = join(dir, 'latest.pdf');
    symlinkSync(target, link);
    writeFileSync(target, 'an older report');
    await sl.reports.downloadTo(report.id, link, { pdf: true });
    assert.ok(lstatSync(link).isSymbolicLink());
    assert.deepEqual(readFileSync(target), Buffer.from(bytes));
    assert.equal(statSync(target).mode & 0o777, 0o600);
    // A group-writable file stays so (a mode given at creation passes through the umask).
    chmodSync(target, 0o664);
    await sl.reports.downloadTo(report.id, target, { pdf: true });
    assert.equal(statSync(target).mode & 0o777, 0o664);
    // A link to a file not yet there: the file is made where it points, the link stays.
    const pending = join(dir, 'pending.pdf');
    const toPending = join(dir, 'to-pending.pdf');
    symlinkSync(pending, toPending);
    await sl.reports.downloadTo(report.id, toPending, { pdf: true });
    assert.ok(lstatSync(toPending).isSymbolicLink());
    assert.deepEqual(readFileSync(pending), Buffer.from(bytes));
    // A directory is refused before anything is read.
    await assert.rejects(sl.reports.downloadTo(report.id, dir, { pdf: true }), {
      name: 'TypeError',
      message: `Sightline: ${dir} is a directory, not a file to write.`,
    });

    const pages = sl.reports.list(report.brandId).pages();
    const first = (await pages.next()).value;
    assert.equal(first?.permissions.reportsReady, true);
    assert.equal((await sl.reports.latest(report.brandId, report.type)).reportType, report.type);
  });

  it("names a download in the brand's own spelling when the service gives it", async () => {
    // A stand-in answering with each form of the header the service sends (reports.test.ts checks
    // the service's), and one with a malformed escape.
    const dispositions = [
      `attachment; filename="cafe-in_depth_report-2026-03-01.pdf"; filename*=UTF-8''caf%C3%A9-in_depth_report-2026-03-01.pdf`,
      'attachment; filename="acme-in_depth_report-2026-03-01.pdf"',
      `attachment; filename="brand-in_depth_report-2026-03-01.pdf"; filename*=UTF-8''%E6%A0%AA%ZZ.pdf`,
      `attachment; filename="../../evil.pdf"`,
      `attachment; filename="a.pdf"; filename*=UTF-8''..%2F..%2Fx.pdf`,
      `attachment; filename="C:\\Users\\report.pdf"`,
      `attachment; filename=".."`,
      `attachment; filename*=UTF-8''sub%2F`,
      `attachment; filename="plain.pdf"; filename*=UTF-8''sub%2F`,
    ];
    let next = 0;
    await withStandIn(
      (_request, response) => {
        response.writeHead(200, {
          'content-type': 'application/pdf',
          'content-disposition': dispositions[next++],
        });
        response.end('%PDF-1.4\n');
      },
      async (client) => {
        const names = [];
        for (const _ of dispositions) names.push((await client.reports.download(1)).filename);
        assert.deepEqual(names, [
          'café-in_depth_report-2026-03-01.pdf',
          'acme-in_depth_report-2026-03-01.pdf',
          'brand-in_depth_report-2026-03-01.pdf',
          // Only a bare name: a directory part, or a name that is none, is not handed on.
          'evil.pdf',
          'x.pdf',
          'report.pdf',
          null,
          null,
          'plain.pdf',
        ]);
      },
    );
  });
});

describe('CSV through the SDK', () => {
  async function rawCsv(url: string): Promise<string> {
    const res = await fetch(new URL(url, baseUrl), {
      headers: { authorization: `Bearer ${demo.keys.acme}` },
    });
    assert.equal(res.status, 200, url);
    assert.match(String(res.headers.get('content-type')), /^text\/csv/);
    return res.text();
  }

  it('a list as one CSV document across pages, with one header row', async () => {
    const walked = await sl.brands.list({ sort: 'name', archived: true, page_size: 1 }).csv();
    assert.equal(walked, await rawCsv('/api/brands/?sort=name&archived=true&page_size=100&format=csv'));
    assert.equal(walked.split('\r\n').filter((line) => line.startsWith('id,name,')).length, 1);
    // The JSON methods of the same pager are unaffected by CSV.
    const page = await sl.brands.list({ sort: 'name', archived: true, page_size: 1 }).page();
    assert.equal(page.results.length, 1);
  });

  it("analytics blocks, score history and a run's responses as CSV text", async () => {
    const { brandId, runId, categoryId } = demo.fixtures;
    const sources = await sl.brands.analytics(brandId, {
      range: 'all',
      format: 'csv',
      block: 'sources.items',
    });
    assert.equal(
      sources,
      await rawCsv(`/api/brands/${brandId}/analytics/?range=all&block=sources.items&format=csv`),
    );
    assert.match(sources, /^domain,count,share,/);
    const history = await sl.categories.scoreHistory(categoryId, { since: 'all', format: 'csv' });
    assert.equal(history, await rawCsv(`/api/categories/${categoryId}/score-history/?since=all&format=csv`));
    assert.equal(
      await sl.runs.csv(runId, { page_size: 2 }),
      await rawCsv(`/api/runs/${runId}/?page_size=500&format=csv`),
    );
  });
});

describe('errors through the SDK', () => {
  it('404, 400 with fields, 401 and 403 are typed', async () => {
    const notFound = await rejection(sl.brands.get(999_999_999));
    assert.ok(notFound instanceof SightlineNotFoundError);
    assert.equal(notFound.status, 404);

    const invalid = await rejection(sl.brands.analytics(demo.fixtures.brandId, { range: '13d' as 'all' }));
    assert.ok(invalid instanceof SightlineValidationError);
    assert.deepEqual(invalid.fields, { range: ['"13d" is not a valid choice.'] });

    const badKey = new Sightline({ apiKey: 'sl_live_nope', baseUrl });
    const unauthorized = await rejection(badKey.brands.get(demo.fixtures.brandId));
    assert.ok(unauthorized instanceof SightlineAuthError);
    assert.deepEqual(unauthorized.body, { detail: 'Invalid API key.' });

    const noRuns = new Sightline({
      apiKey: await demo.mint('acme', { scopes: allScopesBut('runs:read') }),
      baseUrl,
    });
    const forbidden = await rejection(noRuns.runs.status(demo.fixtures.runId));
    assert.ok(forbidden instanceof SightlinePermissionError);
    assert.match((forbidden.body as { detail: string }).detail, /runs:read/);
  });

  it('no service at the base URL is a SightlineConnectionError naming the address and why; an abort stays one', async () => {
    const port = await freePort();
    const nobody = new Sightline({ apiKey: demo.keys.acme, baseUrl: `http://127.0.0.1:${port}` });
    await assert.rejects(nobody.brands.get(demo.fixtures.brandId), (error) => {
      assert.ok(error instanceof SightlineConnectionError);
      assert.ok(!(error instanceof SightlineError), 'no HTTP status to report');
      assert.equal(error.reason, 'ECONNREFUSED');
      assert.equal(
        error.message,
        `could not reach the Sightline API at http://127.0.0.1:${port} (ECONNREFUSED)`,
      );
      return true;
    });

    const aborted = new Sightline({
      baseUrl,
      fetch: async () => {
        throw new DOMException('The operation was aborted.', 'AbortError');
      },
    });
    await assert.rejects(aborted.brands.get(demo.fixtures.brandId), { name: 'AbortError' });
  });

  it('a service that never answers, or answers something other than the API, is a SightlineConnectionError', async () => {
    const silent = createServer(() => {});
    const html = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end('<html><body>Sign in to the proxy</body></html>');
    });
    const urls: string[] = [];
    for (const server of [silent, html]) {
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    }
    try {
      const [silentUrl, htmlUrl] = urls as [string, string];
      const waiting = new Sightline({ apiKey: demo.keys.acme, baseUrl: silentUrl, requestTimeoutMs: 300 });
      await assert.rejects(waiting.brands.get(demo.fixtures.brandId), (error) => {
        assert.ok(error instanceof SightlineConnectionError);
        assert.equal(
          error.message,
          `could not reach the Sightline API at ${silentUrl} (no answer within 300 ms)`,
        );
        return true;
      });
      const proxy = new Sightline({ apiKey: demo.keys.acme, baseUrl: htmlUrl });
      await assert.rejects(proxy.brands.get(demo.fixtures.brandId), (error) => {
        assert.ok(error instanceof SightlineConnectionError);
        assert.equal(error.reason, "answered 200 with text/html, not the Sightline API's JSON");
        return true;
      });
    } finally {
      silent.closeAllConnections();
      for (const server of [silent, html]) server.close();
    }
  });

  it('a download cut off mid-way is a SightlineConnectionError and leaves no file', async () => {
    // Promises 100,000 bytes, sends 30,000 and drops the connection.
    const cut: RequestListener = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/pdf', 'content-length': '100000' });
      response.write(Buffer.alloc(30_000, 37), () => response.socket?.destroy());
    };
    await withStandIn(cut, async (client) => {
      const target = join(dir, 'cut', 'report.pdf');
      mkdirSync(join(dir, 'cut'));
      await assert.rejects(client.reports.downloadTo(1, target), (error) => {
        assert.ok(error instanceof SightlineConnectionError);
        assert.equal(error.reason, 'UND_ERR_SOCKET');
        return true;
      });
      assert.deepEqual(readdirSync(join(dir, 'cut')), [], 'no cut-off file, no partial one');
      // A file already there stays as it was.
      writeFileSync(target, 'the earlier download');
      await assert.rejects(client.reports.downloadTo(1, target), SightlineConnectionError);
      assert.deepEqual(readdirSync(join(dir, 'cut')), ['report.pdf']);
      assert.equal(readFileSync(target, 'utf8'), 'the earlier download');
      await assert.rejects((await client.reports.download(1)).bytes(), SightlineConnectionError);
    });
  });

  it('a body that stops coming is a SightlineConnectionError, not a five-minute wait', async () => {
    // Headers and half a body, then nothing, the connection kept open; an error answer's body
    // too (a 500 for a run's status).
    const stalling: RequestListener = (request, response) => {
      response.writeHead(request.url?.includes('/runs/') ? 500 : 200, { 'content-type': 'application/json' });
      response.write('{"id":"9","na');
    };
    await withStandIn(
      stalling,
      async (client) => {
        const reads = [
          () => client.brands.get(9),
          () => client.runs.status(5),
          () => client.reports.download(1).then((f) => f.bytes()),
        ];
        for (const read of reads) {
          await assert.rejects(read(), (error) => {
            assert.ok(error instanceof SightlineConnectionError);
            assert.equal(error.reason, 'the answer stopped for 300 ms');
            return true;
          });
        }
        // A private file's download is never readable by others while it comes.
        const target = join(dir, 'private.pdf');
        writeFileSync(target, 'an older report', { mode: 0o600 });
        const downloading = assert.rejects(client.reports.downloadTo(1, target), SightlineConnectionError);
        await new Promise((resolve) => setTimeout(resolve, 150));
        const partial = readdirSync(dir).find((name) => name.endsWith('.part'));
        assert.ok(partial, 'the download is under way beside the file');
        assert.equal(statSync(join(dir, partial)).mode & 0o777, 0o600);
        await downloading;
        assert.equal(readFileSync(target, 'utf8'), 'an older report');
      },
      { requestTimeoutMs: 300 },
    );
  });

  it('refuses a key with characters no key has, at once', () => {
    for (const apiKey of ['sl_live_abc…', 'sl_live_ abc', '"sl_live_abc"'.replace(/"/g, '\u201c')]) {
      assert.throws(() => new Sightline({ apiKey, baseUrl }), {
        name: 'TypeError',
        message:
          'Sightline: the API key has characters no key has (spaces, quotes or letters outside ASCII): copy it again.',
      });
    }
  });

  it('reads the public demo brand without a key', async () => {
    const anonymous = new Sightline({ baseUrl });
    const page = await anonymous.brands.categories(demo.manifest.demoBrandId).page();
    assert.ok(page.count > 0);
  });

  it('follows page links that name a public address with a path of its own, on its base URL', async () => {
    // Behind a proxy at https://public.example/sightline/ (or /api/, a prefix that is also the
    // API's), the service's links name that address; a client on the internal address keeps only
    // the API path and query of each.
    for (const publicBaseUrl of ['https://public.example/sightline', 'https://public.example/api']) {
      const proxied = await buildApp(
        { ...demo.ctx.config, publicBaseUrl },
        { databases: demo.ctx.dbs, logger: false },
      );
      try {
        const client = new Sightline({ apiKey: await demo.mint('acme'), baseUrl: await listen(proxied) });
        const brands = [];
        for await (const brand of client.brands.list({ page_size: 2, archived: true })) brands.push(brand.id);
        assert.equal(brands.length, demo.brandIds.acme.length, publicBaseUrl);
      } finally {
        await proxied.close();
      }
    }
  });

  it('a 429 carries Retry-After; a longer wait than allowed is not waited out', async () => {
    // A second app on the same data with a limit of 1 request a minute: the second request is a
    // 429 whose Retry-After (up to 60 s) is more than a test can wait, so retrying is bounded by
    // maxRetryDelayMs rather than exercised.
    const limited = await buildApp(
      { ...demo.ctx.config, rateLimitPerMinute: 1 },
      {
        databases: demo.ctx.dbs,
        logger: false,
      },
    );
    try {
      const limitedUrl = await listen(limited);
      let requests = 0;
      const counting: typeof fetch = (input, init) => {
        requests++;
        return fetch(input, init);
      };
      const apiKey = await demo.mint('acme');
      const client = (options: { maxRetries: number; maxRetryDelayMs?: number }) =>
        new Sightline({ apiKey, baseUrl: limitedUrl, fetch: counting, ...options });
      await client({ maxRetries: 0 }).brands.get(demo.fixtures.brandId);

      const throttled = await rejection(client({ maxRetries: 0 }).brands.get(demo.fixtures.brandId));
      assert.ok(throttled instanceof SightlineRateLimitError);
      assert.ok(throttled.retryAfter !== null && throttled.retryAfter >= 1 && throttled.retryAfter <= 60);
      assert.match((throttled.body as { detail: string }).detail, /^Request was throttled\./);

      const started = Date.now();
      const bounded = await rejection(
        client({ maxRetries: 5, maxRetryDelayMs: 500 }).brands.get(demo.fixtures.brandId),
      );
      assert.ok(bounded instanceof SightlineRateLimitError);
      assert.ok(Date.now() - started < 1000);
      assert.equal(requests, 3, 'one accepted request, then one attempt each: no retry');
    } finally {
      await limited.close();
    }
  });

  it('a 503 is retried after its Retry-After like a 429, a bounded number of times', async () => {
    // The real service answers 503 only while its database is unreachable; this stand-in answers
    // 503 for the first `failures` requests, then the real service's JSON for the brand.
    const brand = await raw(`/api/brands/${demo.fixtures.brandId}/`);
    let failures = 0;
    let requests = 0;
    let retryAfter = '0';
    const flaky: RequestListener = (_request, response) => {
      requests++;
      if (requests <= failures) {
        response.writeHead(503, { 'content-type': 'application/json', 'retry-after': retryAfter });
        response.end('{"detail":"The database cannot be reached right now. Retry shortly."}');
      } else {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(brand));
      }
    };
    await withStandIn(flaky, async (_, flakyUrl) => {
      const client = (maxRetries: number) =>
        new Sightline({ apiKey: 'sl_live_any', baseUrl: flakyUrl, maxRetries });

      // Two 503s, then 200: the default two retries are enough.
      failures = 2;
      assert.deepEqual(await client(2).brands.get(demo.fixtures.brandId), brand);
      assert.equal(requests, 3);

      // Three 503s with one retry allowed: two attempts, then the typed error.
      requests = 0;
      failures = 3;
      const unavailable = await rejection(client(1).brands.get(demo.fixtures.brandId));
      assert.ok(unavailable instanceof SightlineUnavailableError);
      assert.ok(unavailable instanceof SightlineServerError, 'still a server error to older callers');
      assert.equal(unavailable.status, 503);
      assert.equal(unavailable.retryAfter, 0);
      assert.equal(requests, 2);

      // A Retry-After past maxRetryDelayMs is not waited out.
      requests = 0;
      retryAfter = '120';
      const impatient = await rejection(client(5).brands.get(demo.fixtures.brandId));
      assert.ok(impatient instanceof SightlineUnavailableError);
      assert.equal(impatient.retryAfter, 120);
      assert.equal(requests, 1);
    });
  });

  it('parses Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-03-14T05:12:00Z');
    assert.equal(parseRetryAfter('17', now), 17);
    assert.equal(parseRetryAfter('Sat, 14 Mar 2026 05:12:30 GMT', now), 30);
    assert.equal(parseRetryAfter('Sat, 14 Mar 2026 05:11:00 GMT', now), 0);
    assert.equal(parseRetryAfter('soon', now), null);
    assert.equal(parseRetryAfter(null, now), null);
    // Not dates, though Date.parse reads them as days of 2001: unreadable, so the 1 s fallback.
    assert.equal(parseRetryAfter('1.5', now), null);
    assert.equal(parseRetryAfter('-1', now), null);
    assert.equal(parseRetryAfter('Mon 1', now), null);
    // HTTP's two obsolete forms, which a recipient must still read.
    assert.equal(parseRetryAfter('Saturday, 14-Mar-26 05:12:30 GMT', now), 30);
    assert.equal(parseRetryAfter('Sat Mar 14 05:12:30 2026', now), 30);
  });

  it('refuses options that are no count of milliseconds or retries, at once', async () => {
    const odd = [Number.POSITIVE_INFINITY, Number.NaN, -1, 1.5, 2 ** 31];
    for (const value of odd) {
      for (const option of ['requestTimeoutMs', 'maxRetryDelayMs', 'maxRetries']) {
        assert.throws(() => new Sightline({ baseUrl, [option]: value }), {
          name: 'TypeError',
          message: new RegExp(`^Sightline: ${option} must be a whole number from \\d+ to 2147483647, not `),
        });
      }
      for (const option of ['timeoutMs', 'intervalMs', 'maxIntervalMs']) {
        await assert.rejects(sl.runs.waitUntilDone(demo.fixtures.runId, { [option]: value }), {
          name: 'TypeError',
          message: new RegExp(`^Sightline: ${option} must be a whole number`),
        });
      }
    }
    // null is the default, as undefined is.
    assert.ok(new Sightline({ baseUrl, requestTimeoutMs: null as unknown as number }));
    // A pause of 0 between polls would poll as fast as the service answers.
    await assert.rejects(sl.runs.waitUntilDone(demo.fixtures.runId, { intervalMs: 0 }), {
      name: 'TypeError',
    });
  });

  it('refuses an id that would name another path', () => {
    for (const id of ['', '.', '..']) {
      assert.throws(() => sl.reports.get(id, { brandId: demo.fixtures.brandId }), {
        name: 'TypeError',
        message: `Sightline: ${JSON.stringify(id)} is not an id.`,
      });
    }
  });

  it('joins CSV pages whose lines end in LF or CR alone, or a page without its last line end', async () => {
    // Three pages each, as a proxy that rewrote CRLF would pass them on, the first page's last
    // line end lost.
    for (const [end, first] of [
      ['\n', 'id,name\n1,a'],
      ['\r', 'id,name\r1,a\r'],
      ['\r\n', 'id,name\r\n1,a'],
    ]) {
      await withStandIn(
        (request, response) => {
          const page = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('page') ?? 1);
          response.writeHead(200, {
            'content-type': 'text/csv',
            ...(page < 3 ? { link: `</api/brands/?page=${page + 1}&format=csv>; rel="next"` } : {}),
          });
          response.end(page === 1 ? first : `id,name${end}${page},${'abc'[page - 1]}${end}`);
        },
        async (client) => {
          assert.equal(await client.brands.list().csv(), ['id,name', '1,a', '2,b', '3,c', ''].join(end));
        },
      );
    }
  });

  it('stops at a page that links back to one already read', async () => {
    // Every page of this stand-in says the same page comes next.
    await withStandIn(
      (request, response) => {
        const next = '/api/brands/?page=2';
        if (request.url?.includes('format=csv') || request.headers.accept === 'text/csv') {
          response.writeHead(200, { 'content-type': 'text/csv', link: `<${next}&format=csv>; rel="next"` });
          response.end('id,name\r\n1,a\r\n');
          return;
        }
        response.writeHead(200, { 'content-type': 'application/json' });
        if (request.url?.startsWith('/api/runs/')) {
          response.end(JSON.stringify({ responses: [{ id: '1' }], responsesNext: '/api/runs/1/?page=2' }));
          return;
        }
        response.end(JSON.stringify({ count: 9, next, previous: null, results: [{ id: '1' }] }));
      },
      async (client) => {
        const read = [];
        await assert.rejects(
          (async () => {
            for await (const brand of client.brands.list()) read.push(brand);
          })(),
          (error) => {
            assert.ok(error instanceof SightlineConnectionError);
            assert.equal(error.reason, 'the pages link back to /api/brands/?page=2');
            return true;
          },
        );
        // The first page, then page 2 once: the second time it is named, the walk stops.
        assert.equal(read.length, 2);
        await assert.rejects(client.brands.list().csv(), SightlineConnectionError);
        const rows = [];
        await assert.rejects(
          (async () => {
            for await (const row of client.runs.responses(1)) rows.push(row);
          })(),
          SightlineConnectionError,
        );
        assert.equal(rows.length, 2);
      },
    );
  });

  it('stops at a link back to the first page, or to a page named before in another form', async () => {
    // Page 2 links back to the first page. A walk begun at page 3 reaches page 2 by its absolute
    // URL, then the first page, which names page 2 by a relative link: the same page.
    await withStandIn(
      (request, response) => {
        const page = new URL(request.url ?? '/', 'http://x').searchParams.get('page');
        const host = `http://${request.headers.host}`;
        const next = { null: '/api/brands/?page=2', 2: '/api/brands/', 3: `${host}/api/brands/?page=2` };
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            count: 9,
            next: next[String(page) as keyof typeof next],
            previous: null,
            results: [{ id: page }],
          }),
        );
      },
      async (client) => {
        for (const [params, pagesRead, link] of [
          [{}, [null, '2'], '/api/brands/'],
          [{ page: 3 }, ['3', '2', null], '/api/brands/?page=2'],
        ] as const) {
          const read: unknown[] = [];
          await assert.rejects(
            (async () => {
              for await (const brand of client.brands.list(params)) read.push(brand.id);
            })(),
            (error) => {
              assert.ok(error instanceof SightlineConnectionError);
              assert.equal(error.reason, `the pages link back to ${link}`);
              return true;
            },
          );
          assert.deepEqual(read, pagesRead);
        }
      },
    );
  });

  it('refuses a base URL with a user name or password, without repeating them', async () => {
    assert.throws(() => new Sightline({ apiKey: 'sl_live_any', baseUrl: 'http://me:s3cret@127.0.0.1:1/' }), {
      name: 'TypeError',
      message:
        'Sightline: baseUrl holds a user name or password, which fetch refuses: pass the key as apiKey.',
    });
    // A link the server returns with them is followed without them.
    await withStandIn(
      (request, response) => {
        const second = request.url?.includes('page=2');
        const link = `http://me:s3cret@${request.headers.host}/api/brands/?page=2`;
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            count: 2,
            next: second ? null : link,
            previous: null,
            results: [{ id: second ? 2 : 1 }],
          }),
        );
      },
      async (client) => {
        const ids = [];
        for await (const brand of client.brands.list()) ids.push(brand.id);
        assert.deepEqual(ids, [1, 2]);
      },
    );
    // Nor are they repeated when such a link loops.
    await withStandIn(
      (request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        const next = `http://me:s3cret@${request.headers.host}/api/brands/?page=2`;
        response.end(JSON.stringify({ count: 2, next, previous: null, results: [{ id: 1 }] }));
      },
      async (client, base) => {
        await assert.rejects(
          (async () => {
            for await (const _ of client.brands.list());
          })(),
          (error) => {
            assert.ok(error instanceof SightlineConnectionError);
            assert.equal(error.reason, `the pages link back to ${base}/api/brands/?page=2`);
            return true;
          },
        );
      },
    );
  });
});
