// A test reporter for scripts/test.mjs: after the pass, the files that took longest (the sum of
// their top-level tests), so that the CI budget (docs/notes/testing.md) has figures to work from.
const SHOWN = 8;

export default async function* slowestFiles(source) {
  const byFile = new Map();
  for await (const event of source) {
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0) {
      const file = event.data.file ?? 'unknown file';
      byFile.set(file, (byFile.get(file) ?? 0) + (event.data.details?.duration_ms ?? 0));
    }
  }
  const slowest = [...byFile].sort((a, b) => b[1] - a[1]).slice(0, SHOWN);
  yield `\nslowest test files:\n${slowest
    .map(
      ([file, ms]) => `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${file.slice(file.lastIndexOf('test/'))}`,
    )
    .join('\n')}\n`;
}
