import type { Command } from 'commander';

// The command groups of `sightline` (main.ts), each a file of cli/commands/ that registers its
// commands on the program.

type Group = () => Promise<{ register: (program: Command) => void }>;

const start: Group = () => import('./commands/start.ts');
const serve: Group = () => import('./commands/serve.ts');
const demo: Group = () => import('./commands/demo.ts');
const orgs: Group = () => import('./commands/orgs.ts');
const keys: Group = () => import('./commands/keys.ts');
const reports: Group = () => import('./commands/reports.ts');
const brands: Group = () => import('./commands/brands.ts');
const categories: Group = () => import('./commands/categories.ts');
const prompts: Group = () => import('./commands/prompts.ts');
const competitors: Group = () => import('./commands/competitors.ts');
const runs: Group = () => import('./commands/runs.ts');
const analyze: Group = () => import('./commands/analyze.ts');
const engines: Group = () => import('./commands/engines.ts');
const monitor: Group = () => import('./commands/monitor.ts');
const recommendations: Group = () => import('./commands/recommendations.ts');
const worker: Group = () => import('./commands/worker.ts');
const recommendationDrafts: Group = () => import('./commands/recommendation-drafts.ts');
const mcp: Group = () => import('./commands/mcp.ts');

// The files that define each top-level command. A command loads only its own (and what they
// import): every library at once (fastify, pdfkit, three vendor SDKs, MCP) costs about a second
// of start-up, which a one-line `orgs list` should not pay. Help loads them all, a mistyped
// command none.
// A Map, not an object: `sightline constructor` must be an unknown command, not Object's own.
export const COMMANDS = new Map<string, Group[]>([
  ['start', [start]],
  ['serve', [serve]],
  ['migrate', [serve]],
  ['demo', [demo]],
  ['orgs', [orgs]],
  ['keys', [keys]],
  ['reports', [reports]],
  ['brands', [brands]],
  ['categories', [categories]],
  ['prompts', [prompts]],
  ['competitors', [competitors]],
  ['runs', [runs]],
  ['analyze', [analyze]],
  ['engines', [engines]],
  ['monitor', [monitor]],
  // `draft` joins the group after the other `recommendations` commands.
  ['recommendations', [recommendations, recommendationDrafts]],
  ['worker', [worker]],
  ['mcp', [mcp]],
]);

/** Registers `groups` (default: every group, each once, in help's order) on `program`. */
export async function registerGroups(
  program: Command,
  groups: readonly Group[] = [...new Set([...COMMANDS.values()].flat())],
): Promise<void> {
  for (const group of await Promise.all(groups.map((load) => load()))) group.register(program);
}
