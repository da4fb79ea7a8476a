// `npm run analyzer:eval`: the analyzer's accuracy on the labelled corpus, per field, and the cases
// it gets wrong. Exit code 0 always: this is a report, the test suite is the gate.
import { analyzeAnswer } from '../src/domain/analyzer/index.ts';
import { FIELDS, type Field, fieldMatches, loadCorpus, observed } from '../test/fixtures/analyzer/corpus.ts';

const corpus = loadCorpus();
const correct = new Map<Field, number>(FIELDS.map((f) => [f, 0]));
const wrong: string[] = [];
let allRight = 0;

for (const c of corpus) {
  const actual = observed(analyzeAnswer(c.subject, c.answer));
  let caseRight = true;
  for (const field of FIELDS) {
    if (fieldMatches(field, c.expected, actual)) correct.set(field, (correct.get(field) ?? 0) + 1);
    else {
      caseRight = false;
      const known = c.knownMisses[field] ? ' (known miss)' : '';
      wrong.push(
        `  ${c.id} ${field}${known}: expected ${JSON.stringify(c.expected[field])}, got ${JSON.stringify(actual[field])}`,
      );
    }
  }
  if (caseRight) allRight++;
}

const pct = (n: number) => `${((100 * n) / corpus.length).toFixed(1)}%`.padStart(7);
console.log(`Analyzer accuracy on ${corpus.length} labelled answers (test/fixtures/analyzer)`);
for (const field of FIELDS) {
  const n = correct.get(field) ?? 0;
  console.log(`  ${field.padEnd(12)} ${pct(n)}  (${n}/${corpus.length})`);
}
console.log(`  ${'all fields'.padEnd(12)} ${pct(allRight)}  (${allRight}/${corpus.length})`);
if (wrong.length > 0) console.log(`\nMisses:\n${wrong.join('\n')}`);
