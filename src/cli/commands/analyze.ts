// `sightline analyze`: runs the answer analyzer on one answer and prints what it derived — the
// tool for seeing why an answer scored as it did. Reads the answer from --file or stdin.
import type { Command } from 'commander';
import { analyzeAnswer } from '../../domain/analyzer/index.ts';
import { parseListOption, parseWebsiteOption } from '../operator.ts';
import { parseName, print, readStdin, readTextFile } from './support.ts';

interface AnalyzeOptions {
  brand: string;
  aliases?: string[];
  website?: string;
  competitors?: string[];
  citations?: string;
  file?: string;
  html?: boolean;
}

async function readAnswer(file: string | undefined): Promise<string> {
  if (file !== undefined) return readTextFile(file);
  return readStdin('pipe the answer in (… | sightline analyze --brand NAME) or pass --file');
}

export function register(program: Command): void {
  program
    .command('analyze')
    .description('Analyze one answer (from --file or stdin) and print the derived fields as JSON.')
    .requiredOption('--brand <name>', 'the brand to look for', parseName)
    .option('--aliases <list>', "the brand's other names, comma-separated", parseListOption)
    .option('--website <url>', "the brand's website (its domain counts as a name)", parseWebsiteOption)
    .option('--competitors <list>', 'known competitors, comma-separated', parseListOption)
    .option('--citations <list>', 'citation URLs captured with the answer, comma-separated')
    .option('--file <path>', 'read the answer from this file instead of stdin')
    .option('--html', 'the answer is HTML')
    .action(async (options: AnalyzeOptions) => {
      const answer = await readAnswer(options.file);
      const analysis = analyzeAnswer(
        {
          brand: { name: options.brand, aliases: options.aliases, website: options.website },
          competitors: (options.competitors ?? []).map((name) => ({ name })),
        },
        {
          text: options.html ? '' : answer,
          html: options.html ? answer : null,
          citations: options.citations
            ?.split(',')
            .map((u) => u.trim())
            .filter(Boolean),
        },
      );
      const { mentioned, rank, sentiment, sources } = analysis;
      const competitors = analysis.competitors.map(({ name, rank }) => ({ name, rank }));
      const candidates = analysis.candidates.map(({ name, rank }) => ({ name, rank }));
      print(JSON.stringify({ mentioned, rank, sentiment, competitors, sources, candidates }, null, 2));
    });
}
