import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ndjsonLines, OverlongLine } from '../src/ingest/ndjson.ts';

// The answers file's lines from its bytes, however the bytes arrive in chunks.

async function linesOf(chunks: (string | Buffer)[], maxBytes?: number) {
  async function* input() {
    for (const c of chunks) yield typeof c === 'string' ? Buffer.from(c, 'utf8') : c;
  }
  const out: (string | number)[] = [];
  for await (const line of ndjsonLines(input(), maxBytes))
    out.push(line instanceof OverlongLine ? line.bytes : line);
  return out;
}

describe('an answers file read line by line', () => {
  it('ends a line at LF, CRLF (even split across chunks) or CR, and keeps a last line without an end', async () => {
    assert.deepEqual(await linesOf(['{"a":1}\r', '\n{"b":', '2}\rlast']), ['{"a":1}', '{"b":2}', 'last']);
  });

  it('keeps empty lines in their places (line numbers count them) and adds none after a final break', async () => {
    assert.deepEqual(await linesOf(['a\n\nb\n']), ['a', '', 'b']);
    assert.deepEqual(await linesOf(['a\r\n\r\n']), ['a', '']);
    assert.deepEqual(await linesOf([]), []);
  });

  it('decodes a character whose bytes are split between chunks', async () => {
    const e = Buffer.from('é', 'utf8');
    assert.deepEqual(
      await linesOf([Buffer.from('caf'), e.subarray(0, 1), e.subarray(1), Buffer.from('\n')]),
      ['café'],
    );
  });

  it('gives the length of a line past the bound instead of its text, and reads on after it', async () => {
    // 25 bytes against a bound of 10, in chunks of four.
    const text = `short\n${'x'.repeat(25)}\nnext`;
    const chunks = text.match(/.{1,4}/gs) ?? [];
    assert.deepEqual(await linesOf(chunks, 10), ['short', 25, 'next']);
    // Exactly at the bound is a line.
    assert.deepEqual(await linesOf(['x'.repeat(10)], 10), ['x'.repeat(10)]);
  });
});
