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

/** How long one answer of the probe is kept: a proxy's passing 404 or a timeout is not for good. */
const PROBE_KEPT_MS = 60_000;

/**
 * Whether `baseUrl` serves the Sightline API: its OpenAPI document (no key needed) is there, or
 * the probe could not tell (no answer within 3 s, a failure). Asked when a call is not found, and
 * its answer kept a minute, so a service that never answers the probe delays a not-found call by
 * 3 s at most once a minute.
 */
function servesApi(baseUrl: string): () => Promise<boolean> {
  let known: { answer: Promise<boolean>; at: number } | undefined;
  const document = new URL('api/openapi.json', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  return () => {
    if (!known || Date.now() - known.at > PROBE_KEPT_MS) {
      const answer = fetch(document, { signal: AbortSignal.timeout(3_000) }).then(
        (response) => {
          response.body?.cancel().catch(() => undefined);
          return response.status !== 404;
        },
        () => true,
      );
      known = { answer, at: Date.now() };
    }
    return known.answer;
  };
}
