// Download the latest executive summary of each brand: the newest artifact of the type that is
// complete (a newer one may still be running), saved under the name the service gives it.
//
//   npx node examples/latest-summaries.ts [--out DIR] [--type executive_summary_v2]
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
// In your own project: import { type ReportArtifact, Sightline } from '@sightline/sdk';
import { type ReportArtifact, Sightline } from '../clients/typescript/src/index.ts';

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: 'summaries' },
    type: { type: 'string', default: 'executive_summary_v2' },
  },
});
const sl = new Sightline();

await mkdir(values.out, { recursive: true });
let downloaded = 0;
for await (const brand of sl.brands.list({ sort: 'name' })) {
  // Newest first: the first complete one is the latest that can be downloaded.
  let latest: ReportArtifact | undefined;
  for await (const artifact of sl.reports.list(brand.id, { reportType: values.type })) {
    if (artifact.status === 'complete') {
      latest = artifact;
      break;
    }
  }
  if (!latest) {
    console.log(`${brand.name} (${brand.id}): no complete ${values.type}`);
    continue;
  }
  const file = await sl.reports.download(latest.id);
  // basename: a file name from a response header never picks the directory.
  const name = basename(file.filename ?? `brand-${brand.id}-${values.type}-${latest.id}`);
  await writeFile(join(values.out, name), file.body);
  downloaded++;
  console.log(
    `${brand.name} (${brand.id}): report ${latest.id} of ${latest.completedAt} -> ${join(values.out, name)}`,
  );
}
console.log(`downloaded ${downloaded} ${values.type} files to ${values.out}`);
