// `sightline mcp`: the MCP tools over stdio, for an agent host that starts Sightline as a local
// process. The tools speak to a running Sightline service through the SDK, so the key's scopes,
// organization and rate limit apply as to any other client. stdout carries the protocol only.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { Sightline } from '../../clients/typescript/src/index.ts';
import type { McpClientConfig } from '../config.ts';
import { createMcpServer } from './tools.ts';

export async function serveStdio(config: McpClientConfig): Promise<void> {
  // 429s reach the agent at once, with their Retry-After, as on /mcp.
  const server = createMcpServer(new Sightline({ ...config, maxRetries: 0 }), {
    servesApi: servesApi(config.baseUrl),
  });
  await server.connect(new StdioServerTransport());
  // Its origin and path only: a token someone put in its query string is not for the log.
  const { origin, pathname } = new URL(config.baseUrl);
  const shown = `${origin}${pathname === '/' ? '' : pathname}`;
  process.stderr.write(`sightline mcp: serving the MCP tools over stdio for ${shown}\n`);
}

/**
 * Whether `baseUrl` serves the Sightline API: its OpenAPI document (no key needed) is there. Asked
 * once a call is not found, and kept once answered; a service that does not answer is taken to
 * serve it this time (asked again next time).
 */
function servesApi(baseUrl: string): () => Promise<boolean> {
  let known: Promise<boolean> | undefined;
  const document = new URL('api/openapi.json', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  return () => {
    known ??= fetch(document, { signal: AbortSignal.timeout(10_000) }).then((response) => {
      response.body?.cancel().catch(() => undefined);
      return response.status !== 404;
    });
    return known.catch(() => {
      known = undefined;
      return true;
    });
  };
}
