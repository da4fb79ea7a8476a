import { createHash, type Hash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { type NdjsonLine, ndjsonLines } from './ndjson.ts';

// An answers file is read twice, its lines checked and then written (ingest/import.ts). Opened by
// its path each time, a file that grew, was rewritten or was replaced (`mv`) between the two had
// its new lines written unchecked: an answer of another category into a run, or a run no check
// had planned (a NOT NULL failure). Here both passes read the one file that was opened, up to the
// size it had then, and the second pass ends the import (rolling back everything it wrote) if
// those bytes are not the ones the first pass checked.

export class AnswersFileChanged extends Error {
  override name = 'AnswersFileChanged';
}

async function* hashed(chunks: AsyncIterable<Buffer> | Iterable<Buffer>, hash: Hash): AsyncGenerator<Buffer> {
  for await (const chunk of chunks) {
    hash.update(chunk);
    yield chunk;
  }
}

/**
 * Runs `use` with the file's lines as an answer source that reads the file as it was when opened:
 * lines added to it later are not read (a later import adds them), and a change to the lines that
 * were read fails the second reading with AnswersFileChanged.
 */
export async function withAnswersFile<T>(
  path: string,
  use: (lines: () => AsyncIterable<NdjsonLine>) => Promise<T>,
): Promise<T> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    let checked: string | undefined;
    const lines = async function* () {
      const hash = createHash('sha256');
      const chunks = size === 0 ? [] : handle.createReadStream({ start: 0, end: size - 1, autoClose: false });
      yield* ndjsonLines(hashed(chunks, hash));
      const digest = hash.digest('hex');
      if (checked === undefined) checked = digest;
      else if (digest !== checked)
        throw new AnswersFileChanged(
          'the file changed while it was imported; nothing was imported: import it again once it is complete',
        );
    };
    return await use(lines);
  } finally {
    await handle.close();
  }
}
