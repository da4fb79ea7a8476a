// Local stand-ins for the answer engines' APIs, on 127.0.0.1, speaking each vendor's wire format
// as its API reference and official SDK types describe it. Each checks the request the SDK sends
// (model, web search enabled, key header, the prompt and nothing else) and answers like the
// vendor, with citations; it can be scripted to fail the ways production fails.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Behaviour =
  /**
   * `text` replaces the answer's text where a reply carries it whole (ChatGPT, Gemini); `model`
   * the model name the reply reports.
   */
  | {
      kind: 'answer';
      text?: string;
      model?: string;
      /** Rewrites the reply's JSON text before it is sent (numbers JSON allows but JS cannot hold). */
      rewrite?: (json: string) => string;
    }
  | { kind: 'empty' }
  | { kind: 'refusal' }
  /** Claude only: a long search turn returned as `pause_turn`, to be continued. */
  | { kind: 'pause' }
  | { kind: 'status'; status: number; headers?: Record<string, string> }
  /** Accepts the request and never answers. */
  | { kind: 'hang' }
  /** Drops the connection without an answer (a reset, a proxy gone). */
  | { kind: 'reset' }
  /** Accepts the request and answers when `release()` is called (if the client is still there). */
  | { kind: 'hold' }
  | { kind: 'malformed' };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
  /** A response reached the client (false while held, and for a client that left first). */
  answered: boolean;
}

export interface FakeVendor {
  /** What the engine's base URL variable should be set to. */
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  /** How the next requests go, in order; after them, `fallback` (an answer unless set). */
  script(...behaviours: Behaviour[]): void;
  fallback: Behaviour;
  /** Requests being held (`hold`) right now. */
  readonly held: number;
  /** Answers every held request whose client is still connected. */
  release(): void;
  close(): Promise<void>;
}

// The answer every engine gives here, and the pages it cites.
export const PROMPT = 'What is the best CRM for a small startup?';
export const ANSWER_LINES = [
  'Here are the CRMs small startups choose most often:',
  '',
  '1. **HubSpot CRM** – a free tier that covers contacts and deals.',
  '2. **Pipedrive** – a visual pipeline that sales teams pick up quickly.',
  '3. **Acme CRM** – simple pricing for teams under ten people.',
];
export const ANSWER = ANSWER_LINES.join('\n');
export const PAGES = [
  { url: 'https://www.g2.com/categories/crm', title: 'Best CRM Software in 2026 | G2' },
  {
    url: 'https://www.forbes.com/advisor/business/software/best-crm-small-business/',
    title: 'Best CRM For Small Business Of 2026 – Forbes Advisor',
  },
  {
    url: 'https://www.reddit.com/r/startups/comments/1abc/which_crm/',
    title: 'Which CRM for an early startup?',
  },
] as const;

interface Exchange {
  /** The prompt this fake expects to be sent, alone. */
  prompt: string;
  path: string;
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
}

interface VendorSpec {
  /** Path of the base URL on the server (`/v1` where the SDK expects it in the base URL). */
  basePath: string;
  /** The endpoint this engine posts to, relative to the server. */
  endpoint(path: string, model: string): boolean;
  keyOf(headers: IncomingHttpHeaders): string | undefined;
  /** What is wrong with the request, if anything. */
  problem(exchange: Exchange, model: string): string | undefined;
  reply(kind: 'answer' | 'empty' | 'refusal' | 'pause', exchange: Exchange, model: string): unknown;
  /** An answer's reply with a scripted text, where the reply does not hold ANSWER whole. */
  answerWith?(reply: Record<string, unknown>, text: string): unknown;
  error(status: number, message: string): unknown;
}

const bearer = (headers: IncomingHttpHeaders) => /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1];

function onlyThePrompt(messages: unknown, prompt: string): string | undefined {
  const first = Array.isArray(messages) ? (messages[0] as { role?: string; content?: unknown }) : undefined;
  if (first?.role !== 'user' || first.content !== prompt)
    return 'the first message must be the prompt, alone';
  return undefined;
}

// --- OpenAI Responses API (POST /v1/responses) ------------------------------------------------

