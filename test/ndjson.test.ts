import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { NotUtf8Line, ndjsonLines, OverlongLine } from '../src/ingest/ndjson.ts';

// The answers file's lines from its bytes, however the bytes arrive in chunks.

async function linesOf(chunks: (string | Buffer)[], maxBytes?: number) {
  async function* input() {
    for (const c of chunks) yield typeof c === 'string' ? Buffer.from(c, 'utf8') : c;
  }
  const out: (string | number | null)[] = [];
  for await (const line of ndjsonLines(input(), maxBytes))
    out.push(line instanceof OverlongLine ? line.bytes : line instanceof NotUtf8Line ? null : line);
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

  it('marks a line whose bytes are not UTF-8 (null here), and only that line', async () => {
    // "café" in Windows-1252: é is the single byte 0xE9, which UTF-8 never has alone.
    const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9]);
    assert.deepEqual(await linesOf(['ok\n', latin1, '\nstill ok']), ['ok', null, 'still ok']);
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

  it('reads any text, cut into any chunks, as splitting it whole at its line ends does', async () => {
    // Line ends, characters of one to four UTF-8 bytes, and plain letters, cut at random byte offsets.
    const piece = fc.constantFrom('\n', '\r', '\r\n', 'a', '{"x":1}', 'é', '€', '😀', ' ');
    await fc.assert(
      fc.asyncProperty(
        fc.array(piece, { maxLength: 40 }),
        fc.array(fc.nat(60), { maxLength: 8 }),
        async (pieces, cuts) => {
          const text = pieces.join('');
          const bytes = Buffer.from(text, 'utf8');
          const offsets = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          const chunks: Buffer[] = [];
          let from = 0;
          for (const at of [...offsets, bytes.length]) {
            chunks.push(bytes.subarray(from, at));
            from = at;
          }
          const expected = text.split(/\r\n|\r|\n/);
          // A final line end starts no line of its own.
          if (expected.at(-1) === '') expected.pop();
          assert.deepEqual(await linesOf(chunks), expected);
        },
      ),
      { numRuns: 500 },
    );
  });
});
