// The engines Sightline can ask, built from configuration: `createEngines(config.engines)` gives
// every configured engine behind the one `Engine` interface, each with its own limits, retries
// and circuit breaker.
import { ENGINE_NAMES, type EngineConfig, type EngineName, type EnginesConfig } from '../../config.ts';
import { openaiCompatibleAdapter, perplexityAdapter } from './chat-completions.ts';
import { chatgptAdapter } from './chatgpt.ts';
import { claudeAdapter } from './claude.ts';
import { geminiAdapter } from './gemini.ts';
import { type ResilienceOptions, ResilientEngine } from './resilience.ts';
import { simulatedAdapter } from './simulated.ts';
import type { Engine, EngineAdapter } from './types.ts';

export type { AskRequest, AskResult, DraftContext, Engine, EngineName, Source, Turn } from './types.ts';
export { NO_TURN } from './types.ts';

const ADAPTERS: Record<EngineName, (config: EngineConfig) => EngineAdapter> = {
  chatgpt: chatgptAdapter,
  claude: claudeAdapter,
  gemini: geminiAdapter,
  perplexity: perplexityAdapter,
  openai_compatible: openaiCompatibleAdapter,
  simulated: simulatedAdapter,
};

/** Options beyond the configuration: injected backoff, clock, logger, metrics. */
export type EngineOptions = Partial<
  Omit<ResilienceOptions, 'maxAttempts' | 'breakerFailures' | 'breakerCooldownMs'>
>;

/** The configured engines, by name; an engine without its key is simply absent. */
export function createEngines(config: EnginesConfig, options: EngineOptions = {}): Map<EngineName, Engine> {
  const engines = new Map<EngineName, Engine>();
  for (const name of ENGINE_NAMES) {
    const engine = config.engines[name];
    if (!engine.configured) continue;
    engines.set(
      name,
      new ResilientEngine(ADAPTERS[name](engine), engine, {
        maxAttempts: config.maxAttempts,
        breakerFailures: config.breakerFailures,
        breakerCooldownMs: config.breakerCooldownMs,
        ...options,
      }),
    );
  }
  return engines;
}
