// `/mcp`: the MCP tools over Streamable HTTP on the service itself, so an agent host can add
// Sightline by URL. The gate authenticates the request with the API's own key headers (route
// access `keyOnly`); the tools then read through the SDK with a fetch that dispatches into this
// same app, carrying the caller's key, so every tool call is an ordinary API request with its
// scope check, tenancy and rate limit. Stateless: each POST gets a fresh server and transport,
// and nothing is kept between requests (no session id, no server-sent stream).
import { ApiError } from '../errors.ts';
import type { App } from '../http/types.ts';

const MCP_PATH = '/mcp';

export function registerMcpEndpoint(app: App): void {
  app.post(
    MCP_PATH,
    { schema: { hide: true }, config: { access: { keyOnly: true } } },
    async (request, reply) => {
      const { answerMcp } = await import('./handle.ts');
      return answerMcp(app, request, reply);
    },
  );
  // Stateless: there is no session to resume (GET) or end (DELETE).
  app.route({
    method: ['GET', 'DELETE'],
    url: MCP_PATH,
    schema: { hide: true },
    config: { access: { keyOnly: true } },
    handler: async () => {
      throw new ApiError(405, 'The MCP endpoint is stateless: send JSON-RPC messages with POST.', {
        allow: 'POST',
      });
    },
  });
}
