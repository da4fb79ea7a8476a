// Export 90 days of analytics for every brand to CSV: one file per brand and analytics block,
// plus brands.csv (the brand list itself), all written by the API's own CSV (docs/csv.md).
//
//   npx node examples/export-analytics.ts [--out DIR] [--range 90d]
//
// SIGHTLINE_API_KEY and SIGHTLINE_BASE_URL say where and as whom (examples/README.md).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
// In your own project: import { Sightline } from '@sightline/sdk';
import { Sightline } from '../clients/typescript/src/index.ts';

const BLOCKS = [
  'metrics',
  'shareOfVoice.visible',
  'shareOfVoice.hidden',
  'sources.items',
  'platforms.apiPlatforms',
  'platforms.surfacePlatforms',
  'coverage',
] as const;

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: 'analytics-export' },
    range: { type: 'string', default: '90d' },
  },
});
const range = values.range as '7d' | '30d' | '90d' | 'all';
const sl = new Sightline();

await mkdir(values.out, { recursive: true });
const brands = sl.brands.list({ sort: 'name' });
await writeFile(join(values.out, 'brands.csv'), await brands.csv());
let files = 1;
for await (const brand of brands) {
  for (const block of BLOCKS) {
    const csv = await sl.brands.analytics(brand.id, { range, format: 'csv', block });
    const file = join(values.out, `brand-${brand.id}-${block}.csv`);
    await writeFile(file, csv);
    files++;
  }
  console.log(`${brand.name} (${brand.id}): ${BLOCKS.length} blocks`);
}
console.log(`wrote ${files} files to ${values.out}`);