function openaiCitations(): Array<Record<string, unknown>> {
  // Spans of the answer each page supports; OpenAI tags cited URLs with utm_source=openai.
  const starts = ANSWER_LINES.slice(0, 2).join('\n').length + 1;
  const line = (i: number) => {
    const start = ANSWER_LINES.slice(0, i).join('\n').length + 1;
    return { start_index: start, end_index: start + (ANSWER_LINES[i]?.length ?? 0) };
  };
  return [
    { type: 'url_citation', ...line(2), url: `${PAGES[0].url}?utm_source=openai`, title: PAGES[0].title },
    { type: 'url_citation', ...line(3), url: `${PAGES[1].url}?utm_source=openai`, title: PAGES[1].title },
    {
      type: 'url_citation',
      start_index: starts,
      end_index: starts + 10,
      url: `${PAGES[0].url}?utm_source=openai`,
      title: PAGES[0].title,
    },
  ];
}

const openaiResponses: VendorSpec = {
  basePath: '/v1',
  endpoint: (path) => path === '/v1/responses',
  keyOf: bearer,
  problem({ body, prompt }, model) {
    if (body.model !== model) return `model must be ${model}`;
    if (!Array.isArray(body.tools) || !body.tools.some((t: { type?: string }) => t.type === 'web_search'))
      return 'the web_search tool must be enabled';
    if (body.input !== prompt) return 'input must be the prompt, alone';
    return undefined;
  },
  reply(kind, _exchange, model) {
    const content =
      kind === 'refusal'
        ? [{ type: 'refusal', refusal: "I'm sorry, but I can't help with that request." }]
        : [
            {
              type: 'output_text',
              text: kind === 'empty' ? '' : ANSWER,
              annotations: kind === 'empty' ? [] : openaiCitations(),
              logprobs: [],
            },
          ];
    return {
      id: 'resp_68f0c1d2e3',
      object: 'response',
      created_at: 1_767_225_600,
      status: 'completed',
      error: null,
      incomplete_details: null,
      model: `${model}-2025-08-07`,
      output: [
        {
          type: 'reasoning',
          id: 'rs_68f0c1d2e4',
          summary: [],
        },
        {
          type: 'web_search_call',
          id: 'ws_68f0c1d2e5',
          status: 'completed',
          action: { type: 'search', query: 'best CRM for small startups 2026' },
        },
        { type: 'message', id: 'msg_68f0c1d2e6', status: 'completed', role: 'assistant', content },
      ],
      parallel_tool_calls: true,
      tools: [{ type: 'web_search', search_context_size: 'medium', user_location: { type: 'approximate' } }],
      usage: {
        input_tokens: 8_200,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 600,
        output_tokens_details: { reasoning_tokens: 192 },
        total_tokens: 8_800,
      },
    };
  },
  error: (status, message) => ({
    error: {
      message,
      type: status === 429 ? 'requests' : status >= 500 ? 'server_error' : 'invalid_request_error',
      param: null,
      code: status === 429 ? 'rate_limit_exceeded' : status === 401 ? 'invalid_api_key' : null,
    },
  }),
};

// --- Anthropic Messages API (POST /v1/messages) -------------------------------------------------

const searchUse = {
  type: 'server_tool_use',
  id: 'srvtoolu_01WYG3ziw53XMcoyKL4XcZmE',
  name: 'web_search',
  input: { query: 'best CRM small startup' },
};
const searchResult = {
  type: 'web_search_tool_result',
  tool_use_id: searchUse.id,
  content: PAGES.map((p) => ({
    type: 'web_search_result',
    url: p.url,
    title: p.title,
    encrypted_content: 'EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC1kNjNjNTk1ZWI3Y2E',
    page_age: 'October 2, 2026',
  })),
};
const cite = (page: (typeof PAGES)[number], cited: string) => ({
  type: 'web_search_result_location',
  url: page.url,
  title: page.title,
  encrypted_index: 'Eo8BCioIAhgBIiQyYjQ0OWJmZi1lNm',
  cited_text: cited,
});
const claudeAnswer = [
  { type: 'text', text: `${ANSWER_LINES[0]}\n\n1. **HubSpot CRM** – `, citations: null },
  {
    type: 'text',
    text: 'a free tier that covers contacts and deals.',
    citations: [cite(PAGES[0], 'HubSpot offers a free CRM…')],
  },
  { type: 'text', text: '\n2. **Pipedrive** – ', citations: null },
  {
    type: 'text',
    text: 'a visual pipeline that sales teams pick up quickly.',
    citations: [cite(PAGES[1], 'Pipedrive’s pipeline view…'), cite(PAGES[0], 'Pipedrive is rated…')],
  },
  { type: 'text', text: `\n${ANSWER_LINES[4]}`, citations: null },
];

