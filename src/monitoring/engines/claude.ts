// Claude: Anthropic's Messages API with the web search server tool. Sources are the
// `web_search_result_location` citations on the answer's text blocks: the results Claude cites
// for a sentence, not every result its searches returned.
import type Anthropic from '@anthropic-ai/sdk';
import type { ContentBlock, Message, MessageParam } from '@anthropic-ai/sdk/resources/messages/messages';
import type { EngineConfig } from '../../config.ts';
import { readVendor } from './errors.ts';
import { type EngineAdapter, onFirstUse, type Source, type Usage, uniqueSources } from './types.ts';

const MAX_TOKENS = 4096;
// A long search turn comes back `pause_turn`; it is resumed by sending it back, a few times at most.
const MAX_CONTINUATIONS = 3;

/**
 * The answer is the text after the last search result: Claude narrates before searching ("I'll
 * look up …"), and that is not part of what it tells the user.
 */
export function readContent(content: readonly ContentBlock[]): { text: string; sources: Source[] } {
  const lastResult = content.findLastIndex((block) => block.type === 'web_search_tool_result');
  const texts: string[] = [];
  const sources: Source[] = [];
  for (const block of content.slice(lastResult + 1)) {
    if (block.type !== 'text') continue;
    texts.push(block.text);
    for (const citation of block.citations ?? []) {
      if (citation.type === 'web_search_result_location')
        sources.push({ url: citation.url, title: citation.title });
    }
  }
  return { text: texts.join(''), sources: uniqueSources(sources) };
}

export function claudeAdapter(config: EngineConfig): EngineAdapter {
  const client = onFirstUse<Anthropic>(async () => {
    const { default: Anthropic } = await import('@anthropic-ai/sdk');
    return new Anthropic({
      apiKey: config.apiKey,
      authToken: null,
      baseURL: config.baseUrl ?? null,
      maxRetries: 0,
    });
  });
  return {
    name: 'claude',
    model: config.model,
    async call(request, signal, nextRequest) {
      const messages: MessageParam[] = [{ role: 'user', content: request.prompt }];
      const usage: Usage = { inputTokens: 0, outputTokens: 0 };
      let webSearches = 0;
      // Each continuation carries on from the blocks before it, so the answer spans them all.
      const content: ContentBlock[] = [];
      let message: Message;
      const anthropic = await client();
      for (let turn = 0; ; turn++) {
        if (turn > 0) nextRequest();
        message = await anthropic.messages.create(
          {
            model: config.model,
            max_tokens: MAX_TOKENS,
            messages,
            tools: [{ type: 'web_search_20250305', name: 'web_search' }],
          },
          { signal },
        );
        const turnMessage = message;
        readVendor(() => {
          usage.inputTokens += turnMessage.usage.input_tokens;
          usage.outputTokens += turnMessage.usage.output_tokens;
          webSearches += turnMessage.usage.server_tool_use?.web_search_requests ?? 0;
          content.push(...turnMessage.content);
        });
        if (message.stop_reason !== 'pause_turn' || turn >= MAX_CONTINUATIONS) break;
        messages.splice(1, 1, { role: 'assistant', content });
      }
      const { text, sources } = readVendor(() => readContent(content));
      return {
        kind: message.stop_reason === 'refusal' ? 'declined' : 'answer',
        text,
        sources,
        vendorModel: message.model,
        usage,
        webSearches,
      };
    },
  };
}
