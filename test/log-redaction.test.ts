import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../src/app.ts';
import { containsKey, redactSecrets } from '../src/auth/redact.ts';
import type { App } from '../src/http/types.ts';
import { createTestContext, type TestContext } from './support/context.ts';
import { insertOrg, mintKey } from './support/fixtures.ts';
import { rawGet } from './support/raw-http.ts';

// No key secret reaches a log line, whatever field carries it and however it is encoded: the app's
// own log output is captured and searched for the secret in every form.

/** Every character percent-encoded, as a client library might. */
const encodeAll = (text: string) =>
  [...text].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`).join('');

/** The log read back as a person would: escapes decoded, to any depth. */
function decoded(text: string): string {
  let out = text;
  for (let i = 0; i < 5; i++)
    out = out.replace(/%([0-9A-Fa-f]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
  return out;
}

describe('redactSecrets', () => {
  const key = 'sl_live_AbCd1234_0123456789abcdefghijABCDEFGHIJ012345xyzXYZ';
  const masked = 'sl_live_AbCd1234…[redacted]';

  it('masks a key down to its identifier, plain or encoded to any depth', () => {
    assert.equal(redactSecrets(`/api/?k=${key}&x=1`), `/api/?k=${masked}&x=1`);
    assert.equal(redactSecrets(`ua ${key} end`), `ua ${masked} end`);
    for (const spelled of [
      key.replaceAll('_', '%5F'),
      key.replaceAll('_', '%5f'),
      key.replaceAll('_', '%255F'),
      key.replaceAll('_', '%25255f'),
      encodeAll(key),
      encodeAll(key).replaceAll('%', '%25'),
    ]) {
      const out = redactSecrets(`/api/?k=${spelled}`);
      assert.ok(!decoded(out).includes('0123456789abcdef'), `${spelled} → ${out}`);
      assert.ok(out.includes('AbCd1234'), 'the identifier stays readable');
    }
  });

  it('masks malformed and prefix-less keys too, and leaves other text alone', () => {
    assert.equal(redactSecrets('SL_LIVE_AbCd1234_secretpart'), 'SL_LIVE_AbCd1234…[redacted]');
    assert.equal(
      redactSecrets('x AbCd1234_0123456789abcdefghijABCDEFGHIJ012345 y'),
      'x AbCd1234_…[redacted] y',
    );
    for (const text of ['/api/brands/?page=2', 'lb-7f3a.2026:req_1', 'monitoring_interval_hours', '%5F%41']) {
      assert.equal(redactSecrets(text), text);
      assert.equal(containsKey(text), false);
    }
  });

  it('keeps a JSON log line valid whatever decoding produced', () => {
    const line = JSON.stringify({ url: '/?k=sl%5Flive%5FAbCd1234%22%2C%22x%22%3A1%5Fsecret' });
    const out = redactSecrets(line);
    assert.doesNotThrow(() => JSON.parse(out), out);
    assert.match(JSON.parse(out).url, /^\/\?k=sl_live_AbCd1234…\[redacted\]%22%2C%22x%22%3A1_secret$/);
  });
});

describe('the log of real requests', () => {
  let ctx: TestContext;
  let app: App;
  let port: number;
  let key: string;
  const lines: string[] = [];
  before(async () => {
    ctx = await createTestContext();
    key = await mintKey(ctx.dbs.primary, await insertOrg(ctx.dbs.primary, 'acme'));
    app = await buildApp(ctx.config, {
      databases: ctx.dbs,
      logger: { level: 'trace', stream: { write: (line: string) => lines.push(line) } },
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
  });
  after(async () => {
    await app?.close();
    await ctx?.close();
  });

  it('carries no key secret from any field, in any encoding, and echoes no key as a request id', async () => {
    const [, , keyId, secret] = key.split('_') as [string, string, string, string];
    const bare = `${keyId}_${secret}`;
    const bearer = ['Authorization', `Bearer ${key}`] as const;
    const requests: Array<[string, Array<readonly [string, string]>]> = [
      [`/api/brands/?api_key=${key}`, [bearer]],
      [`/api/brands/?api_key=${key.replaceAll('_', '%5F')}`, [bearer]],
      [`/api/brands/?api_key=${key.replaceAll('_', '%5f')}&q=${key.replaceAll('_', '%255F')}`, []],
      [`/api/brands/?k=${encodeAll(key)}`, []],
      [`/api/brands/${key}/`, [bearer]],
      [`/api/${encodeAll(key)}/`, []],
      ['/api/brands/', [['User-Agent', key], bearer]],
      ['/api/brands/', [['User-Agent', `curl/8.5 (Authorization: Bearer ${key})`]]],
      ['/api/brands/', [['User-Agent', bare]]],
      ['/api/brands/', [['X-Request-Id', key], bearer]],
      ['/api/brands/', [['X-Request-Id', bare]]],
      ['/api/brands/', [['X-Request-Id', `trace-${key}`]]],
      ['/api/brands/', [['X-API-Key', `${key.slice(0, -4)}XXXX`]]],
      ['/healthz', [['X-Request-Id', key]]],
      [`/nowhere?${key}`, [['User-Agent', key]]],
    ];
    for (const [target, headers] of requests) {
      const res = await rawGet(port, target, headers);
      assert.ok(res.statusCode < 500, `${target}: ${res.statusCode}`);
      const echoed = res.headers['x-request-id'] ?? '';
      assert.ok(!echoed.includes(secret) && !echoed.includes(keyId), `request id ${echoed}`);
    }
    // The access line is written when the response is done: wait for the last one.
    for (
      let i = 0;
      i < 50 && lines.filter((l) => l.includes('request completed')).length < requests.length;
      i++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const output = lines.join('');
    assert.equal(lines.filter((l) => l.includes('request completed')).length, requests.length);
    for (const text of [output, decoded(output)]) {
      assert.ok(!text.includes(secret), 'the secret appears nowhere');
      assert.ok(!text.includes(secret.slice(0, 12)), 'not even in part');
      assert.ok(!text.includes(secret.slice(-12)), 'nor its end');
    }
    for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), line);
    // The identifier is what names the key, in the URL as sent too.
    const access = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request completed');
    assert.equal(access[0].url, `/api/brands/?api_key=sl_live_${keyId}…[redacted]`);
    assert.equal(access[6].userAgent, `sl_live_${keyId}…[redacted]`);
    assert.equal(access[6].keyId, keyId);
  });
});