const anthropicMessages: VendorSpec = {
  basePath: '',
  endpoint: (path) => path === '/v1/messages',
  // The Messages API takes the key as x-api-key or, as this SDK version sends it, a bearer token.
  keyOf: (headers) => (headers['x-api-key'] as string | undefined) ?? bearer(headers),
  problem({ body, headers, prompt }, model) {
    if (!headers['anthropic-version']) return 'anthropic-version header is required';
    if (body.model !== model) return `model must be ${model}`;
    if (typeof body.max_tokens !== 'number') return 'max_tokens is required';
    const tools = body.tools as Array<{ type?: string; name?: string }> | undefined;
    if (!tools?.some((t) => t.type?.startsWith('web_search_') && t.name === 'web_search'))
      return 'the web_search tool must be enabled';
    return onlyThePrompt(body.messages, prompt);
  },
  reply(kind, { body }, model) {
    const continuing = (body.messages as unknown[]).length > 1;
    const searched = [
      { type: 'text', text: "I'll search for current CRM recommendations for startups." },
      searchUse,
      searchResult,
    ];
    const content =
      kind === 'pause'
        ? searched
        : kind === 'empty'
          ? []
          : kind === 'refusal'
            ? [{ type: 'text', text: '' }]
            : continuing
              ? claudeAnswer
              : [...searched, ...claudeAnswer];
    return {
      id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
      type: 'message',
      role: 'assistant',
      // The API reports the dated version behind the alias that was asked for.
      model: `${model}-20260915`,
      content,
      stop_reason: kind === 'pause' ? 'pause_turn' : kind === 'refusal' ? 'refusal' : 'end_turn',
      stop_sequence: null,
      usage: {
        input_tokens: 6_000,
        output_tokens: 400,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        server_tool_use: { web_search_requests: continuing ? 0 : 1 },
        service_tier: 'standard',
      },
    };
  },
  // The answer is cut into blocks around its citations: the scripted text is one block citing the
  // same two pages, in the same order.
  answerWith(reply, text) {
    const others = (reply.content as unknown[]).filter((block) => !claudeAnswer.includes(block as never));
    const cited = [
      cite(PAGES[0], 'HubSpot offers a free CRM…'),
      cite(PAGES[1], 'Pipedrive’s pipeline view…'),
    ];
    return { ...reply, content: [...others, { type: 'text', text, citations: cited }] };
  },
  error: (status, message) => ({
    type: 'error',
    error: {
      type:
        status === 529
          ? 'overloaded_error'
          : status === 429
            ? 'rate_limit_error'
            : status === 401
              ? 'authentication_error'
              : status >= 500
                ? 'api_error'
                : 'invalid_request_error',
      message,
    },
    request_id: 'req_011CSHoEeqs5C35K2UUqR7Fy',
  }),
};

// --- Gemini API (POST /v1beta/models/{model}:generateContent) ------------------------------------

const redirect = (id: string) => `https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQ${id}`;
export const GEMINI_CHUNKS = [
  { web: { uri: redirect('Fg2crm'), title: 'g2.com' } },
  { web: { uri: redirect('Hforbes'), title: 'forbes.com' } },
];

