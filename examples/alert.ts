// Alert when a brand's score fell: exits 1 when the windowed score delta (the latest score against
// the score at the window's start) is below the threshold, 0 when it is not.
//
//   npx node examples/alert.ts --brand 9 --threshold=-5 [--range 30d]
//
// Exit codes: 0 at or above the threshold; 1 below it; 2 a usage or API error; 3 no delta to judge
// (the API suppressed it, e.g. no scored run before the window: the reason is printed).
import { parseArgs } from 'node:util';
// In your own project: import { Sightline, SightlineError } from '@sightline/sdk';
import { Sightline, SightlineError } from '../clients/typescript/src/index.ts';

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

let values: { brand?: string; threshold?: string; range?: string };
try {
  ({ values } = parseArgs({
    options: {
      brand: { type: 'string' },
      threshold: { type: 'string' },
      range: { type: 'string', default: '30d' },
    },
  }));
} catch (error) {
  fail((error as Error).message);
}
const threshold = Number(values.threshold);
if (!values.brand || values.threshold === undefined || !Number.isFinite(threshold)) {
  fail(
    'usage: alert.ts --brand ID --threshold NUMBER [--range 7d|30d|90d] (a negative one as --threshold=-5)',
  );
}
const range = values.range as '7d' | '30d' | '90d';

const sl = new Sightline();
try {
  const [brand, history] = await Promise.all([
    sl.brands.get(values.brand),
    sl.brands.scoreHistory(values.brand, { range }),
  ]);
  const { delta, latestScore, spanLabel, suppressedReason } = history.windowedDelta;
  const who = `${brand.name} (${brand.id})`;
  if (delta === null) {
    console.log(`${who}: no ${spanLabel} delta to judge (${suppressedReason}); score ${latestScore}`);
    process.exit(3);
  }
  const verdict = delta < threshold ? 'ALERT: below' : 'ok: not below';
  console.log(
    `${who}: score ${latestScore}, ${spanLabel} delta ${delta}, ${verdict} the threshold ${threshold}`,
  );
  process.exit(delta < threshold ? 1 : 0);
} catch (error) {
  // One line for the monitoring system's log: the API's answer, or why it could not be reached.
  const cause = (error as { cause?: { message?: string } }).cause?.message;
  fail(
    error instanceof SightlineError || !cause
      ? (error as Error).message
      : `${(error as Error).message}: ${cause}`,
  );
}
