// One MCP request over Streamable HTTP, loaded on the first POST to /mcp (src/mcp/http.ts): the
// MCP SDK and the tools' schemas are a sizeable share of the service's memory, which a service
// that never serves MCP does not need to hold.
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Sightline } from '../../clients/typescript/src/index.ts';
import { PAID_HEADER, presentedKey } from '../auth/gate.ts';
import { NotAuthenticated } from '../errors.ts';
import type { App } from '../http/types.ts';
import { createMcpServer } from './tools.ts';

// Never dialled: the in-app fetch reads only the path and query of what the SDK asks for.
const IN_APP = 'http://sightline.invalid';

// What places the inner request as the outer one was placed: its absolute links (report download
// URLs, page links) name the address the agent used, and the client address is the agent's.
const FORWARDED = ['host', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto'];
// What the MCP transport reads of the outer request.
const TRANSPORT_HEADERS = ['accept', 'content-type', 'mcp-protocol-version'];

function pick(request: FastifyRequest, names: readonly string[]): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of names) {
    const value = request.headers[name];
    if (typeof value === 'string') picked[name] = value;
  }
  return picked;
}

/**
 * The transport answers 406 unless the client accepts both JSON and an event stream, though this
 * stateless endpoint only ever answers JSON: a client that takes JSON (`application/json`, any type,
 * or no Accept at all, as curl and most HTTP libraries send) is served; one that refuses it still
 * gets the transport's 406.
 */
function transportAccept(accept: string | undefined): string {
  return accept === undefined || /application\/json|application\/\*|\*\/\*/i.test(accept)
    ? 'application/json, text/event-stream'
    : accept;
}

/**
 * A fetch that answers through `app.inject`, as if the outer request's client had sent it, with
 * the token of the outer request's payment (`Caller.pay`).
 */
function inAppFetch(app: App, outer: FastifyRequest, paid: string): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    // The outer request's id, so the access log ties each API request to the MCP call that made it.
    const headers: Record<string, string> = {
      ...pick(outer, FORWARDED),
      'x-request-id': outer.id,
      [PAID_HEADER]: paid,
    };
    new Headers(init?.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const response = await app.inject({
      method: 'GET',
      url: `${url.pathname}${url.search}`,
      headers,
      remoteAddress: outer.socket.remoteAddress,
    });
    const out = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      for (const one of [value ?? []].flat()) out.append(name, String(one));
    }
    return new Response(response.rawPayload, { status: response.statusCode, headers: out });
  };
}

/** A JSON-RPC message's method, as sent (the body is not checked yet). */
const methodOf = (message: unknown) => (message as { method?: unknown } | null)?.method;

/** Answers one JSON-RPC POST: a fresh server and transport, reading through the SDK in-app. */
export async function answerMcp(
  app: App,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const apiKey = presentedKey(request);
  // The gate admitted the request only with a valid key; without one, fail closed.
  if (!request.caller?.pay || apiKey === undefined) throw new NotAuthenticated();
  // Every message costs at least one request of the key's minute, paid before it is read (the
  // gate paid the first): one that reads no data (initialize, tools/list, a notification, a call
  // of no tool or with bad arguments) still costs a server and an answer, and free, one key could
  // flood the service with them. A tool call's payment covers its first API request, so a tool
  // costs exactly the requests it makes (a batch's tool calls share their payments). Past the
  // limit the POST is the API's 429. An empty batch is one message.
  const messages = [request.body].flat();
  const toolCalls = messages.filter((m) => methodOf(m) === 'tools/call').length;
  const payment = await request.caller.pay(Math.max(messages.length, 1) - 1, toolCalls);
  // 429s reach the agent at once, with their Retry-After, instead of holding this request open.
  const sl = new Sightline({
    apiKey,
    baseUrl: IN_APP,
    fetch: inAppFetch(app, request, payment.token),
    maxRetries: 0,
  });
  const server = createMcpServer(sl);
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
  try {
    await server.connect(transport);
    const response = await transport.handleRequest(
      new Request(new URL(request.url, IN_APP), {
        method: 'POST',
        headers: { ...pick(request, TRANSPORT_HEADERS), accept: transportAccept(request.headers.accept) },
      }),
      // A request cancelled in its own batch is never answered, and the stateless transport then
      // waited for its answer for good: nothing lives past one POST to be cancelled.
      {
        parsedBody: Array.isArray(request.body)
          ? request.body.filter((m) => methodOf(m) !== 'notifications/cancelled')
          : request.body,
      },
    );
    reply.code(response.status);
    response.headers.forEach((value, name) => {
      reply.header(name, value);
    });
    return reply.send(await response.text());
  } finally {
    payment.end();
    await server.close();
  }
}
