// Engines reached through an OpenAI-compatible chat completions endpoint: Perplexity (whose Sonar
// models always search the web) and any other such endpoint by base URL (OpenRouter, vLLM,
// Ollama), where searching depends on the model and endpoint chosen.
import type OpenAI from 'openai';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import type { EngineConfig } from '../../config.ts';
import { readVendor } from './errors.ts';
import { type EngineAdapter, onFirstUse, type Source, uniqueSources, type VendorReply } from './types.ts';

/** Perplexity's additions to the chat completion body. */
interface PerplexityFields {
  /** URLs the answer's [n] markers refer to, in that order. */
  citations?: string[] | null;
  search_results?: Array<{ url?: string; title?: string | null }> | null;
}

/** The numbered citations first (titled from the search results), then any other result. */
export function perplexitySources(completion: ChatCompletion): Source[] {
  const { citations, search_results: results } = completion as ChatCompletion & PerplexityFields;
  const titled = (results ?? []).flatMap((r) => (r.url ? [{ url: r.url, title: r.title ?? null }] : []));
  const titles = new Map(titled.map((r) => [r.url, r.title]));
  return uniqueSources([
    ...(citations ?? []).map((url) => ({ url, title: titles.get(url) ?? null })),
    ...titled,
  ]);
}

/** `url_citation` annotations, as OpenRouter and OpenAI's search models put them on the message. */
export function annotationSources(completion: ChatCompletion): Source[] {
  const annotations = completion.choices[0]?.message.annotations ?? [];
  return uniqueSources(
    annotations.flatMap((a) =>
      a.type === 'url_citation' ? [{ url: a.url_citation.url, title: a.url_citation.title }] : [],
    ),
  );
}

export function readCompletion(completion: ChatCompletion, sources: Source[]): VendorReply {
  const choice = completion.choices[0];
  const refusal = choice?.message.refusal;
  const declined = choice === undefined || Boolean(refusal) || choice.finish_reason === 'content_filter';
  return {
    kind: declined ? 'declined' : 'answer',
    text: declined ? (refusal ?? '') : (choice.message.content ?? ''),
    sources,
    vendorModel: completion.model ?? null,
    usage: {
      inputTokens: completion.usage?.prompt_tokens ?? 0,
      outputTokens: completion.usage?.completion_tokens ?? 0,
    },
    // Perplexity searches on every request and prices it per request (pricing.ts).
    webSearches: 0,
  };
}

function chatAdapter(
  name: 'perplexity' | 'openai_compatible',
  config: EngineConfig,
  baseURL: string,
  sources: (completion: ChatCompletion) => Source[],
): EngineAdapter {
  const client = onFirstUse<OpenAI>(async () => {
    const { default: OpenAI } = await import('openai');
    return new OpenAI({
      // The OpenAI SDK would otherwise send OpenAI's own credentials and account ids from the
      // environment (OPENAI_API_KEY, OPENAI_ADMIN_KEY, OPENAI_ORG_ID) to this other endpoint.
      // Local servers take no key, but the SDK requires one.
      apiKey: config.apiKey ?? 'no-key',
      adminAPIKey: null,
      organization: null,
      project: null,
      baseURL,
      maxRetries: 0,
    });
  });
  return {
    name,
    model: config.model,
    async call(request, signal) {
      const completion = await (await client()).chat.completions.create(
        { model: config.model, messages: [{ role: 'user', content: request.prompt }] },
        { signal },
      );
      return readVendor(() => readCompletion(completion, sources(completion)));
    },
  };
}

export function perplexityAdapter(config: EngineConfig): EngineAdapter {
  return chatAdapter('perplexity', config, config.baseUrl ?? 'https://api.perplexity.ai', perplexitySources);
}

export function openaiCompatibleAdapter(config: EngineConfig): EngineAdapter {
  if (config.baseUrl === undefined) throw new Error('openai_compatible needs OPENAI_COMPATIBLE_BASE_URL');
  return chatAdapter('openai_compatible', config, config.baseUrl, annotationSources);
}
