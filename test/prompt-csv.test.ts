import assert from 'node:assert/strict';
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
