import assert from 'node:assert/strict';
import { it } from 'node:test';
import { parsePromptCsv } from '../src/domain/prompt-csv.ts';

// The prompts file's header: columns in any order and any case, synonyms, each column once.

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
