import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { it } from 'node:test';
import { parsePromptCsv } from '../src/domain/prompt-csv.ts';

// The prompts file (domain/prompt-csv.ts, domain/csv.ts): its header (columns in any order and
// case, synonyms, each column once), quoting and line ends, and the line each row and problem names.

it('reads the columns in any order and case, synonyms included', () => {
  const { rows, errors } = parsePromptCsv('Monitored,PROMPT,external_key\nno,Best CRM?,crm-1\n');
  assert.deepEqual(errors, []);
  assert.deepEqual(rows, [{ line: 2, text: 'Best CRM?', key: 'crm-1', category: null, monitored: false }]);
});

it('refuses a header that names a column twice, by its name or a synonym, instead of keeping one value', () => {
  assert.deepEqual(parsePromptCsv('text,text\nx,y\n'), {
    rows: [],
    errors: ['line 1: the header names the text column more than once ("text", "text")'],
  });
  assert.deepEqual(parsePromptCsv('Text,key,Prompt\nx,k,y\n'), {
    rows: [],
    errors: ['line 1: the header names the text column more than once ("Text", "Prompt")'],
  });
  assert.deepEqual(parsePromptCsv('text,key,external_key\nx,a,b\n').errors, [
    'line 1: the header names the key column more than once ("key", "external_key")',
  ]);
});

it('reads quoted fields (spaces after one dropped), any line end, and numbers each row by the line it starts on', () => {
  const text = '\ufefftext,key\r\n"Best CRM, for teams?" ,a\n\n"Two\r\nlines ""quoted""",b\rLast?,c';
  const { rows, errors } = parsePromptCsv(text);
  assert.deepEqual(errors, []);
  assert.deepEqual(
    rows.map((r) => [r.line, r.text, r.key]),
    [
      [2, 'Best CRM, for teams?', 'a'],
      // A prompt's whitespace runs become one space (domain/catalog.ts).
      [4, 'Two lines "quoted"', 'b'],
      [6, 'Last?', 'c'],
    ],
  );
});

it('refuses a malformed quote, naming its line', () => {
  assert.deepEqual(parsePromptCsv('text\nfine\n"never\nclosed\n').errors, [
    'line 3: a quoted field is never closed',
  ]);
  assert.deepEqual(parsePromptCsv('text\nsay "hi"\n').errors, [
    'line 2: a quote inside an unquoted field; wrap the field in quotes and double the quote ("")',
  ]);
  // Text after the closing quote was once read as part of the field ("a" b as "a b").
  assert.deepEqual(parsePromptCsv('text\n"a" b\n').errors, [
    'line 2: text after a closing quote; wrap the whole field in quotes and double the quotes inside it ("")',
  ]);
});

it('reads a large file in memory of its own size: 20 MB under a 96 MiB heap', () => {
  // Built a character at a time, each field was a chain of one-character strings until read: a
  // 10 MB file ended in V8's out-of-memory crash under deploy.md's 192 MiB heap. The child builds
  // 10,000 quoted fields of 2,000 characters (with a doubled quote and a line break in each) and
  // says how many records it read and the length of the last text.
  const script = `
    import { parseCsv } from ${JSON.stringify(new URL('../src/domain/csv.ts', import.meta.url).href)};
    const text = 'x'.repeat(996);
    const row = (i) => '"' + text + '""\\n' + text + '",key-' + i + '\\r\\n';
    const records = parseCsv('text,key\\r\\n' + Array.from({ length: 10000 }, (_, i) => row(i)).join(''));
    const last = records.at(-1);
    console.log(records.length, last.line, last.fields[0].length, last.fields[1]);
  `;
  const run = spawnSync(process.execPath, ['--max-old-space-size=96', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stderr.slice(0, 300));
  // The header and 10,000 records; each record two lines, so the last starts on line 2 + 9,999 × 2;
  // its text 996 + 1 (the doubled quote) + 1 (the line break) + 996 characters.
  assert.equal(run.stdout, '10001 20000 1994 key-9999\n');
});
