// What an ask probably cost, from the vendors' published list prices (USD, read in 2026; see
// docs/monitoring.md). An estimate: it ignores free tiers, cached-input discounts, batch prices
// and long-context surcharges, and a vendor's invoice is the only exact figure.
import type { EngineName } from '../../config.ts';
import type { Usage } from './types.ts';

interface Price {
  inputPerMillion: number;
  outputPerMillion: number;
  /** The web-search surcharge, in USD, and what it is charged on. */
  searchFee: number;
  /**
   * `search`: each search the vendor ran (OpenAI, Anthropic); `grounded`: once for an answer that
   * searched at all (Gemini 2.5); `request`: every request (Perplexity's request fee).
   */
  searchFeePer: 'search' | 'grounded' | 'request';
}

const OPENAI_SEARCH = { searchFee: 10 / 1000, searchFeePer: 'search' } as const;
const ANTHROPIC_SEARCH = { searchFee: 10 / 1000, searchFeePer: 'search' } as const;
const GEMINI_25_GROUNDING = { searchFee: 35 / 1000, searchFeePer: 'grounded' } as const;

const PRICES: Partial<Record<EngineName, Record<string, Price>>> = {
  chatgpt: {
    'gpt-5': { inputPerMillion: 1.25, outputPerMillion: 10, ...OPENAI_SEARCH },
    'gpt-5-mini': { inputPerMillion: 0.25, outputPerMillion: 2, ...OPENAI_SEARCH },
    'gpt-5.4': { inputPerMillion: 2.5, outputPerMillion: 15, ...OPENAI_SEARCH },
    'gpt-5.4-mini': { inputPerMillion: 0.75, outputPerMillion: 4.5, ...OPENAI_SEARCH },
  },
  claude: {
    'claude-sonnet-5-5': { inputPerMillion: 2, outputPerMillion: 10, ...ANTHROPIC_SEARCH },
    'claude-sonnet-5': { inputPerMillion: 2, outputPerMillion: 10, ...ANTHROPIC_SEARCH },
    'claude-opus-5-5': { inputPerMillion: 4, outputPerMillion: 20, ...ANTHROPIC_SEARCH },
    'claude-haiku-4-5': { inputPerMillion: 1, outputPerMillion: 5, ...ANTHROPIC_SEARCH },
    'claude-sonnet-4-5': { inputPerMillion: 3, outputPerMillion: 15, ...ANTHROPIC_SEARCH },
  },
  gemini: {
    'gemini-2.5-flash': { inputPerMillion: 0.3, outputPerMillion: 2.5, ...GEMINI_25_GROUNDING },
    'gemini-2.5-pro': { inputPerMillion: 1.25, outputPerMillion: 10, ...GEMINI_25_GROUNDING },
  },
  perplexity: {
    // Request fees at the default (low) search context size.
    sonar: { inputPerMillion: 1, outputPerMillion: 1, searchFee: 5 / 1000, searchFeePer: 'request' },
    'sonar-pro': { inputPerMillion: 3, outputPerMillion: 15, searchFee: 6 / 1000, searchFeePer: 'request' },
  },
  simulated: {
    simulated: { inputPerMillion: 0, outputPerMillion: 0, searchFee: 0, searchFeePer: 'request' },
  },
};

/**
 * The listed model `model` is, or a dated version of it (`gpt-5-mini-2025-08-07`,
 * `claude-haiku-4-5-20251001`): the longest listed name followed by nothing or by `-` and a digit.
 */
function priceOf(engine: EngineName, model: string): Price | undefined {
  const table = PRICES[engine] ?? {};
  let best: string | undefined;
  for (const name of Object.keys(table)) {
    const rest = model.slice(name.length);
    if (model.startsWith(name) && (rest === '' || /^-\d/.test(rest)) && name.length > (best?.length ?? 0)) {
      best = name;
    }
  }
  return best === undefined ? undefined : table[best];
}

export function estimateCostUsd(
  engine: EngineName,
  models: readonly (string | null)[],
  usage: Usage,
  webSearches: number,
): number | null {
  // The vendor's model name first (it says what ran), the configured one if the vendor's is unknown.
  const price = models.reduce<Price | undefined>(
    (found, m) => found ?? (m ? priceOf(engine, m) : undefined),
    undefined,
  );
  if (price === undefined) return null;
  const searches =
    price.searchFeePer === 'request'
      ? 1
      : price.searchFeePer === 'grounded'
        ? Math.min(1, webSearches)
        : webSearches;
  const usd =
    (usage.inputTokens * price.inputPerMillion + usage.outputTokens * price.outputPerMillion) / 1_000_000 +
    searches * price.searchFee;
  // Micro-dollars: finer than any invoice, and free of float noise in stored values.
  return Math.round(usd * 1_000_000) / 1_000_000;
}