const geminiGenerate: VendorSpec = {
  basePath: '',
  endpoint: (path, model) => path === `/v1beta/models/${model}:generateContent`,
  keyOf: (headers) => headers['x-goog-api-key'] as string | undefined,
  problem({ body, prompt }) {
    const tools = body.tools as Array<Record<string, unknown>> | undefined;
    if (!tools?.some((t) => 'googleSearch' in t)) return 'the googleSearch tool must be enabled';
    const contents = body.contents as Array<{ role?: string; parts?: Array<{ text?: string }> }> | undefined;
    if (contents?.length !== 1 || contents[0]?.parts?.[0]?.text !== prompt)
      return 'contents must be the prompt, alone';
    return undefined;
  },
  reply(kind, _exchange, model) {
    const usageMetadata = {
      promptTokenCount: 12,
      candidatesTokenCount: 300,
      toolUsePromptTokenCount: 1_200,
      thoughtsTokenCount: 100,
      totalTokenCount: 1_612,
    };
    if (kind === 'refusal') {
      return {
        promptFeedback: {
          blockReason: 'SAFETY',
          safetyRatings: [
            { category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH', blocked: true },
          ],
        },
        usageMetadata: { promptTokenCount: 12, totalTokenCount: 12 },
        modelVersion: model,
        responseId: 'mG8xaPyzAbCdEf',
      };
    }
    const text = kind === 'empty' ? '' : ANSWER;
    return {
      candidates: [
        {
          content: { parts: [{ text }], role: 'model' },
          finishReason: 'STOP',
          index: 0,
          groundingMetadata:
            kind === 'empty'
              ? undefined
              : {
                  webSearchQueries: ['best CRM for small startup'],
                  searchEntryPoint: {
                    renderedContent: '<style>.container{}</style><div class="container">…</div>',
                  },
                  groundingChunks: GEMINI_CHUNKS,
                  groundingSupports: [
                    {
                      segment: { startIndex: 52, endIndex: 114, text: ANSWER_LINES[2] },
                      groundingChunkIndices: [0],
                    },
                    {
                      segment: { startIndex: 115, endIndex: 185, text: ANSWER_LINES[3] },
                      groundingChunkIndices: [1, 0],
                    },
                  ],
                },
        },
      ],
      usageMetadata,
      modelVersion: model,
      responseId: 'mG8xaPyzAbCdEf',
    };
  },
  error: (status, message) => ({
    error: {
      code: status,
      message,
      status:
        status === 429
          ? 'RESOURCE_EXHAUSTED'
          : status === 503
            ? 'UNAVAILABLE'
            : status >= 500
              ? 'INTERNAL'
              : 'INVALID_ARGUMENT',
      ...(status === 429
        ? { details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1s' }] }
        : {}),
    },
  }),
};

// --- Chat completions: Perplexity (POST /chat/completions) and OpenAI-compatible (/v1/…) --------

function chatCompletion(
  kind: 'answer' | 'empty' | 'refusal',
  model: string,
  extra: Record<string, unknown>,
  annotations: unknown[],
) {
  return {
    id: 'chatcmpl-3f1c2b7e',
    object: 'chat.completion',
    created: 1_767_225_600,
    model,
    choices: [
      {
        index: 0,
        finish_reason: 'stop',
        message: {
          role: 'assistant',
          content: kind === 'answer' ? ANSWER : kind === 'empty' ? '' : null,
          refusal: kind === 'refusal' ? "I can't help with that." : null,
          ...(kind === 'answer' && annotations.length > 0 ? { annotations } : {}),
        },
      },
    ],
    usage: { prompt_tokens: 12, completion_tokens: 280, total_tokens: 292 },
    ...extra,
  };
}

const chatProblem = ({ body, prompt }: Exchange, model: string) =>
  body.model !== model
    ? `model must be ${model}`
    : (body.messages as unknown[]).length !== 1
      ? 'one message expected'
      : onlyThePrompt(body.messages, prompt);

const chatError = (status: number, message: string) => ({
  error: { message, type: status === 429 ? 'rate_limit_exceeded' : 'server_error', code: status },
});

const perplexityChat: VendorSpec = {
  basePath: '',
  endpoint: (path) => path === '/chat/completions',
  keyOf: bearer,
  problem: chatProblem,
  reply: (kind, _exchange, model) =>
    chatCompletion(
      kind === 'pause' ? 'answer' : kind,
      model,
      kind === 'answer'
        ? {
            // [1] and [2] in the text; the third page was found but not cited.
            citations: [PAGES[1].url, PAGES[0].url],
            search_results: [
              {
                title: PAGES[0].title,
                url: PAGES[0].url,
                date: '2026-09-30',
                last_updated: '2026-10-02',
                snippet: 'Compare the best CRM…',
              },
              {
                title: PAGES[1].title,
                url: PAGES[1].url,
                date: '2026-08-14',
                last_updated: '2026-09-01',
                snippet: 'Our picks…',
              },
              {
                title: PAGES[2].title,
                url: PAGES[2].url,
                date: '2026-07-01',
                last_updated: '2026-07-01',
                snippet: 'We tried…',
              },
            ],
            usage: {
              prompt_tokens: 12,
              completion_tokens: 280,
              total_tokens: 292,
              search_context_size: 'low',
              cost: { input_tokens_cost: 0, output_tokens_cost: 0, request_cost: 0.005, total_cost: 0.005 },
            },
          }
        : {},
      [],
    ),
  error: chatError,
};

const openaiCompatibleChat: VendorSpec = {
  basePath: '/v1',
  endpoint: (path) => path === '/v1/chat/completions',
  keyOf: bearer,
  problem: chatProblem,
  // OpenRouter's web search puts `url_citation` annotations on the message.
  reply: (kind, _exchange, model) =>
    chatCompletion(kind === 'pause' ? 'answer' : kind, model, {}, [
      {
        type: 'url_citation',
        url_citation: { url: PAGES[2].url, title: PAGES[2].title, start_index: 0, end_index: 51 },
      },
    ]),
  error: chatError,
};

export const VENDORS = {
  chatgpt: openaiResponses,
  claude: anthropicMessages,
  gemini: geminiGenerate,
  perplexity: perplexityChat,
  openai_compatible: openaiCompatibleChat,
} as const;

export async function startFakeVendor(
  vendor: keyof typeof VENDORS,
  /** `prompts`: every prompt it may be sent (a monitoring run asks several), each alone. */
  options: { key: string | undefined; model: string; prompt?: string; prompts?: readonly string[] },
): Promise<FakeVendor> {
  const spec = VENDORS[vendor];
  const requests: RecordedRequest[] = [];
  const queue: Behaviour[] = [];
  const held: Array<() => void> = [];
  const sockets = new Set<Socket>();
  const accepted = options.prompts ?? [options.prompt ?? PROMPT];
  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: Record<string, unknown> = {};
    try {
      body = raw ? JSON.parse(raw) : {};
    } catch {
      return send(res, 400, spec.error(400, 'body is not JSON'));
    }
    const path = (req.url ?? '').split('?')[0] ?? '';
    const recorded: RecordedRequest = {
      method: req.method ?? '',
      path,
      headers: req.headers,
      body,
      answered: false,
    };
    requests.push(recorded);
    res.on('finish', () => {
      recorded.answered = true;
    });
    if (req.method !== 'POST' || !spec.endpoint(path, options.model))
      return send(res, 404, spec.error(404, `no route for ${req.method} ${path}`));
    const sentKey = spec.keyOf(req.headers);
    if (options.key !== undefined && sentKey !== options.key) {
      // Like OpenAI's own 401, the message quotes the key it was sent.
      return send(res, 401, spec.error(401, `Incorrect API key provided: ${sentKey ?? '(none)'}.`));
    }
    // Fine when it is exactly one of the accepted prompts, alone.
    const exchanges = accepted.map((prompt) => ({ prompt, path, body, headers: req.headers }));
    const fitting = exchanges.find((e) => spec.problem(e, options.model) === undefined);
    const exchange = fitting ?? (exchanges[0] as Exchange);
    const problem = fitting ? undefined : spec.problem(exchange, options.model);
    if (problem) return send(res, 400, spec.error(400, problem));
    const behaviour = queue.shift() ?? fake.fallback;
    switch (behaviour.kind) {
      case 'hang':
        return;
      case 'reset':
        req.socket.destroy();
        return;
      case 'hold':
        held.push(() => send(res, 200, spec.reply('answer', exchange, options.model)));
        return;
      case 'malformed':
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"id": "resp_1", "output": [');
        return;
      case 'status':
        return send(
          res,
          behaviour.status,
          spec.error(behaviour.status, `Failure ${behaviour.status} for key ${options.key}`),
          behaviour.headers,
        );
      default: {
        const reply = spec.reply(behaviour.kind, exchange, options.model) as Record<string, unknown>;
        if (behaviour.kind !== 'answer') return send(res, 200, reply);
        if (behaviour.rewrite) {
          const body = behaviour.rewrite(JSON.stringify(reply));
          res.writeHead(200, { 'content-type': 'application/json' }).end(body);
          return;
        }
        if (behaviour.model !== undefined)
          reply['modelVersion' in reply ? 'modelVersion' : 'model'] = behaviour.model;
        if (behaviour.text === undefined) return send(res, 200, reply);
        if (spec.answerWith) return send(res, 200, spec.answerWith(reply, behaviour.text));
        // Replaced inside the reply's JSON, where the text is escaped as it is here.
        const escaped = (text: string) => JSON.stringify(text).slice(1, -1);
        const json = JSON.stringify(reply);
        // Else the script would be ignored without a word, and its test would test nothing.
        if (!json.includes(escaped(ANSWER))) throw new Error('this fake vendor cannot script an answer text');
        return send(res, 200, JSON.parse(json.replace(escaped(ANSWER), escaped(behaviour.text))));
      }
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const fake: FakeVendor = {
    baseUrl: `http://127.0.0.1:${port}${spec.basePath}`,
    requests,
    fallback: { kind: 'answer' },
    script: (...behaviours) => {
      queue.push(...behaviours);
    },
    get held() {
      return held.length;
    },
    release: () => {
      for (const answer of held.splice(0)) answer();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  return fake;
}
