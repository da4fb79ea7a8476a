// ChatGPT: OpenAI's Responses API with the hosted web search tool, the way ChatGPT answers with
// search on. Sources are the answer's `url_citation` annotations: the pages OpenAI marks as
// supporting spans of the text, not every page the search visited.
import type OpenAI from 'openai';
import type { Response } from 'openai/resources/responses/responses';
import type { EngineConfig } from '../../config.ts';
import { MalformedReply, readVendor } from './errors.ts';
import { type EngineAdapter, onFirstUse, type Source, uniqueSources, type VendorReply } from './types.ts';

export function readResponse(response: Response): VendorReply {
  const texts: string[] = [];
  const refusals: string[] = [];
  const sources: Source[] = [];
  let webSearches = 0;
  for (const item of response.output) {
    if (item.type === 'web_search_call') webSearches++;
    if (item.type !== 'message') continue;
    for (const part of item.content) {
      if (part.type === 'refusal') {
        refusals.push(part.refusal);
        continue;
      }
      texts.push(part.text);
      for (const annotation of part.annotations) {
        if (annotation.type === 'url_citation')
          sources.push({ url: annotation.url, title: annotation.title });
      }
    }
  }
  const usage = {
    inputTokens: response.usage?.input_tokens ?? 0,
    outputTokens: response.usage?.output_tokens ?? 0,
  };
  const declined = refusals.length > 0 && texts.join('').trim() === '';
  return {
    kind: declined ? 'declined' : 'answer',
    text: declined ? refusals.join('\n') : texts.join('\n\n'),
    sources: uniqueSources(sources),
    vendorModel: response.model ?? null,
    usage,
    webSearches,
  };
}

export function chatgptAdapter(config: EngineConfig): EngineAdapter {
  const client = onFirstUse<OpenAI>(async () => {
    const { default: OpenAI } = await import('openai');
    return new OpenAI({ apiKey: config.apiKey, baseURL: config.baseUrl ?? null, maxRetries: 0 });
  });
  return {
    name: 'chatgpt',
    model: config.model,
    async call(request, signal) {
      const response = await (await client()).responses
        .create({ model: config.model, input: request.prompt, tools: [{ type: 'web_search' }] }, { signal })
        .catch((error: unknown) => {
          // The SDK walks the output itself (for its `output_text`): a body without that list fails
          // inside it, as a TypeError; its network failures are APIConnectionErrors.
          throw error instanceof TypeError ? new MalformedReply() : error;
        });
      return readVendor(() => readResponse(response));
    },
  };
}
