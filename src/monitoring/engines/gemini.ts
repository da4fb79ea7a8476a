// Gemini: the Gemini API with Grounding with Google Search. Sources are the grounding chunks'
// `web.uri` and `web.title`: Google's redirect links (vertexaisearch.cloud.google.com/grounding-
// api-redirect/…) whose title is the cited site's domain, not the page's own URL and title.
import type { GenerateContentResponse, GoogleGenAI } from '@google/genai';
import type { EngineConfig } from '../../config.ts';
import { readVendor, retryAfterFromHeaders, VendorHttpError } from './errors.ts';
import { type EngineAdapter, onFirstUse, type Source, uniqueSources, type VendorReply } from './types.ts';

// Finish reasons that mean Gemini withheld the answer, not that it ran out of room.
const BLOCKED = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'LANGUAGE',
]);

export function readGenerateContent(response: GenerateContentResponse): VendorReply {
  const candidate = response.candidates?.[0];
  const metadata = candidate?.groundingMetadata;
  const sources: Source[] = (metadata?.groundingChunks ?? []).flatMap((chunk) =>
    chunk.web?.uri ? [{ url: chunk.web.uri, title: chunk.web.title ?? null }] : [],
  );
  const usage = response.usageMetadata;
  const declined =
    candidate === undefined ||
    response.promptFeedback?.blockReason !== undefined ||
    BLOCKED.has(String(candidate.finishReason));
  return {
    kind: declined ? 'declined' : 'answer',
    // `text` joins the first candidate's text parts and leaves out the model's thoughts.
    text: declined ? '' : (response.text ?? ''),
    sources: uniqueSources(sources),
    vendorModel: response.modelVersion ?? null,
    usage: {
      // Search results given to the model are billed as input, its thoughts as output.
      inputTokens: (usage?.promptTokenCount ?? 0) + (usage?.toolUsePromptTokenCount ?? 0),
      outputTokens: (usage?.candidatesTokenCount ?? 0) + (usage?.thoughtsTokenCount ?? 0),
    },
    webSearches: metadata?.webSearchQueries?.length ?? 0,
  };
}

/** google.rpc.RetryInfo's `retryDelay` ("37s"), which Gemini's 429 bodies carry. */
function retryDelayFromBody(body: unknown): number | undefined {
  const details = (body as { error?: { details?: unknown } } | null)?.error?.details;
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    const delay = (detail as { retryDelay?: unknown })?.retryDelay;
    const match = typeof delay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(delay) : null;
    if (match) return Number(match[1]) * 1000;
  }
  return undefined;
}

/**
 * The Gemini SDK's ApiError keeps the status but not the headers, so a failed response is turned
 * into a VendorHttpError here, below it, while Retry-After can still be read.
 */
async function failingFetch(input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  if (response.ok) return response;
  const body: unknown = await response.json().catch(() => null);
  const error = (body as { error?: { status?: unknown } } | null)?.error;
  throw new VendorHttpError(
    response.status,
    retryAfterFromHeaders(response.headers) ?? retryDelayFromBody(body),
    typeof error?.status === 'string' ? error.status : undefined,
  );
}

export function geminiAdapter(config: EngineConfig): EngineAdapter {
  const client = onFirstUse<GoogleGenAI>(async () => {
    const { GoogleGenAI } = await import('@google/genai');
    return new GoogleGenAI({
      apiKey: config.apiKey,
      // Never Vertex AI, whatever GOOGLE_GENAI_USE_VERTEXAI says: the key is a Gemini API key.
      vertexai: false,
      // No retryOptions: the SDK then makes one attempt and the engine's policy decides on retries.
      httpOptions: { ...(config.baseUrl ? { baseUrl: config.baseUrl } : {}), fetch: failingFetch },
    });
  });
  return {
    name: 'gemini',
    model: config.model,
    async call(request, signal) {
      const response = await (await client()).models.generateContent({
        model: config.model,
        contents: request.prompt,
        config: { tools: [{ googleSearch: {} }], abortSignal: signal },
      });
      return readVendor(() => readGenerateContent(response));
    },
  };
}
